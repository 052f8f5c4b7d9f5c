"""What the stages after the analysis need from the source, taken from the parse itself.

Suppression comments (`// refcheck: ignore[...]`) are clang's comment tokens, definitions' extents
are their cursors' extents, and a finding's statement text is read from the bytes libclang parsed
(`unit.parsed_contents`), so that the parent process never re-scans C text by hand and stdin's
stand-in, or a file edited since, cannot differ from what was checked.
"""

from __future__ import annotations

from refcheck.findings import Comment, Extent, Location
from refcheck.findings.source import statement_text, text_lines

# Comments are looked for only in files whose bytes mention this at all: lexing a file in Python
# costs a token object per token, and nearly no file holds a suppression.
_MARK = b"refcheck"


def refcheck_comments(parsed) -> tuple[Comment, ...]:
    """Every comment token mentioning refcheck in the unit's own files (not the system's)."""
    import clang.cindex as ci

    from refcheck.frontend.unit import in_system_dir, parsed_contents

    out: list[Comment] = []
    for name in parsed.includes:
        if in_system_dir(name):
            continue
        got = parsed_contents(parsed.tu, [name])
        data = got.get(name) if got else None
        if not data or _MARK not in data:
            continue
        f = ci.File.from_name(parsed.tu, name)
        extent = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(parsed.tu, f, 0),
                                               ci.SourceLocation.from_offset(parsed.tu, f, len(data)))
        for tok in parsed.tu.get_tokens(extent=extent):
            if tok.kind != ci.TokenKind.COMMENT:
                continue
            try:
                text = tok.spelling
            except UnicodeDecodeError:  # bytes that are no UTF-8 (the fuzz tests): no directive
                continue
            if "refcheck" in text:
                loc = tok.location
                out.append(Comment(Location(name, loc.line, loc.column), text))
    return tuple(out)


def definition_extents(parsed, files: set[str]) -> tuple[Extent, ...]:
    """The extents of the unit's definitions that start in `files`, in source order."""
    if not files:  # no suppression comment in the unit (nearly always): nothing to cover
        return ()
    found = (extent_of(fn) for fn in parsed.functions)
    return tuple(e for e in found if e is not None and e.file in files)


def extent_of(fn) -> Extent | None:
    """The definition's extent, for the HTML listing of its findings."""
    start, end = fn.extent.start, fn.extent.end
    if start.file is None or end.file is None or start.file.name != end.file.name:
        return None
    from refcheck.frontend import binding
    from refcheck.frontend.clangutil import K

    body = binding.last_child(fn)
    opens = body.extent.start.line if body is not None and binding.kind_of(body) in (
        K.COMPOUND_STMT, K.CXX_TRY_STMT) else start.line
    return Extent(start.file.name, start.line, opens, end.line)


class SourceLines:
    """The lines of the unit's files as libclang parsed them, decoded once per file."""

    def __init__(self, tu) -> None:
        self.tu = tu
        self._lines: dict[str, list[str] | None] = {}

    def lines(self, name: str) -> list[str] | None:
        if name not in self._lines:
            from refcheck.frontend.unit import parsed_contents

            got = parsed_contents(self.tu, [name])
            data = got.get(name) if got else None
            self._lines[name] = None if data is None else text_lines(data)
        return self._lines[name]

    def statement(self, loc: Location | None) -> str | None:
        if loc is None:
            return ""
        lines = self.lines(loc.file)
        return None if lines is None else statement_text(lines, loc.line, loc.column)
