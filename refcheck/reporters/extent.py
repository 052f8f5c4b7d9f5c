"""Which lines make up the function around a finding, for the HTML listing.

Findings carry locations, not function extents, so we recover the extent from the text: a brace
count that skips comments, strings, character literals and preprocessor lines, then the body
that encloses every line of interest, widened upward over its signature. It is a heuristic, so
every failure falls back to a window of lines around the path instead of a wrong listing.
"""

from __future__ import annotations

import re

# Braces of these blocks do not start a function body; code inside them sits one level deeper.
_SCOPE_BLOCK = re.compile(r'^\s*(?:extern\s+"C"|namespace\b)')
_CONTEXT = 3
_MAX_LINES = 400
_MAX_SIGNATURE = 8


class FileExtents:
    """Function extents in one file; the brace scan is done once however many findings it has."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self._braces: tuple[list[int], list[int]] | None = None

    def extent(self, lo: int, hi: int) -> tuple[int, int]:
        if self._braces is None:
            self._braces = _top_level_braces(self.lines)
        return _extent(self.lines, self._braces, lo, hi)


def function_extent(lines: list[str], lo: int, hi: int) -> tuple[int, int]:
    """1-based inclusive line range of the function holding lines lo..hi (1-based)."""
    return FileExtents(lines).extent(lo, hi)


def _extent(lines: list[str], braces: tuple[list[int], list[int]], lo: int,
            hi: int) -> tuple[int, int]:
    lo, hi = max(lo, 1), min(hi, len(lines))
    found = _enclosing_body(lines, braces, lo, hi)
    if found is None:
        return max(lo - _CONTEXT, 1), min(hi + _CONTEXT, len(lines))
    start, end = found
    if end - start + 1 > _MAX_LINES:
        return max(lo - _CONTEXT, start), min(hi + _CONTEXT, end)
    return start, end


def _enclosing_body(lines: list[str], braces: tuple[list[int], list[int]], lo: int,
                    hi: int) -> tuple[int, int] | None:
    # Bodies do not nest at the top level, so the last one opened by line hi holds it, if any.
    # Line lo may lie above the body: a path that starts at a parameter starts in the signature.
    opens, closes = braces
    body = max((b for b in opens if b <= hi), default=None)
    if body is None:
        return None
    end = min((e for e in closes if e >= body), default=None)
    if end is None or end < hi:
        return None
    start = _signature_start(lines, body, closes)
    return (start, end) if start <= lo else None


# The only tokens that matter for brace counting; everything else is skipped by the regex engine.
_TOKEN = re.compile(r"""\\.|//|/\*|\*/|["'{}]""")


def _top_level_braces(lines: list[str]) -> tuple[list[int], list[int]]:
    """Lines (1-based) where a top-level `{` opens, and where the matching `}` closes."""
    opens: list[int] = []
    closes: list[int] = []
    depth = 0
    in_comment = False
    for number, line in enumerate(lines, 1):
        if not in_comment and (line.lstrip().startswith("#") or _SCOPE_BLOCK.match(line)):
            continue
        quote = None  # string and character literals end with their line
        for m in _TOKEN.finditer(line):
            tok = m.group()
            if in_comment:
                in_comment = tok != "*/"
            elif quote:
                if tok == quote:
                    quote = None
            elif tok == "//":
                break
            elif tok == "/*":
                in_comment = True
            elif tok in ("\"", "'"):
                quote = tok
            elif tok == "{":
                if depth == 0:
                    opens.append(number)
                depth += 1
            elif tok == "}":
                # An unmatched `}` closes an extern "C" or namespace block we did not count.
                depth = max(depth - 1, 0)
                if depth == 0 and opens and (not closes or closes[-1] < opens[-1]):
                    closes.append(number)
    return opens, closes


def _signature_start(lines: list[str], body: int, closes: list[int]) -> int:
    """Walk up from the body's `{` line over the declarator lines above it.

    A parameter list split over lines keeps us going until its `(` is found; after that, any
    line that ends a statement, a block or a comment, or is blank, ends the signature.
    """
    previous_end = max((e for e in closes if e < body), default=0)
    unclosed = _parens(lines[body - 1].split("{", 1)[0])
    start = body
    while start - 1 > previous_end and body - start < _MAX_SIGNATURE:
        above = lines[start - 2].strip()
        if unclosed <= 0 and (not above or above.endswith((";", "{", "}", "*/"))
                              or above.startswith(("#", "//", "/*", "*/"))):
            break
        unclosed += _parens(above)
        start -= 1
    return start


def _parens(text: str) -> int:
    return text.count(")") - text.count("(")
