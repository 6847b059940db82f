#!/usr/bin/env python3
"""CI's RUSTC_WORKSPACE_WRAPPER: clippy on each workspace crate as it is built, then rustdoc on
that crate's library or binary with the same dependencies (`-D warnings`, as
`RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps` checks it).

Why: `cargo doc` checks every dependency again in check mode before documenting (about 100 s of
a 2-core CI), although the build has just compiled them; rustdoc reads the build's `.rlib`s as
well as check-mode `.rmeta`s. Here the docs are checked from the build's own `--extern`s.

Usage (what .ci/run sets): RUSTC_WORKSPACE_WRAPPER=scripts/ci-rustc.py with CLIPPY_DRIVER naming
clippy-driver (and CLIPPY_ARGS as for `cargo clippy`). Cargo calls it as `ci-rustc.py RUSTC ARGS…`.
A failure of clippy, of rustdoc or of this translation fails that crate's build, naming it.
"""

import os
import shutil
import subprocess
import sys
import tempfile

# rustc options (taking a value) that rustdoc does without: dropped, with their value. Without
# `--error-format` and `--json`, rustdoc prints human-readable diagnostics, which Cargo passes
# through as they are (a line that is not JSON).
DROPPED_WITH_VALUE = {"--emit", "--out-dir", "--error-format", "--json"}
# Of the -C options, rustdoc takes the crate's metadata hash (as `cargo doc` passes it); the
# rest are code generation.
KEPT_CODEGEN = ("metadata=",)


def rustdoc_args(args):
    """The rustdoc command line for a rustc one, or None when it builds nothing documented."""
    if "--test" in args or "-" in args:
        return None
    crate_name = args[args.index("--crate-name") + 1] if "--crate-name" in args else None
    types = [args[i + 1] for i, a in enumerate(args) if a == "--crate-type"]
    if crate_name is None or crate_name.startswith("build_script_") or not types:
        return None
    if not set(types) <= {"lib", "rlib", "bin"}:
        return None
    externs = {args[i + 1].split("=", 1)[0] for i, a in enumerate(args) if a == "--extern"}
    if "bin" in types and crate_name in externs:
        # A binary named like its package's library: `cargo doc` documents the library only.
        return None
    out = []
    i = 0
    while i < len(args):
        a = args[i]
        name = a.split("=", 1)[0]
        if name in DROPPED_WITH_VALUE:
            i += 1 if "=" in a else 2
            continue
        if a == "-C":
            if args[i + 1].startswith(KEPT_CODEGEN):
                out += [a, args[i + 1]]
            i += 2
            continue
        if a.startswith("-C"):
            if a[2:].startswith(KEPT_CODEGEN):
                out.append(a)
            i += 1
            continue
        out.append(a)
        i += 1
    if "bin" in types:
        # What `cargo doc` does for a binary: its private items are its documentation.
        out.append("--document-private-items")
    return out, crate_name


def main():
    rustc, args = sys.argv[1], sys.argv[2:]
    driver = os.environ.get("CLIPPY_DRIVER")
    if not driver:
        sys.exit("ci-rustc.py: CLIPPY_DRIVER is not set (the path of clippy-driver); see .ci/run")
    built = subprocess.run([driver, rustc, *args], close_fds=False)
    if built.returncode != 0:
        sys.exit(built.returncode)
    doc = rustdoc_args(args)
    if doc is None:
        return
    doc_args, crate_name = doc
    rustdoc = os.path.join(os.path.dirname(rustc), "rustdoc")
    if not os.path.exists(rustdoc):
        rustdoc = shutil.which("rustdoc") or "rustdoc"
    with tempfile.TemporaryDirectory(prefix="ci-rustdoc-") as out_dir:
        documented = subprocess.run(
            [rustdoc, *doc_args, "-o", out_dir, "-D", "warnings"], close_fds=False
        )
    if documented.returncode != 0:
        print(f"ci-rustc.py: rustdoc -D warnings failed on {crate_name} (as `cargo doc` would)",
              file=sys.stderr)
        sys.exit(documented.returncode)


if __name__ == "__main__":
    main()
