#!/usr/bin/env python3
"""Prints each crate's module tree with the first line of each file's `//!` doc, for
ARCHITECTURE.md; with --check, fails when a source file is missing from ARCHITECTURE.md's trees
(so the code map cannot silently fall behind the code).

Usage: module-tree.py            print the trees (Markdown)
       module-tree.py --check    exit 1 naming every file ARCHITECTURE.md's trees do not list
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = [
    ("windup-model", "runner/model/src"),
    ("windup-browser", "runner/browser/src"),
    ("windup-engine", "runner/engine/src"),
    ("windup (the CLI)", "runner/cli/src"),
    ("windup-mcp", "runner/mcp/src"),
    ("windup-testkit", "runner/testkit/src"),
    ("windup-dashboard", "dashboard/src"),
    ("windup-action", "action/src"),
]


def summary(path: Path) -> str:
    lines = []
    for line in path.read_text().splitlines():
        if line.startswith("//!"):
            text = line[3:].strip()
            if not text:
                break
            lines.append(text)
        elif lines or line.strip():
            break
    text = " ".join(lines)
    # The first sentence is enough for a map.
    m = re.match(r"(.+?)\.(\s|$)", text)
    return (m.group(1) if m else text).rstrip(".:")


def entries(src: Path) -> list[str]:
    return sorted(str(p.relative_to(src)) for p in src.rglob("*.rs"))


def tree(src: Path) -> str:
    out = []
    for rel in entries(src):
        depth = rel.count("/")
        name = rel.split("/")[-1]
        out.append(f"{'  ' * depth}{name:<{max(1, 24 - 2 * depth)}} {summary(src / rel)}".rstrip())
        # A folder's files follow its mod.rs, indented.
    return "\n".join(_folders(out, src))


def _folders(lines: list[str], src: Path) -> list[str]:
    """Inserts `folder/` headings so nested files read as a tree."""
    result, seen = [], set()
    for rel, line in zip(entries(src), lines):
        parts = rel.split("/")[:-1]
        for i in range(len(parts)):
            key = "/".join(parts[: i + 1])
            if key not in seen:
                seen.add(key)
                result.append(f"{'  ' * i}{parts[i]}/")
        result.append(line)
    return result


def main() -> int:
    if sys.argv[1:] == ["--check"]:
        doc = (ROOT / "ARCHITECTURE.md").read_text()
        missing = []
        for _, src in CRATES:
            block = re.search(rf"\(`{re.escape(src)}`\)\n\n```\n(.*?)\n```", doc, re.S)
            listed = block.group(1) if block else ""
            for rel in entries(ROOT / src):
                # Listed under its folder heading, by its own name, at its depth.
                depth, name = rel.count("/"), rel.split("/")[-1]
                if not re.search(rf"^{'  ' * depth}{re.escape(name)}(\s|$)", listed, re.M):
                    missing.append(f"{src}/{rel}")
        for m in missing:
            print(f"ARCHITECTURE.md does not list {m}: run `python3 scripts/module-tree.py` and update its trees")
        if not missing:
            print("ARCHITECTURE.md lists every source file")
        return 1 if missing else 0
    for name, src in CRATES:
        print(f"### {name} (`{src}`)\n\n```\n{tree(ROOT / src)}\n```\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
