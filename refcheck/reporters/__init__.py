"""Turn a RunResult into text for people and tools: one module per output format.

Rendering is pure: it returns the report and prints nothing, so the CLI decides where the report
goes (stdout, -o FILE) and what else it prints (summaries, statistics).
"""

from __future__ import annotations

import re
from importlib import import_module

from refcheck.findings import RunResult

# Format name -> module with `render(result) -> str`. Imported on demand: the text path of a
# cached run should not pay for building the SARIF rule table.
_MODULES = {
    "text": "refcheck.reporters.text",
    "json": "refcheck.reporters.json",
    "sarif": "refcheck.reporters.sarif",
    "github": "refcheck.reporters.github",
    "html": "refcheck.reporters.html",
}

FORMATS = tuple(_MODULES)


def render(fmt: str, result: RunResult, *, color: bool = False, show_source: bool = True) -> str:
    """The report for `result` in format `fmt`; ValueError names the formats for a bad one.

    `color` and `show_source` shape the text format only: the machine formats never change
    with the terminal."""
    module = _MODULES.get(fmt)
    if module is None:
        raise ValueError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})")
    if fmt == "text":
        text = import_module(module).render(result, color=color, show_source=show_source)
    else:
        text = import_module(module).render(result)
    return valid_unicode(text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(text: str) -> str:
    """The report as text that encodes to UTF-8: a file name that is not valid UTF-8 arrives
    as lone surrogates (Python's surrogateescape), which no encoder accepts, and one such name
    must not cost the whole report. The text format has already escaped them as \\xNN; the
    others get U+FFFD, the replacement character, as their formats expect."""
    return _SURROGATE.sub("\ufffd", text)
