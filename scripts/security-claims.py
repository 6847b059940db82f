#!/usr/bin/env python3
"""SECURITY.md's claims each name the tests behind them: every test function and file a claim
cites must exist, so a claim cannot outlive its test. Run from the repository root."""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main() -> int:
    text = (ROOT / "SECURITY.md").read_text()
    claims = text.split("## Claims and the tests behind them", 1)[1].split("\n## ", 1)[0]
    sources = "\n".join(
        p.read_text(errors="replace")
        for d in ("runner", "dashboard", "action")
        for p in (ROOT / d).rglob("*.rs")
        if "target" not in p.parts
    )
    defined = set(re.findall(r"\bfn\s+([a-z0-9_]+)", sources))
    modules = set(re.findall(r"\bmod\s+([a-z0-9_]+)", sources))
    missing = []
    for row in claims.splitlines():
        if not row.startswith("| ") or row.startswith("| claim") or row.startswith("|---"):
            continue
        cells = row.strip("|").split("|")
        if len(cells) < 2:
            continue
        for token in re.findall(r"`([^`]+)`", cells[-1]):
            if "/" in token or token.endswith(".rs"):
                # A short form (`cli/input.rs`) names a file under a crate's folders.
                # Searched in the crates' folders only: never in build output.
                found = (ROOT / token).exists() or any(
                    any((ROOT / d).glob(f"**/{token}")) for d in ("runner", "dashboard", "action")
                )
                if not found:
                    missing.append(f"file {token}")
            elif re.fullmatch(r"[a-z0-9_]+(…)?", token) and "_" in token:
                name = token.rstrip("…")
                if token.endswith("…"):
                    if not any(d.startswith(name) for d in defined):
                        missing.append(f"test {token}")
                elif name not in defined and name not in modules:
                    missing.append(f"test {token}")
    if missing:
        for m in missing:
            print(f"SECURITY.md cites a {m} that does not exist", file=sys.stderr)
        print("fix: name the test that backs the claim, or drop the claim", file=sys.stderr)
        return 1
    print("every test SECURITY.md cites exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
