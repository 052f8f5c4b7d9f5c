"""Source text under the project root, as the SARIF fingerprints and the HTML report need it.

Reporters run after the analysis, perhaps on another machine than the one that found the
defects (a result loaded from a cache), so a file may be gone or changed: every helper here
degrades to "no text" instead of failing the report.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field


# Bytes that stand in for a file's contents (absolute path -> bytes): `refcheck check -` checks
# stdin under the name --stdin-filename gives, and every snippet, suppression comment and
# fingerprint must come from what was checked, not from the (older) file of that name on disk.
_STANDINS: dict[str, bytes] = {}


@contextmanager
def standing_in(path: str, data: bytes):
    """Within the block, `data` is the contents of `path` for every reader of this module."""
    key = os.path.abspath(path)
    _STANDINS[key] = data
    try:
        yield
    finally:
        _STANDINS.pop(key, None)


def standin(path: str) -> bytes | None:
    return _STANDINS.get(os.path.abspath(path)) if _STANDINS else None


@dataclass
class SourceCache:
    root: str
    _lines: dict[str, list[str] | None] = field(default_factory=dict)

    def lines(self, path: str) -> list[str] | None:
        """The file's lines without line endings, or None when it cannot be read as text."""
        if path not in self._lines:
            self._lines[path] = _read(os.path.join(self.root, path))
        return self._lines[path]

    def line(self, path: str, number: int) -> str | None:
        lines = self.lines(path)
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]


# Line ends as clang counts them (SourceManager's line table): \n, \r, and \r\n or \n\r as one.
# str.splitlines also breaks at form feeds, vertical tabs and Unicode separators: in a GNU-style
# file with ^L page breaks every later line would be read one off what a location names.
_LINE_END = re.compile(r"\r\n|\n\r|\r|\n")


def text_lines(data: bytes) -> list[str] | None:
    """A file's lines as clang numbers them (no line endings), or None for binary bytes. Odd
    bytes become replacement characters rather than a failure: one in a comment should not cost
    the whole listing."""
    if b"\0" in data:
        return None
    lines = _LINE_END.split(data.decode("utf-8", errors="replace"))
    if lines[-1] == "":
        lines.pop()
    return lines


def _read(path: str) -> list[str] | None:
    from refcheck.support import safeio

    data = standin(path)
    if data is not None:
        return text_lines(data)
    try:
        # A location can name any file (a header that is now a FIFO, say): read only regular
        # files, bounded, so that showing a line can never block or flood the report.
        data = safeio.read_regular(path, 64 << 20)
    except safeio.UnreadableFile:
        return None
    return text_lines(data)


_COMMENT = re.compile(r"//.*?$|/\*.*?\*/", re.S | re.M)
_SPACE = re.compile(r"\s+")
# A statement rarely spans more lines than this; beyond it we would be hashing unrelated code.
_MAX_STATEMENT_LINES = 6


def statement_text(lines: list[str], line: int, column: int) -> str | None:
    """The statement starting at (line, column), comments and whitespace removed.

    Whitespace and comments are dropped so that reformatting a statement or adding a
    `// refcheck: ignore` comment next to it does not change what it hashes to.
    """
    if not 1 <= line <= len(lines):
        return None
    first = lines[line - 1]
    start = max(column - 1, 0) if column <= len(first) + 1 else 0
    chunk = "\n".join([first[start:]] + lines[line:line - 1 + _MAX_STATEMENT_LINES])
    chunk = _COMMENT.sub(" ", chunk)
    end = _statement_end(chunk)
    return _SPACE.sub("", chunk[:end])


def _statement_end(text: str) -> int:
    """Index just past the first `;`, `{` or `}` outside parentheses (the end of a statement)."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(depth - 1, 0)
        elif ch in ";{}" and depth == 0:
            return i + 1
    return len(text)
