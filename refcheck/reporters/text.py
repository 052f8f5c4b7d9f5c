"""Compiler-style text: one `error:` line per finding, one `note:` line per step of its path,
each followed (as clang and ruff do) by the source line and a caret under the column.

Editors and CI log parsers already understand `file:line:col: severity: message`, so findings
become clickable without any refcheck-specific tooling; the snippet lines start with spaces and
a `|` gutter, so those parsers pass over them.

Colour is plain ANSI SGR written here rather than through a terminal library: the report must be
the same bytes for the same findings (byte-identical across -j and cache states), and a library
console would wrap at the terminal width and read `[RC001 leak]` as markup. Every piece of text
from outside (messages, paths, source lines) is made printable *before* colour codes are added,
so a file cannot smuggle its own escape sequences into the terminal.
"""

from __future__ import annotations

from refcheck.findings import Finding, Location, RunResult, ToolError
from refcheck.findings.source import SourceCache

# clang's colours: bold location and message, red errors, magenta warnings, cyan notes,
# green caret.
_BOLD, _RED, _MAGENTA, _CYAN, _GREEN, _RESET = "1", "1;31", "1;35", "1;36", "1;32", "0"
_SEVERITY_STYLE = {"error": _RED, "warning": _MAGENTA, "note": _CYAN}
# A snippet line longer than this is cut around the caret: a minified or generated line would
# otherwise flood the terminal.
_MAX_SNIPPET = 160


def render(result: RunResult, color: bool = False, show_source: bool = True) -> str:
    out = _Writer(color, SourceCache(result.root) if show_source else None)
    for f in result.findings:
        _finding(out, f)
    for e in result.errors:
        _error(out, e)
    return "".join(line + "\n" for line in out.lines)


class _Writer:
    def __init__(self, color: bool, sources: SourceCache | None) -> None:
        self.color = color
        self.sources = sources
        self.lines: list[str] = []

    def style(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[{_RESET}m" if self.color and text else text

    def header(self, where: str, severity: str, message: str, tag: str = "") -> None:
        text = (self.style(_BOLD, printable(where) + ":") + " "
                + self.style(_SEVERITY_STYLE[severity], severity + ":") + " "
                + (self.style(_BOLD, printable(message, True)) if severity != "note"
                   else printable(message, True)))
        if tag:
            text += " " + printable(tag)
        self.lines.append(text)

    def snippet(self, loc: Location) -> None:
        if self.sources is None or loc.line <= 0:
            return
        raw = self.sources.line(loc.file, loc.line)
        if raw is None:
            return
        shown, caret = _display(raw, loc.column)
        gutter = str(loc.line).rjust(5)
        self.lines.append(f"{gutter} | {shown}".rstrip())
        if caret is not None:
            self.lines.append(" " * len(gutter) + " | " + caret + self.style(_GREEN, "^"))


def _finding(out: _Writer, f: Finding) -> None:
    out.header(_where(f.location), "error", f.message, f"[{f.rule} {f.name}]")
    out.snippet(f.location)
    shown = (f.location.file, f.location.line)
    for step in f.path:
        out.header(_where(step.location), "note", step.message)
        # A note on the line just shown would repeat it; elsewhere the line is what a reader
        # needs to follow the path without opening the file.
        here = (step.location.file, step.location.line)
        if here != shown:
            out.snippet(step.location)
            shown = here


def _error(out: _Writer, e: ToolError) -> None:
    severity = "warning" if e.severity == "warning" else "error"
    where = f"{e.file}:{e.line}:{max(e.column, 1)}" if e.line > 0 else e.file
    if e.line > 0:
        out.header(where, severity, e.message, "[tool]")
        out.snippet(Location(e.file, e.line, max(e.column, 1)))
    else:
        out.header(e.file, severity, e.message, "[tool]")
    if e.hint:
        # A note line of its own (file: note: ...), so log parsers pair it with the error above.
        out.header(where, "note", f"hint: {e.hint}")


def _where(loc: Location) -> str:
    return f"{loc.file}:{loc.line}:{loc.column}"


def printable(text: str, keep_newlines: bool = False) -> str:
    """Text with control characters (newlines included, so that a name cannot forge a
    diagnostic line of its own), the bidirectional overrides of "Trojan source" and undecodable
    bytes of a file name shown as escapes, so that nothing read from a source file or a path
    can drive the terminal or the log parser. `keep_newlines`: for refcheck's own multi-line
    tool messages, which name no file at a line start."""
    if text.isprintable():
        return text
    return "".join("\n" if c == "\n" and keep_newlines else _escape_char(c) for c in text)


def _escape_char(c: str) -> str:
    if c.isprintable() or c == " ":
        return c
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a non-UTF-8 file name (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _display(raw: str, column: int) -> tuple[str, str | None]:
    """The source line as shown, and the padding that puts a caret under `column`.

    libclang columns are 1-based UTF-8 byte offsets; the padding copies tabs and counts the
    characters (escapes included) before that byte, so the caret lands under the right
    character however the line is encoded or indented.
    """
    line = raw.rstrip()
    if column <= 0:
        return _show(line), None
    prefix = raw.encode("utf-8", errors="surrogatepass")[:column - 1].decode("utf-8", errors="ignore")
    shown_prefix = _show(prefix)
    shown = _show(line)
    start = 0
    if len(shown) > _MAX_SNIPPET:
        start = max(0, min(len(shown_prefix) - _MAX_SNIPPET // 2, len(shown) - _MAX_SNIPPET))
        shown = ("..." if start else "") + shown[start:start + _MAX_SNIPPET] + (
            "..." if start + _MAX_SNIPPET < len(_show(line)) else "")
        shown_prefix = ("..." if start else "") + shown_prefix[start:]
    padding = "".join("\t" if c == "\t" else " " for c in shown_prefix)
    return shown, padding


def _show(text: str) -> str:
    return "".join(c if c == "\t" else _escape_char(c) for c in text)
