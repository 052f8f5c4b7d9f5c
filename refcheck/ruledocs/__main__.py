"""Copy the rule docs to docs/rules/: `python -m refcheck.ruledocs [--check] [DIR]`.

The page beside each rule file (refcheck/rules/RCxxx.md) is the source (the SARIF reporter and `refcheck rule` read it from the
installed package); docs/rules/ exists so that the pages render on the repository host and the
helpUri links resolve. --check exits 1 when the copies differ, for CI and tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

from refcheck.rules import RULES

PACKAGE_DIR = Path(__file__).resolve().parent
# In a source checkout: refcheck/ruledocs -> <repo>/docs/rules.
DEFAULT_TARGET = PACKAGE_DIR.parent.parent / "docs" / "rules"


def stale(target: Path) -> list[str]:
    """Rule codes whose copy under `target` is missing or differs from the package text."""
    out = []
    for code, rule in RULES.items():
        copy = target / f"{code}.md"
        if not copy.is_file() or copy.read_text("utf-8") != rule.doc:
            out.append(code)
    return out


def write(target: Path) -> list[str]:
    target.mkdir(parents=True, exist_ok=True)
    changed = stale(target)
    for code in changed:
        (target / f"{code}.md").write_text(RULES[code].doc, "utf-8")
    return changed


def main(argv: list[str]) -> int:
    check = "--check" in argv
    rest = [a for a in argv if a != "--check"]
    if len(rest) > 1 or any(a.startswith("-") for a in rest):
        print("usage: python -m refcheck.ruledocs [--check] [DIR]", file=sys.stderr)
        return 2
    target = Path(rest[0]) if rest else DEFAULT_TARGET
    if not rest and not target.parent.is_dir():
        print(f"error: {target.parent}: no docs/ directory here; name the target DIR",
              file=sys.stderr)
        return 2
    if check:
        codes = stale(target)
        for code in codes:
            print(f"{target / (code + '.md')}: differs from refcheck/rules/{code}.md")
        return 1 if codes else 0
    for code in write(target):
        print(f"wrote {target / (code + '.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
