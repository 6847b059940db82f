#!/usr/bin/env python3
"""Lists the circles between the source files of each crate, and fails on a new one.

`module-cycles.py` sees only top-level modules. Here a node is one file: a file's edges are
the modules its paths name (`crate::a::b::X`, `super::x::Y`, `self::x`, brace groups of `use`),
each resolved to the deepest file that defines that module, and through a folder module's
`pub use child::Name` re-exports to the child that defines the name. Tests (`#[cfg(test)]`
modules) and comments are left out.

The circles that existed when this check came (issue 34: the browser crate's session hub and
its kin) are listed in `scripts/file-cycles.allowed`, one circle a line, its files sorted and
joined by ` | `. A circle not in that list fails; a listed circle that is gone is reported so
the list shrinks with it. The goal is an empty list.

Usage: file-cycles.py [--write] CRATE_SRC_DIR [CRATE_SRC_DIR ...]
  --write   rewrite the allowed list with the circles found now (to record one that shrank)
Exit 0 when no circle is new; 1 with each new circle printed otherwise.
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from importlib import import_module  # noqa: E402

module_cycles = import_module("module-cycles")
strip_tests = module_cycles.strip_tests

ALLOWED = Path(__file__).resolve().parent / "file-cycles.allowed"
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
# A path that starts at the crate, the parent or this module.
PATH = re.compile(rf"\b((?:crate|super|self)(?:::(?:super|{IDENT}))*)(::\{{)?")
USE_REEXPORT = re.compile(rf"\bpub(?:\([^)]*\))?\s+use\s+(?:self::)?({IDENT})::([^;]+);")


def module_files(src: Path) -> dict[tuple[str, ...], Path]:
    """Each module path (`("executor", "cover")`) and the file defining it."""
    out: dict[tuple[str, ...], Path] = {}
    for file in src.rglob("*.rs"):
        rel = file.relative_to(src).with_suffix("")
        parts = rel.parts
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        out[tuple(parts)] = file
    return out


def module_of(src: Path, file: Path) -> tuple[str, ...]:
    parts = file.relative_to(src).with_suffix("").parts
    return parts[:-1] if parts[-1] in ("mod", "lib", "main") else parts


def braces(text: str, start: int) -> str:
    """The text inside the brace group opening at `start` (nested groups kept)."""
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[start : i - 1]


def group_paths(group: str) -> list[list[str]]:
    """The paths of a `use` brace group, relative to its prefix (`a::X, b::{c, d}`)."""
    out: list[list[str]] = []
    depth, item = 0, ""
    items: list[str] = []
    for ch in group:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(item)
            item = ""
        else:
            item += ch
    items.append(item)
    for it in items:
        it = it.strip()
        if not it:
            continue
        if "::{" in it:
            head, rest = it.split("::{", 1)
            for sub in group_paths(rest.rsplit("}", 1)[0]):
                out.append(head.split("::") + sub)
        else:
            out.append(it.split(" as ")[0].strip().split("::"))
    return out


def absolute(here: tuple[str, ...], path: list[str]) -> list[str] | None:
    """`path` (starting with crate, super or self) from the crate root."""
    if path[0] == "crate":
        base: list[str] = []
        rest = path[1:]
    else:
        base = list(here)
        rest = path
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                if not base:
                    return None
                base.pop()
            rest = rest[1:]
    return base + [p for p in rest if p]


def reexports(files: dict[tuple[str, ...], Path]) -> dict[tuple[str, ...], dict[str, str]]:
    """For each module, the names it re-exports from a child module: name → child."""
    out: dict[tuple[str, ...], dict[str, str]] = {}
    for module, file in files.items():
        text = strip_tests(file.read_text())
        names: dict[str, str] = {}
        for child, rest in USE_REEXPORT.findall(text):
            if (*module, child) not in files:
                continue
            rest = rest.strip()
            items = group_paths(rest[1:-1]) if rest.startswith("{") else [rest.split("::")]
            for item in items:
                names[item[-1].split(" as ")[-1].strip()] = child
        out[module] = names
    return out


def resolve(
    path: list[str],
    files: dict[tuple[str, ...], Path],
    exports: dict[tuple[str, ...], dict[str, str]],
) -> Path | None:
    """The file of the deepest module `path` names, following folder re-exports."""
    for n in range(len(path), -1, -1):
        module = tuple(path[:n])
        if module in files:
            nxt = path[n] if n < len(path) else None
            while nxt is not None and nxt in exports.get(module, {}):
                module = (*module, exports[module][nxt])
                nxt = None
            return files[module]
    return None


def graph(src: Path) -> dict[Path, set[Path]]:
    files = module_files(src)
    exports = reexports(files)
    edges: dict[Path, set[Path]] = {f: set() for f in files.values()}
    for file in files.values():
        here = module_of(src, file)
        text = strip_tests(file.read_text())
        paths: list[list[str]] = []
        for m in PATH.finditer(text):
            prefix = m.group(1).split("::")
            if m.group(2):
                for sub in group_paths(braces(text, m.end())):
                    paths.append(prefix + sub)
            else:
                paths.append(prefix)
        for p in paths:
            full = absolute(here, p)
            if full is None:
                continue
            target = resolve(full, files, exports)
            if target is not None and target != file:
                edges[file].add(target)
    return edges


def circles(edges: dict[Path, set[Path]]) -> list[list[Path]]:
    """Strongly connected components of more than one file (module-cycles.py's Tarjan)."""
    named = {str(f): {str(t) for t in ts} for f, ts in edges.items()}
    return [[Path(f) for f in comp] for comp in module_cycles.cycles(named)]


def main(argv: list[str]) -> int:
    write = "--write" in argv
    dirs = [a for a in argv if a != "--write"]
    if not dirs:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    root = Path.cwd()
    now: set[str] = set()
    for d in dirs:
        for comp in circles(graph(Path(d))):
            now.add(" | ".join(str(f.resolve().relative_to(root)) for f in comp))
    allowed = set()
    if ALLOWED.exists():
        allowed = {
            line.strip()
            for line in ALLOWED.read_text().splitlines()
            if line.strip() and not line.startswith("#")
        }
    if write:
        header = "# Circles between files that existed when scripts/file-cycles.py came (issue 34).\n"
        header += "# One circle a line; the goal is an empty list. Rewrite with --write.\n"
        ALLOWED.write_text(header + "".join(f"{c}\n" for c in sorted(now)))
    files = sum(len(c.split(" | ")) for c in now)
    print(f"{len(now)} circles between files ({files} files); {len(allowed)} allowed")
    for gone in sorted(allowed - now):
        print(f"  gone (take it out of {ALLOWED.name}): {gone}")
    new = sorted(now - allowed)
    for c in new:
        print(f"  new circle: {c}")
    return 1 if new and not write else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
