"""`// refcheck: ignore[RC001]` comments: silencing a finding on its primary or acquisition line.

The acquisition line counts too because that is where a reader decides a reference is meant to
live forever (a deliberate global cache), while the primary line may be a shared `return`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from refcheck.model import Finding, ToolError
from refcheck.rules import RULES
from refcheck.reporters.source import SourceCache

_COMMENT = re.compile(r"(?://|/\*)[ \t]*refcheck:[ \t]*ignore\b(?:\[([^\]\n]*)\])?")


@dataclass
class Suppression:
    file: str
    line: int
    column: int
    # None: every rule on this line.
    codes: list[str] | None
    used: set[str] = field(default_factory=set)

    def covers(self, rule: str) -> bool:
        return self.codes is None or rule in self.codes


def scan(file: str, lines: list[str]) -> dict[int, Suppression]:
    found: dict[int, Suppression] = {}
    for number, text in enumerate(lines, start=1):
        if "refcheck" not in text:
            continue
        m = _COMMENT.search(text)
        if m:
            codes = None
            if m.group(1) is not None:
                codes = [c.upper() for c in re.split(r"[\s,]+", m.group(1)) if c]
            found[number] = Suppression(file, number, m.start() + 1, codes)
    return found


class Suppressions:
    def __init__(self, sources: SourceCache) -> None:
        self.sources = sources
        self._by_file: dict[str, dict[int, Suppression]] = {}

    def _in(self, file: str) -> dict[int, Suppression]:
        if file not in self._by_file:
            self._by_file[file] = scan(file, self.sources.lines(file) or [])
        return self._by_file[file]

    def _matching(self, finding: Finding) -> Suppression | None:
        places = [finding.location] + ([finding.origin] if finding.origin else [])
        for loc in places:
            s = self._in(loc.file).get(loc.line)
            if s is not None and s.covers(finding.rule):
                return s
        return None

    def filter(self, findings: list[Finding]) -> list[Finding]:
        kept = []
        for f in findings:
            s = self._matching(f)
            if s is None:
                kept.append(f)
            else:
                s.used.add(f.rule)
        return kept

    def unused(self, files: list[str], selected: list[str]) -> list[ToolError]:
        """Warnings for suppressions in `files` that silenced nothing this run.

        A code for a rule that is not selected is not reported: it could not have been used.
        """
        out = []
        for file in files:
            for s in self._in(file).values():
                if s.codes is None:
                    if not s.used:
                        out.append(ToolError(file, "unused suppression 'refcheck: ignore'",
                                             s.line, s.column, "warning"))
                    continue
                for code in s.codes:
                    if code not in RULES:
                        out.append(ToolError(file, f"unknown rule code '{code}' in suppression",
                                             s.line, s.column, "warning"))
                    elif code not in s.used and code in selected:
                        out.append(ToolError(file, f"unused suppression for {code}",
                                             s.line, s.column, "warning"))
        return out
