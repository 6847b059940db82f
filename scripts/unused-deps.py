#!/usr/bin/env python3
"""Unused dependencies: every dependency a workspace crate declares ([dependencies],
[dev-dependencies], [build-dependencies], their `[target.*]` forms) is named in that crate's Rust
sources. Run from anywhere; exits 1 naming each unused one, 0 when there is none.

It does what cargo-machete does, without a compile: cargo-machete (0.9.2) is a source grep too,
and this script uses its two patterns (a `use`, `extern crate` or `name::` path on one line; a
compound `use {..}` over several lines; a match on a `//` line does not count). A dependency is
named by its key in Cargo.toml, `-` read as `_` (a `package = ".."` rename is its key, which is
what the sources say); a crate whose library name differs from its package name is mapped in
`[package.metadata.cargo-machete] renamed`, and a dependency no grep can see used (a derive that
needs a crate by name) is listed in `[package.metadata.cargo-machete] ignored`, with the reason
in a comment. An ignored dependency that the sources do name is reported too: the list is pruned.

Checked against cargo-machete 0.9.2 (which CI compiled from source for a minute or more) on
2026-12-06: on this tree both find nothing unused; both flag an unused `itoa` added on purpose to
the engine's or the dashboard's [dependencies]. cargo-machete reads [dependencies] only: an unused
dev-dependency (`itoa` among the engine's) fails here and passes there, and so did two it had let
through (the model's `tempfile`, the CLI's `windup-browser`), removed with this script's arrival.
"""

import glob
import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
KINDS = ("dependencies", "dev-dependencies", "build-dependencies")

# cargo-machete's sub-module match in a compound `use`: nested braces up to 4 levels.
SUB = (
    r"(?:::\w+)*(?:::\*|\s+as\s+\w+|::\{(?:[^{}]*(?:\{(?:[^{}]*(?:\{(?:[^{}]*(?:\{[^{}]*\})?"
    r"[^{}]*)*\})?[^{}]*)*\})?[^{}]*)*\})?"
)


def line_pattern(name: str) -> re.Pattern[str]:
    n = f"(?i:{re.escape(name)})"
    return re.compile(
        rf"use (::)?{n}(::|;| as)|(?:[^:]|^|\W::)\b{n}::|extern crate {n}( |;)", re.MULTILINE
    )


def multiline_pattern(name: str) -> re.Pattern[str]:
    n = re.escape(name)
    return re.compile(
        rf"use \{{\s*(?:(::)?\w+{SUB}\s*,\s*)*(::)?{n}{SUB}\s*(?:\s*,\s*(::)?\w+{SUB})*\s*,?\s*\}};"
    )


def named_in(name: str, sources: list[str]) -> bool:
    line, multi = line_pattern(name), multiline_pattern(name)
    for text in sources:
        for m in line.finditer(text):
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            if not text[start : end if end >= 0 else len(text)].lstrip().startswith("//"):
                return True
        if multi.search(text):
            return True
    return False


def members() -> list[pathlib.Path]:
    workspace = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]
    dirs = []
    for pattern in workspace.get("members", []):
        dirs += sorted(pathlib.Path(p) for p in glob.glob(str(ROOT / pattern)))
    return [d for d in dirs if (d / "Cargo.toml").is_file()]


def rust_sources(crate: pathlib.Path, nested: set[pathlib.Path]) -> list[str]:
    texts = []
    for path in sorted(crate.rglob("*.rs")):
        rel = path.relative_to(crate)
        if rel.parts[0] == "target" or any(n in path.parents for n in nested):
            continue
        texts.append(path.read_text(errors="replace"))
    return texts


def declared(manifest: dict) -> list[tuple[str, str]]:
    """(table, key) of every dependency, the `[target.*]` tables included."""
    tables = [(kind, manifest.get(kind, {})) for kind in KINDS]
    for target, spec in manifest.get("target", {}).items():
        tables += [(f"target.{target}.{kind}", spec.get(kind, {})) for kind in KINDS]
    return [(table, key) for table, deps in tables for key in deps]


def main() -> int:
    crates = members()
    problems = []
    for crate in crates:
        manifest = tomllib.loads((crate / "Cargo.toml").read_text())
        meta = manifest.get("package", {}).get("metadata", {}).get("cargo-machete", {})
        ignored, renamed = set(meta.get("ignored", [])), meta.get("renamed", {})
        nested = {c for c in crates if c != crate and crate in c.parents}
        sources = rust_sources(crate, nested)
        where = (crate / "Cargo.toml").relative_to(ROOT)
        for table, key in declared(manifest):
            used = named_in(renamed.get(key, key.replace("-", "_")), sources)
            if not used and key not in ignored:
                problems.append(
                    f"{where}: [{table}] {key} is never named in {crate.relative_to(ROOT)}'s Rust "
                    "sources: remove it, or, when it is used where no grep sees it (a derive that "
                    "needs the crate by name), list it in [package.metadata.cargo-machete] ignored "
                    "with the reason"
                )
            elif used and key in ignored:
                problems.append(
                    f"{where}: {key} is in [package.metadata.cargo-machete] ignored but the sources "
                    "name it: take it off the list"
                )
    for problem in dict.fromkeys(problems):
        print(f"unused-deps: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"unused-deps: every dependency of {len(crates)} crates is used")
    return 0


if __name__ == "__main__":
    sys.exit(main())
