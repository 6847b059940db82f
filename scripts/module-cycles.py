#!/usr/bin/env python3
"""Fails when the top-level modules of a crate import each other in a circle.

A module's edges are the `crate::NAME` paths its files mention (in `use` items and in code),
where NAME is another top-level module of the same crate. A folder module counts as one node
(`runner/` and everything under it is `runner`). Tests (`#[cfg(test)]` modules, `tests/`) are
left out: a test may reach across layers.

Usage: module-cycles.py CRATE_SRC_DIR [CRATE_SRC_DIR ...]
Exit 0 when every crate's module graph is acyclic; 1 with each circle printed otherwise.
"""

import re
import sys
from pathlib import Path

CRATE_PATH = re.compile(r"\bcrate::(?:\{\s*)?([a-z_][a-z0-9_]*)")
# `use crate::{a::X, b::Y}` names several modules inside one brace group.
BRACE_GROUP = re.compile(r"\bcrate::\{([^}]*(?:\{[^}]*\}[^}]*)*)\}", re.S)
GROUP_ITEM = re.compile(r"(?:^|,)\s*([a-z_][a-z0-9_]*)\s*(?:::|,|$|\s)")


def strip_tests(text: str) -> str:
    """Drops `#[cfg(test)] mod ... { ... }` blocks and line comments."""
    text = re.sub(r"//[^\n]*", "", text)
    out, i = [], 0
    marker = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{")
    while True:
        m = marker.search(text, i)
        if not m:
            out.append(text[i:])
            break
        out.append(text[i : m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    return "".join(out)


def top_module(src: Path, file: Path) -> str | None:
    rel = file.relative_to(src)
    if rel.parts[0] in ("lib.rs", "main.rs"):
        return None
    return rel.parts[0].removesuffix(".rs")


def graph(src: Path) -> dict[str, set[str]]:
    modules = {p.name.removesuffix(".rs") for p in src.iterdir() if p.suffix == ".rs" or p.is_dir()}
    modules -= {"lib", "main"}
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for file in src.rglob("*.rs"):
        here = top_module(src, file)
        if here is None or here not in edges:
            continue
        text = strip_tests(file.read_text())
        names = set(CRATE_PATH.findall(text))
        for group in BRACE_GROUP.findall(text):
            names.update(GROUP_ITEM.findall(group))
        edges[here].update(n for n in names if n in modules and n != here)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main() -> int:
    bad = False
    for arg in sys.argv[1:]:
        src = Path(arg)
        edges = graph(src)
        for comp in cycles(edges):
            bad = True
            print(f"module circle in {src}: {' <-> '.join(comp)}")
            for m in comp:
                inside = sorted(edges[m] & set(comp))
                print(f"  {m} uses {', '.join(inside)}")
    if not bad:
        print(f"module graph acyclic: {' '.join(sys.argv[1:])}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
