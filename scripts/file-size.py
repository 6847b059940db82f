#!/usr/bin/env python3
"""Fails when a source file is over the line limit before its `#[cfg(test)]` module.

Files should be small enough to read whole (ARCHITECTURE.md, "Invariants"); a test module at the
end does not count. The in-page engine's modules (`injected/*.js`) are held to the same limit.
Usage: file-size.py [--max N] DIR [DIR ...]
"""

import sys
from pathlib import Path

def code_lines(path: Path) -> int:
    n = 0
    for line in path.read_text(errors="replace").splitlines():
        # Only an unindented one starts the file's test module: an indented `#[cfg(test)]` (in
        # a macro, an impl) is code, and once cut `injected.rs` short at line 22.
        if line.rstrip() == "#[cfg(test)]":
            break
        n += 1
    return n


def main() -> int:
    args = sys.argv[1:]
    limit = 600
    if args[:1] == ["--max"]:
        limit, args = int(args[1]), args[2:]
    over = []
    for d in args:
        for p in sorted(Path(d).rglob("*")):
            if p.suffix in (".rs", ".js") and "target" not in p.parts:
                n = code_lines(p)
                if n > limit:
                    over.append((n, p))
    for n, p in over:
        print(f"{p}: {n} lines before its tests (limit {limit}): split it along its concerns")
    if not over:
        print(f"no source file over {limit} lines before its tests")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
