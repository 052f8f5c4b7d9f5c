"""Which lines of a file the HTML report lists for a finding.

The unit's check carries the extent of the definition around each finding (`Finding.extent`,
from the parse); the listing is that definition, signature to closing brace. A finding without
one (made by hand), or whose path leaves it, gets a window of lines around its path instead.
"""

from __future__ import annotations

from refcheck.findings import Extent

_CONTEXT = 3
_MAX_LINES = 400


def listed_lines(extent: Extent | None, file: str, count: int, lo: int, hi: int) -> tuple[int, int]:
    """1-based inclusive range of the `count` lines of `file` to list for path lines lo..hi."""
    lo, hi = max(lo, 1), min(hi, count)
    if extent is not None and extent.file == file and extent.first <= lo and hi <= extent.last:
        start, end = extent.first, min(extent.last, count)
        if end - start + 1 <= _MAX_LINES:
            return start, end
        return max(lo - _CONTEXT, start), min(hi + _CONTEXT, end)
    return max(lo - _CONTEXT, 1), min(hi + _CONTEXT, count)
