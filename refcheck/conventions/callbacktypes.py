"""Callback types a project's gtk-doc documents as taking a parameter over (issue 32, glib).

A GObject library documents the function-pointer types its users implement as it documents
functions: `GrlSourceResultCb: ... @media: (nullable) (transfer full): a data transfer object`,
`AtspiEventListenerCB: @event: (transfer full): the event`. The library's own code that calls
such a pointer (`bs->callback (source, id, g_object_ref (media), remaining, data, NULL)`,
`entry->callback (atspi_event_copy (e), entry->user_data)`) hands that argument to whichever
function the user registered: the type's comment is the only record of the call. Unlike an input
parameter's `(transfer full)` on a function (not trusted alone: `gtkdoc._said`), no body can
confirm or contradict it, and the library wrote the copy or the reference for that hand-over.
Read from the run's units and the project's headers (the typedefs live there); libclang-free.
"""

from __future__ import annotations

import os
import re

from refcheck.conventions.gir import C_NS, record_of
from refcheck.conventions.gtkdoc import _BLOCK, _element, _taken, source_text

# `typedef RESULT (*Name) (parameters)`: the text after a doc block up to its `;`.
_TYPEDEF = re.compile(r"\s*typedef\s+([\w\s*]+?)\(\s*\*\s*(\w+)\s*\)\s*\(([^;]*)\)\s*$")
_HEADERS = (".h", ".hh", ".hpp")
_MAX_HEADERS = 5000


def scan(text: str) -> dict[str, tuple[int, ...]]:
    """Callback typedef name -> the positions of its parameters documented `(transfer full)`
    (a `T **` one, an out parameter missing its `(out)`, is left out: `gtkdoc._taken`). A type
    documented twice with different positions is left out."""
    out: dict[str, tuple[int, ...]] = {}
    clashes: set[str] = set()
    if "typedef" not in text or "(transfer full" not in text:
        return out  # most files: nothing to read
    for m in _BLOCK.finditer(text):
        t = _TYPEDEF.match(m.group(2))
        if t is None or "(transfer full" not in m.group(1):
            continue
        result, name, params = t.groups()
        element, skipped = _element(m.group(1), f"{result} {name} ({params})")
        if element is None or skipped or element.get(C_NS + "identifier") != name:
            continue
        positions = _taken(record_of(element) or {}, element)
        if positions:
            if out.get(name, positions) != positions:
                clashes.add(name)
            out[name] = positions
    return {n: p for n, p in out.items() if n not in clashes}


def project_callbacks(units, root: str | None, max_bytes: int = 4 << 20) -> dict[str, tuple[int, ...]]:
    """`scan` over the run's units and the headers under the project's root (a file that cannot
    be read, or a larger one, is skipped); a type two files document differently is left out."""
    out: dict[str, tuple[int, ...]] = {}
    clashes: set[str] = set()
    for path in sorted(set(units) | set(_headers(root))):
        text = source_text(path, max_bytes)
        if text is None:
            continue
        for name, positions in scan(text).items():
            if out.get(name, positions) != positions:
                clashes.add(name)
            out[name] = positions
    return {n: p for n, p in out.items() if n not in clashes}


def _headers(root: str | None) -> list[str]:
    """The headers under `root`, hidden folders skipped, at most `_MAX_HEADERS` of them."""
    found: list[str] = []
    if not root or not os.path.isdir(root):
        return found
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(os.path.join(here, f) for f in sorted(files) if f.endswith(_HEADERS))
        if len(found) >= _MAX_HEADERS:
            break
    return found[:_MAX_HEADERS]


def annotated(conv, units, root: str | None):
    """`conv` told of the project's documented callback types (`project_callbacks`)."""
    from dataclasses import replace

    found = project_callbacks(units, root)
    return replace(conv, documented_callbacks=found) if found else conv
