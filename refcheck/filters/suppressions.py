"""`// refcheck: ignore[RC001]` comments and their clang-tidy-like forms.

- `ignore` silences a finding on its own line, `ignore-next-line` on the line after it
  (clang-tidy's NOLINT / NOLINTNEXTLINE);
- `ignore-begin` ... `ignore-end` silence every line between them (NOLINTBEGIN / NOLINTEND);
- `ignore-function`, on the line above a function definition or on its first line (anywhere from
  its first token to its body's `{`), silences the function up to the brace that closes its body.

A suppression covers a finding on its primary line **or** its acquisition line, because the
acquisition is where a reader decides a reference is meant to live forever (a deliberate global
cache), while the primary line may be a shared `return`. An unbalanced begin/end silences nothing
and is always reported: a region that silently runs to the end of the file would hide far more
than its author meant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from refcheck.findings import Comment, Extent, Finding, Location, ToolError
from refcheck.rules import RULES

_COMMENT = re.compile(
    r"(?://|/\*)[ \t]*refcheck:[ \t]*ignore(-next-line|-begin|-end|-function)?(?![\w-])"
    r"(?:\[([^\]\n]*)\])?")


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


def _comments(file: str, comments: list[Comment]):
    """The suppressions these comment tokens of `file` spell (a block comment may hold several)."""
    for c in comments:
        for m in _COMMENT.finditer(c.text):
            codes = None
            if m.group(2) is not None:
                codes = [x.upper() for x in re.split(r"[\s,]+", m.group(2)) if x]
            before = c.text[:m.start()]
            newlines = before.count("\n")
            line = c.location.line + newlines
            column = c.location.column + m.start() if not newlines else m.start() - before.rfind("\n")
            yield Suppression(file, line, column, codes, Kind("ignore" + (m.group(1) or "")))


def scan(file: str, comments: list[Comment], definitions: list[Extent]) -> Scan:
    """The suppressions of `file`, from its comments (in source order) and the extents of the
    definitions in it (for `ignore-function`)."""
    out = Scan()
    open_regions: list[Suppression] = []
    for s in _comments(file, comments):
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
            end = _body_end(definitions, s.line)
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


def _body_end(definitions: list[Extent], line: int) -> int | None:
    """The last line of the definition that starts on the line after the comment's, or whose
    signature or body's first line holds it; None when there is none (a declaration follows)."""
    for e in definitions:
        if e.first == line + 1 or e.first <= line <= e.body:
            return e.last
    return None


class Suppressions:
    """The suppressions of a run, from the comments and definition extents its units' checks
    carried (`UnitResult.comments`, `.definitions`): the parse lexed them, nothing is re-read."""

    def __init__(self, comments: Iterable[Comment] = (), definitions: Iterable[Extent] = ()) -> None:
        # Several units read the same header: each of its comments counts once.
        self._comments: dict[str, dict[Location, Comment]] = {}
        for c in comments:
            self._comments.setdefault(c.location.file, {})[c.location] = c
        self._definitions: dict[str, set[Extent]] = {}
        for e in definitions:
            self._definitions.setdefault(e.file, set()).add(e)
        self._by_file: dict[str, Scan] = {}

    def _in(self, file: str) -> Scan:
        if file not in self._by_file:
            comments = sorted(self._comments.get(file, {}).values(), key=lambda c: c.location)
            definitions = sorted(self._definitions.get(file, ()), key=lambda e: (e.first, e.body))
            self._by_file[file] = scan(file, comments, definitions)
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
