"""Which units include a header: how `refcheck check include/tensor.h` checks a header.

A header is checked through the units that include it. The cache knows each unit's includes
exactly (cache.Cache.includers); when it has never seen the project, the `#include` lines of the
candidate units and of the headers under the project root are scanned instead, transitively
(a unit that includes TH.h, which includes THTensor.h, includes THTensor.h). The scan matches an
include by its path's tail, without the include search path: it may take a unit too many (that
unit is checked for nothing), which is the safe side for a pre-commit gate.
"""

from __future__ import annotations

import os
import re

from refcheck.workspace.sources import HEADER_EXTENSIONS

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.MULTILINE)
# Bounds on the scan of a large tree: files looked at, and bytes read of each.
MAX_FILES = 50_000
MAX_BYTES = 1 << 20


def includes_of(path: str) -> list[str]:
    """The names a file's #include lines spell ("" list when unreadable)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES)
    except OSError:
        return []
    return [m.decode("utf-8", "replace").replace("\\", "/") for m in _INCLUDE.findall(data)]


def _names(target: str, spelled: str) -> bool:
    """Whether an include spelled `spelled` may name the file `target` (absolute)."""
    parts = [p for p in spelled.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return bool(parts) and os.path.basename(target) == parts[-1]
    return target.replace(os.sep, "/").endswith("/" + "/".join(parts))


def headers_under(root: str) -> list[str]:
    """Header files under root (hidden directories skipped), up to MAX_FILES entries seen."""
    out: list[str] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        seen += len(filenames)
        out += [os.path.join(dirpath, n) for n in filenames if n.lower().endswith(HEADER_EXTENSIONS)]
        if seen > MAX_FILES:
            break
    return out


def scan(header: str, units: list[str], headers: list[str]) -> list[str]:
    """The units that include `header`, directly or through other headers, by their #include
    lines."""
    unit_set = set(units)
    spelled = {p: includes_of(p) for p in unit_set | set(headers)}
    targets = {header}
    found: set[str] = set()
    frontier = [header]
    while frontier:
        target = frontier.pop()
        for path, names in spelled.items():
            if path in targets or path in found or not any(_names(target, n) for n in names):
                continue
            if path in unit_set:
                found.add(path)
            # A unit can be included too (TH's generic/*.c): its includer is then the unit that
            # makes sense alone, and the run drops the included one (runner._units_not_included).
            targets.add(path)
            frontier.append(path)
    return sorted(found)
