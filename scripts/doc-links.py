#!/usr/bin/env python3
"""Checks the relative links of README.md and the user guide (docs/*.md): every link names a
file that exists and, with `#anchor`, a heading of that file (GitHub's anchors). Links inside
code are not links. Run from anywhere; exits 1 naming each broken link.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def prose_lines(text: str) -> list[str]:
    """The file's lines with fenced code blanked (line numbers kept)."""
    out, fence = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
            out.append("")
        else:
            out.append("" if fence else line)
    return out


def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as `-`, repeats `-N`."""
    seen: dict[str, int] = {}
    found = set()
    for line in prose_lines(path.read_text()):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def main() -> int:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    links = 0
    for f in files:
        for no, line in enumerate(prose_lines(f.read_text()), 1):
            line = re.sub(r"`[^`]*`", "", line)
            for m in re.finditer(r"\]\(([^)\s]+)\)", line):
                links += 1
                target = m.group(1)
                if re.match(r"[a-z][a-z0-9+.-]*:", target):
                    continue
                path, _, anchor = target.partition("#")
                dest = (f.parent / path).resolve() if path else f
                where = f"{f.relative_to(ROOT)}:{no}"
                if not dest.exists():
                    broken.append(f"{where}: {target}: no such file")
                elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
                    broken.append(f"{where}: {target}: no such heading")
    for b in broken:
        print(b, file=sys.stderr)
    if broken:
        print("fix: point the link at an existing file and heading", file=sys.stderr)
        return 1
    print(f"README.md and docs/: {links} links, every relative one resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
