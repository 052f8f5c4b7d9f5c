"""Which rules are reported: --select/--ignore, configuration and per-path ignores.

Selection happens after analysis, so the cache never depends on it and changing it is free.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from refcheck.findings import Finding
from refcheck.rules import RULES


def expand(codes: list[str]) -> list[str]:
    """Rule codes from codes or code prefixes (ruff style: "RC00" is RC001..RC009).

    Raises ValueError naming the first code that matches no rule.
    """
    out: list[str] = []
    for code in codes:
        c = code.strip().upper()
        if c == "ALL":
            matched = list(RULES)
        else:
            matched = [r for r in RULES if r.startswith(c)] if c else []
        if not matched:
            raise ValueError(f"unknown rule code {code!r} (known: {', '.join(RULES)})")
        out.extend(m for m in matched if m not in out)
    return out


def path_matches(relpath: str, pattern: str) -> bool:
    """A glob against a root-relative posix path, the file or any of its parent directories.

    A pattern without "/" matches any single path component, as in .gitignore: "third_party"
    excludes every file under any third_party directory.
    """
    if fnmatchcase(relpath, pattern):
        return True
    parts = relpath.split("/")
    for i in range(1, len(parts)):
        if fnmatchcase("/".join(parts[:i]), pattern) or fnmatchcase("/".join(parts[:i]) + "/", pattern):
            return True
    if "/" not in pattern.rstrip("/"):
        return any(fnmatchcase(p, pattern.rstrip("/")) for p in parts)
    return False


@dataclass
class Selection:
    selected: list[str] = field(default_factory=lambda: list(RULES))
    # glob -> codes never reported in files matching it
    per_path_ignores: dict[str, list[str]] = field(default_factory=dict)

    def allows(self, finding: Finding) -> bool:
        if finding.rule not in self.selected:
            return False
        for pattern, codes in self.per_path_ignores.items():
            if finding.rule in codes and path_matches(finding.location.file, pattern):
                return False
        return True

    def apply(self, findings: list[Finding]) -> list[Finding]:
        return [f for f in findings if self.allows(f)]


def build(select: list[str] | None, ignore: list[str], per_path_ignores: dict[str, list[str]],
          default_ignore: list[str] = (), extend: list[str] = ()) -> Selection:
    """Explicit select wins over a preset's default ignores; `extend` (extend-select) adds to
    what was chosen; ignore always removes."""
    chosen = expand(select) if select else [c for c in RULES if c not in default_ignore]
    if extend:
        wanted = set(chosen) | set(expand(list(extend)))
        chosen = [c for c in RULES if c in wanted]
    removed = set(expand(ignore)) if ignore else set()
    return Selection([c for c in chosen if c not in removed],
                     {p: expand(c) for p, c in per_path_ignores.items()})
