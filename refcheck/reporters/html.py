"""A one-page report for a person at a browser, in the manner of scan-build.

An index (counts by rule and by file, a link per finding), then each finding with its function's
source, the primary line highlighted and the path's steps as numbered callouts under the lines
they belong to. Self-contained: inline CSS, no scripts, nothing fetched, so the file can be
attached to a CI run and opened anywhere. Everything that comes from the code or the analyzer is
escaped.
"""

from __future__ import annotations

import re
from collections import Counter
from html import escape

from refcheck.findings import Finding, Location, RunResult, Step
from refcheck.reporters.extent import listed_lines
from refcheck.findings.source import SourceCache
from refcheck.rules import RULES

_TAB = 8
# Messages quote code as clang does ('t') or as Markdown does (`t`); the quoted text must not
# touch a letter, so that "function's" is not taken for a quote.
_QUOTED = re.compile(r"`([^`\n]+)`|(?<!\w)'([^'\s]+)'(?!\w)")


# What comes before a character literal in code (`c == 'x'`, `f(a, 'x')`), never before a name
# quoted in prose (`released 't'`, `(loaded from 'p')`).
_CODE_BEFORE = frozenset("=<>!&|+-*/%^?:,([")


def message(text: str) -> str:
    """An analyzer message, HTML-escaped, with its `quoted` code set in the code font.

    Branch notes quote the condition's source (`taking the true branch (c == 'x')`): there a
    '...' is a character literal, and its quotes are part of the code, not quoting marks."""
    out, done = [], 0
    for m in _QUOTED.finditer(text):
        out.append(escape(text[done:m.start()]))
        if m.group(2) is not None and _char_literal(text, m.start()):
            out.append(escape(m.group(0)))
        else:
            out.append(f"<code>{escape(m.group(1) or m.group(2))}</code>")
        done = m.end()
    out.append(escape(text[done:]))
    return "".join(out)


def _char_literal(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return bool(before) and before[-1] in _CODE_BEFORE


_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px;
       padding: 16px 24px; color: #1f2328; background: #fff; }
h1 { font-size: 22px; margin: 8px 0 4px; }
h2 { font-size: 16px; font-weight: 600; margin: 0 0 6px; }
h2 code { font-size: 15px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
a { color: #0550ae; text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre, .src { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
                  font-size: 13px; }
.summary { color: #57606a; margin: 0 0 12px; }
.index { display: flex; gap: 32px; flex-wrap: wrap; }
table.counts { border-collapse: collapse; }
table.counts td, table.counts th { padding: 2px 10px 2px 0; text-align: left;
                                   vertical-align: top; }
table.counts td.n { text-align: right; font-variant-numeric: tabular-nums; }
ol.list { padding-left: 28px; }
ol.list li { margin: 2px 0; }
.rule { display: inline-block; padding: 0 6px; border-radius: 4px; background: #ffebe9;
        color: #a40e26; font-weight: 600; font-size: 12px; white-space: nowrap; }
.finding { border: 1px solid #d0d7de; border-radius: 6px; margin: 22px 0; padding: 12px 14px; }
.finding .where { color: #57606a; font-size: 13px; margin: 0 0 8px; }
.finding .msg { font-weight: 600; margin: 4px 0 8px; }
.top { float: right; font-size: 12px; }
table.src { border-collapse: collapse; width: 100%; background: #f6f8fa; border-radius: 4px; }
table.src td { padding: 0; vertical-align: top; }
table.src td.ln { color: #8c959f; text-align: right; padding: 0 10px 0 8px; user-select: none;
                  width: 1%; white-space: nowrap; }
table.src td.code { white-space: pre; padding-right: 8px; }
tr.primary td { background: #ffd8d3; }
tr.primary td.ln { color: #a40e26; font-weight: 700; }
tr.onpath td.code { background: #fff8c5; }
tr.callout td { padding: 1px 0 3px; }
.note { display: inline-block; white-space: normal; max-width: 760px; padding: 2px 8px;
        border-radius: 4px; border: 1px solid #d4a72c; background: #fff8c5;
        font-family: system-ui, sans-serif; font-size: 13px; }
.note .num { display: inline-block; min-width: 18px; margin-right: 6px; border-radius: 9px;
             background: #9a6700; color: #fff; text-align: center; font-weight: 700;
             font-size: 12px; }
.note.first { border-color: #54aeff; background: #ddf4ff; }
.note.first .num { background: #0969da; }
.note.last { border-color: #ff8182; background: #ffebe9; }
.note.last .num { background: #cf222e; }
.nosrc { color: #57606a; font-style: italic; }
.errors li { color: #a40e26; }
.errors li.warning { color: #9a6700; }
.errors .hint { color: #57606a; }
"""


def render(result: RunResult) -> str:
    listings = _Listings(result.root)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>refcheck report</title>",
        f"<style>{_CSS}</style></head><body>",
        '<h1 id="top">refcheck report</h1>',
        _summary(result),
        _index(result),
        _errors(result),
    ]
    parts.extend(_finding(i, f, listings) for i, f in enumerate(result.findings, 1))
    parts.append(_rule_pages(result))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _summary(result: RunResult) -> str:
    files_with = len({f.location.file for f in result.findings})
    # Warnings (a directory without sources, an unused suppression) do not fail a run, so they
    # are not tool errors here either: the same counts as the console's summary line.
    errors = sum(1 for e in result.errors if e.severity == "error")
    warnings = len(result.errors) - errors
    tail = f", {_plural(warnings, 'warning')}" if warnings else ""
    text = (f"{_plural(len(result.findings), 'finding')} in {_plural(files_with, 'file')}; "
            f"{_plural(errors, 'tool error')}{tail}. "
            f"Checked {_plural(result.files, 'file')}, "
            f"{_plural(result.functions, 'function')}.")
    return f'<p class="summary">{escape(text)}</p>'


def _index(result: RunResult) -> str:
    if not result.findings:
        return "<p>No findings.</p>"
    by_rule = Counter(f.rule for f in result.findings)
    rule_rows = []
    for code, n in sorted(by_rule.items()):
        rule = RULES.get(code)
        name = rule.name if rule else next(f.name for f in result.findings if f.rule == code)
        # The rule's page is in this report (_rule_pages), so the link works offline.
        link = f'<a href="#rule-{escape(code)}">{escape(code)}</a>' if rule else escape(code)
        rule_rows.append(f'<tr><td>{link}</td><td>{escape(name)}</td><td class="n">{n}</td></tr>')
    first: dict[str, int] = {}
    by_file: Counter[str] = Counter()
    for i, f in enumerate(result.findings, 1):
        first.setdefault(f.location.file, i)
        by_file[f.location.file] += 1
    file_rows = [
        f'<tr><td><a href="#f{first[path]}">{escape(path)}</a></td><td class="n">{n}</td></tr>'
        for path, n in sorted(by_file.items())
    ]
    items = [
        f'<li><a href="#f{i}">{escape(_where(f.location))}</a> '
        f'<span class="rule">{escape(f.rule)} {escape(f.name)}</span> '
        f'{message(f.message)}</li>'
        for i, f in enumerate(result.findings, 1)
    ]
    return "\n".join([
        '<div class="index">',
        '<div><h3>By rule</h3><table class="counts">', *rule_rows, "</table></div>",
        '<div><h3>By file</h3><table class="counts">', *file_rows, "</table></div>",
        "</div>",
        '<h3>Findings</h3><ol class="list">', *items, "</ol>",
    ])


def _rule_pages(result: RunResult) -> str:
    """The documentation of each rule the report cites, as shipped with the package."""
    pages = []
    for code in sorted({f.rule for f in result.findings}):
        rule = RULES.get(code)
        if rule is None:
            continue
        try:
            doc = rule.doc
        except OSError:
            continue
        pages.append(f'<section class="rule-doc" id="rule-{escape(code)}"><h2>{escape(code)} '
                     f'{escape(rule.name)}</h2><pre>{escape(doc)}</pre></section>')
    return "\n".join(['<h3>Rules</h3>', *pages]) if pages else ""


def _errors(result: RunResult) -> str:
    if not result.errors:
        return ""
    items = []
    for e in result.errors:
        where = e.file + (f":{e.line}" if e.line > 0 else "")
        cls = ' class="warning"' if e.severity != "error" else ""
        # The hint beside its error, as the text reporter's `note: hint:` line: the one flag or
        # configuration line most likely to fix it.
        hint = f'<br><span class="hint">hint: {escape(e.hint)}</span>' if e.hint else ""
        items.append(f"<li{cls}><code>{escape(where)}</code>: {escape(e.severity)}: "
                     f"{message(e.message)}{hint}</li>")
    title = ("Tool errors" if all(e.severity == "error" for e in result.errors)
             else "Warnings" if all(e.severity != "error" for e in result.errors)
             else "Tool errors and warnings")
    return "\n".join([f'<h3>{title}</h3><ul class="errors">', *items, "</ul>"])


def _where(loc: Location) -> str:
    return f"{loc.file}:{loc.line}:{loc.column}"


class _Listings:
    """Source lines per file, read once per report."""

    def __init__(self, root: str):
        self.sources = SourceCache(root)


def _finding(i: int, f: Finding, listings: _Listings) -> str:
    head = [
        f'<section class="finding" id="f{i}">',
        '<a class="top" href="#top">index</a>',
        f'<h2><span class="rule">{escape(f.rule)} {escape(f.name)}</span> '
        f"in <code>{escape(f.function)}</code></h2>",
        f'<p class="where">{escape(_where(f.location))}</p>',
        f'<p class="msg">{message(f.message)}</p>',
    ]
    if len(f.instantiations) > 1:
        head.append(f'<p class="where">Instantiations: '
                    f'{escape(", ".join(f.instantiations))}</p>')
    return "\n".join(head + [_listing(f, listings), "</section>"])


def _notes(f: Finding) -> list[tuple[int, Step, str]]:
    """(number, step, css class) for each callout; the finding itself closes the path."""
    steps = list(f.path)
    last = steps[-1] if steps else None
    if last is None or last.location.line != f.location.line or last.location.file != \
            f.location.file:
        steps.append(Step(f.location, f.message))
    out = []
    for n, step in enumerate(steps, 1):
        kind = "last" if n == len(steps) else "first" if n == 1 else "mid"
        out.append((n, step, kind))
    return out


def _listing(f: Finding, listings: _Listings) -> str:
    notes = _notes(f)
    lines = listings.sources.lines(f.location.file)
    here = [(n, s, k) for n, s, k in notes if s.location.file == f.location.file]
    if lines is None or not 1 <= f.location.line <= len(lines):
        return _plain_steps("Source not available.", notes)
    wanted = [s.location.line for _, s, _ in here if 1 <= s.location.line <= len(lines)]
    start, end = listed_lines(f.extent, f.location.file, len(lines), min(wanted), max(wanted))
    shown = [(n, s, k) for n, s, k in here if start <= s.location.line <= end]
    under: dict[int, list[tuple[int, Step, str]]] = {}
    for note in shown:
        under.setdefault(note[1].location.line, []).append(note)
    on_path = {s.location.line for _, s, _ in shown}
    rows = ['<table class="src">']
    for number in range(start, end + 1):
        text = lines[number - 1].expandtabs(_TAB)
        cls = "primary" if number == f.location.line else "onpath" if number in on_path else ""
        cls_attr = f' class="{cls}"' if cls else ""
        rows.append(f'<tr{cls_attr}><td class="ln">{number}</td>'
                    f'<td class="code">{escape(text) or " "}</td></tr>')
        for n, step, kind in under.get(number, []):
            indent = _visual_column(lines[number - 1], step.location.column)
            rows.append(f'<tr class="callout"><td></td><td class="code">{" " * indent}'
                        f'<span class="note {kind}"><span class="num">{n}</span>'
                        f"{message(step.message)}</span></td></tr>")
    rows.append("</table>")
    elsewhere = [note for note in notes if note not in shown]
    if elsewhere:
        rows.append(_plain_steps("Steps outside this listing:", elsewhere))
    return "\n".join(rows)


def _visual_column(line: str, column: int) -> int:
    """Spaces before `column` (1-based, as clang counts) once tabs are expanded."""
    return len(line[:max(column - 1, 0)].expandtabs(_TAB))


def _plain_steps(title: str, notes: list[tuple[int, Step, str]]) -> str:
    items = [
        f'<li value="{n}"><code>{escape(_where(s.location))}</code>: {message(s.message)}</li>'
        for n, s, _ in notes
    ]
    return "\n".join([f'<p class="nosrc">{escape(title)}</p><ol class="list">', *items, "</ol>"])
