#!/usr/bin/env python3
"""Warns about a type whose inherent methods spread over many files: a god type in the making.

Counts, per crate, top-level module and type name, the `fn` items of its inherent `impl` blocks (`impl Type`,
`impl<'a> Type<'a>`, not `impl Trait for Type`) outside `#[cfg(test)]` modules, and the files
they are in. A type over THRESHOLD methods is printed as a warning, with its files; the check
never fails (issue 34 asks for a warning): the count is there to be read in every CI log.

Usage: type-methods.py [--threshold N] CRATE_SRC_DIR [CRATE_SRC_DIR ...]   (default N = 40)
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from importlib import import_module  # noqa: E402

strip_tests = import_module("module-cycles").strip_tests
body = import_module("file-cycles").braces

IMPL = re.compile(r"^\s*impl(?:\s*<[^{]*?>)?\s+([A-Za-z_][A-Za-z0-9_:]*)\s*(?:<[^{]*?>)?\s*(?:where[^{]*)?\{", re.M)
FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+\w+", re.M)


def depth_one_fns(block: str) -> int:
    """The `fn` items directly in an impl block (not those nested in a method's body)."""
    count, depth, i = 0, 0, 0
    for m in FN.finditer(block):
        depth += sum({"{": 1, "}": -1}.get(c, 0) for c in block[i : m.start()])
        i = m.start()
        if depth == 0:
            count += 1
    return count


def main(argv: list[str]) -> int:
    threshold = 40
    if "--threshold" in argv:
        k = argv.index("--threshold")
        threshold = int(argv[k + 1])
        argv = argv[:k] + argv[k + 2 :]
    if not argv:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    warned = 0
    for src in map(Path, argv):
        methods: dict[str, int] = {}
        files: dict[str, set[str]] = {}
        for file in sorted(src.rglob("*.rs")):
            text = strip_tests(file.read_text())
            for m in IMPL.finditer(text):
                # Two types of one name in two top-level modules (`runner::Runner`,
                # `executor::Runner`) are two types.
                rel = file.relative_to(src).parts
                top = rel[0].removesuffix(".rs") if len(rel) > 1 else ""
                name = f"{top}::{m.group(1).split('::')[-1]}" if top else m.group(1).split("::")[-1]
                if name == "for" or re.search(r"\bfor\b", text[m.start() : m.end()]):
                    continue
                n = depth_one_fns(body(text, m.end()))
                if n:
                    methods[name] = methods.get(name, 0) + n
                    files.setdefault(name, set()).add(str(file))
        top = sorted(methods.items(), key=lambda kv: -kv[1])
        for name, n in top:
            if n > threshold:
                warned += 1
                print(f"warning: {src}: `{name}` has {n} methods over {len(files[name])} files (threshold {threshold})")
        if top:
            name, n = top[0]
            print(f"{src}: largest type by methods: `{name}`, {n} in {len(files[name])} files")
    print(f"{warned} types over {threshold} methods")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
