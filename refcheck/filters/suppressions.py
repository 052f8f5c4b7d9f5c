"""`// refcheck: ignore[RC001]` comments and their clang-tidy-like forms.

- `ignore` silences a finding on its own line, `ignore-next-line` on the line after it
  (clang-tidy's NOLINT / NOLINTNEXTLINE);
- `ignore-begin` ... `ignore-end` silence every line between them (NOLINTBEGIN / NOLINTEND);
- `ignore-function`, on the line above a function definition or on its first line, silences the
  function up to the brace that closes its body.

A suppression covers a finding on its primary line **or** its acquisition line, because the
acquisition is where a reader decides a reference is meant to live forever (a deliberate global
cache), while the primary line may be a shared `return`. An unbalanced begin/end silences nothing
and is always reported: a region that silently runs to the end of the file would hide far more
than its author meant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from refcheck.findings import Finding, ToolError
from refcheck.rules import RULES
from refcheck.findings.source import SourceCache

_COMMENT = re.compile(
    r"(?://|/\*)[ \t]*refcheck:[ \t]*ignore(-next-line|-begin|-end|-function)?(?![\w-])"
    r"(?:\[([^\]\n]*)\])?")
# How far below an ignore-function comment the body's opening brace may be (a long signature).
_MAX_SIGNATURE_LINES = 12


class Kind(Enum):
    LINE = "ignore"
    NEXT_LINE = "ignore-next-line"
    BEGIN = "ignore-begin"
    END = "ignore-end"
    FUNCTION = "ignore-function"


@dataclass
class Suppression:
    file: str
    line: int  # where the comment is
    column: int
    # None: every rule.
    codes: list[str] | None
    kind: Kind = Kind.LINE
    # The lines it covers, inclusive (for BEGIN: up to its END; unset while unmatched).
    first: int = 0
    last: int = 0
    used: set[str] = field(default_factory=set)

    def covers(self, rule: str) -> bool:
        return self.codes is None or rule in self.codes

    @property
    def label(self) -> str:
        return f"refcheck: {self.kind.value}"


@dataclass
class Scan:
    """What one file's comments say: the suppressions in force and the malformed ones."""

    suppressions: list[Suppression] = field(default_factory=list)
    problems: list[ToolError] = field(default_factory=list)

    def at(self, line: int) -> list[Suppression]:
        return [s for s in self.suppressions if s.first <= line <= s.last]


def _comments(file: str, lines: list[str]):
    for number, text in enumerate(lines, start=1):
        if "refcheck" not in text:
            continue
        for m in _COMMENT.finditer(text):
            codes = None
            if m.group(2) is not None:
                codes = [c.upper() for c in re.split(r"[\s,]+", m.group(2)) if c]
            yield Suppression(file, number, m.start() + 1, codes, Kind("ignore" + (m.group(1) or "")))


def scan(file: str, lines: list[str]) -> Scan:
    out = Scan()
    open_regions: list[Suppression] = []
    for s in _comments(file, lines):
        if s.kind is Kind.LINE:
            s.first = s.last = s.line
        elif s.kind is Kind.NEXT_LINE:
            s.first = s.last = s.line + 1
        elif s.kind is Kind.BEGIN:
            open_regions.append(s)
            continue
        elif s.kind is Kind.END:
            match = next((b for b in reversed(open_regions) if b.codes == s.codes), None)
            if match is None:
                out.problems.append(_problem(s, "'refcheck: ignore-end' without a matching "
                                                "'refcheck: ignore-begin'" + _codes_note(s)))
                continue
            open_regions.remove(match)
            match.first, match.last = match.line, s.line
            s = match
        elif s.kind is Kind.FUNCTION:
            end = _body_end(lines, s.line, s.column)
            if end is None:
                out.problems.append(_problem(s, "'refcheck: ignore-function' is not followed by "
                                                "a function body; it silences nothing"))
                continue
            s.first, s.last = s.line, end
        out.suppressions.append(s)
    for b in open_regions:
        out.problems.append(_problem(b, "'refcheck: ignore-begin' without a matching "
                                        "'refcheck: ignore-end'" + _codes_note(b)
                                        + "; it silences nothing"))
    out.suppressions.sort(key=lambda s: (s.line, s.column))
    return out


def _codes_note(s: Suppression) -> str:
    return f" (for {', '.join(s.codes)})" if s.codes else ""


def _problem(s: Suppression, message: str) -> ToolError:
    return ToolError(s.file, message, s.line, s.column, "warning")


def _body_end(lines: list[str], line: int, column: int) -> int | None:
    """The line of the brace that closes the first `{...}` at or after the comment's line (the
    comment itself left out), skipping comments, strings and character literals; None when no
    body starts within a signature's reach, a `;` ends a declaration first, or it never closes."""
    depth = 0
    in_block = False
    for number in range(line, len(lines) + 1):
        text = lines[number - 1]
        if number == line:
            before, comment = text[:column - 1], text[column - 1:]
            close = comment.find("*/") if comment.startswith("/*") else -1
            in_block = comment.startswith("/*") and close < 0
            text = before + " " * (close + 2) + comment[close + 2:] if close >= 0 else before
        if depth == 0 and number > line + _MAX_SIGNATURE_LINES:
            return None
        i = 0
        while i < len(text):
            if in_block:
                close = text.find("*/", i)
                if close < 0:
                    break
                in_block, i = False, close + 2
                continue
            two = text[i:i + 2]
            ch = text[i]
            if two == "//":
                break
            if two == "/*":
                in_block, i = True, i + 2
                continue
            if ch in "\"'":
                i = _skip_literal(text, i)
                continue
            if ch == ";" and depth == 0:
                return None  # a declaration, not a definition
            if ch == "{":
                depth += 1
            elif ch == "}" and depth > 0:
                depth -= 1
                if depth == 0:
                    return number
            i += 1
    return None


def _skip_literal(text: str, i: int) -> int:
    quote = text[i]
    i += 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    return i


class Suppressions:
    def __init__(self, sources: SourceCache) -> None:
        self.sources = sources
        self._by_file: dict[str, Scan] = {}

    def _in(self, file: str) -> Scan:
        if file not in self._by_file:
            self._by_file[file] = scan(file, self.sources.lines(file) or [])
        return self._by_file[file]

    def _matching(self, finding: Finding) -> Suppression | None:
        places = [finding.location] + ([finding.origin] if finding.origin else [])
        for loc in places:
            for s in self._in(loc.file).at(loc.line):
                if s.covers(finding.rule):
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

    def problems(self, files: list[str]) -> list[ToolError]:
        """Warnings for malformed suppressions (unbalanced regions, a function form with no
        function) in `files`; reported on every run, since they silence nothing."""
        return [p for file in files for p in self._in(file).problems]

    def unused(self, files: list[str], selected: list[str]) -> list[ToolError]:
        """Warnings for suppressions in `files` that silenced nothing this run.

        A code for a rule that is not selected is not reported: it could not have been used.
        """
        out = []
        for file in files:
            for s in self._in(file).suppressions:
                if s.codes is None:
                    if not s.used:
                        out.append(_problem(s, f"unused suppression '{s.label}'"))
                    continue
                for code in s.codes:
                    if code not in RULES:
                        out.append(_problem(s, f"unknown rule code '{code}' in suppression"))
                    elif code not in s.used and code in selected:
                        out.append(_problem(s, f"unused suppression for {code}"
                                               + ("" if s.kind is Kind.LINE else f" ('{s.label}')")))
        return out
