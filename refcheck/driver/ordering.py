"""The order a run checks its units in: a unit whose functions others call before those callers,
where the source text says so.

A unit that calls a function of a unit checked after it had no summary of that function; phase 2
(runner._check_again) parses and checks it again once the table has one. Checked in path order,
the callers often come first: at-spi2-core's atspi-accessible.c and sixteen more atspi units use
atspi-misc.c's `_atspi_dbus_*` helpers, colord's client tools the library's functions, and each
such unit was parsed twice (phase 2 was a fifth of at-spi2-core's CPU, two thirds of it parses).

The text is read, not parsed: function definitions are found as C writes them (the name, its
parameter list and the body's brace, the name at the start of its line or after its return
type), calls as a name before `(`. A missed or false definition only moves a unit in the order:
the summaries a check uses, and so its findings, are the same whatever the order (phase 2 checks
again until the table agrees with every unit's use of it).
"""

from __future__ import annotations

import heapq
import os
import re

# `type name (params)\n{`, with one level of parentheses inside the parameters (a function
# pointer parameter); the name at a line's start or after its return type's words.
_DEFINITION = re.compile(rb"^(?:[A-Za-z_][\w \t\*]*?[ \t\*])?([A-Za-z_]\w*)[ \t]*"
                         rb"\((?:[^;{}()]|\([^;{}()]*\))*\)[ \t]*\r?\n?[ \t]*\{", re.M)
_CALL = re.compile(rb"\b([A-Za-z_]\w*)[ \t]*\(")
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
_KEYWORDS = frozenset((b"if", b"for", b"while", b"switch", b"return", b"sizeof", b"do", b"else"))


def callees_first(paths: list[str], read) -> list[int]:
    """The indexes of `paths` in checking order: a unit once the units whose functions it calls
    (by the text) are placed, in the given order among those ready. Where none is (units that
    call each other), the one that most units still wait for, less the units it waits for, goes
    first (a library's shared helpers, which call back into the units that use them). A unit
    another one `#include`s comes after its includer (which the run checks first, skipping it:
    runner._included_by). `read(path)`: its bytes, or None."""
    texts = [read(p) or b"" for p in paths]
    at = {os.path.normpath(p): i for i, p in enumerate(paths)}
    includers = {at[n]: i for i, t in enumerate(texts) for n in _included(paths[i], t) if n in at and at[n] != i}
    defines: dict[bytes, int] = {}
    for i, text in enumerate(texts):
        if i not in includers:
            for m in _DEFINITION.finditer(text):
                if m.group(1) not in _KEYWORDS:
                    defines.setdefault(m.group(1), i)  # a name two units define: the first's
    calls = [{defines[n] for n in set(_CALL.findall(t)) if defines.get(n, i) != i} for i, t in enumerate(texts)]
    for unit, includer in includers.items():
        calls[unit].add(includer)
    return _placed(calls)


def _placed(calls: list[set[int]]) -> list[int]:
    """Kahn's order of `calls` (unit -> the units it calls), cycles broken as callees_first says.
    Both choices come from heaps (the cycle's with stale entries skipped), so that a run of
    thousands of units that call each other is no quadratic scan."""
    callers: list[list[int]] = [[] for _ in calls]
    for u, vs in enumerate(calls):
        for v in vs:
            callers[v].append(u)
    waits = [len(vs) for vs in calls]  # the units each still waits for
    waited = [len(us) for us in callers]  # the units still waiting for each
    ready = [u for u in range(len(calls)) if not waits[u]]
    stuck = [(waits[u] - waited[u], u) for u in range(len(calls)) if waits[u]]
    heapq.heapify(ready)
    heapq.heapify(stuck)
    placed = [False] * len(calls)
    order: list[int] = []
    while len(order) < len(calls):
        if ready:
            unit = heapq.heappop(ready)
            if placed[unit]:
                continue
        else:
            key, unit = heapq.heappop(stuck)
            if placed[unit] or not waits[unit] or key != waits[unit] - waited[unit]:
                continue
        placed[unit] = True
        order.append(unit)
        for u in set(calls[unit]) | set(callers[unit]):
            if u in calls[unit]:
                waited[u] -= 1
            if unit in calls[u] and not placed[u]:
                waits[u] -= 1
            if not placed[u]:
                if waits[u]:
                    heapq.heappush(stuck, (waits[u] - waited[u], u))
                elif unit in calls[u]:
                    heapq.heappush(ready, u)
    return order


def _included(path: str, text: bytes) -> list[str]:
    """The files `path` includes by a quoted name, as paths beside it."""
    folder = os.path.dirname(path)
    return [os.path.normpath(os.path.join(folder, m.decode("utf-8", "replace"))) for m in _INCLUDE.findall(text)]
