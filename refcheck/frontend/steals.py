"""Steals that depend on more than the callee's name: the `N` units of a Py_BuildValue-style
format string, and a steal that happens only when the call succeeds (PyModule_AddObject).

A steal hands the reference over, like a store into the container that took it: the caller
must not release it after (RC006), but may still use it while the container lives.
"""

from __future__ import annotations

from refcheck import ir
from refcheck.frontend.clangutil import K, kind_of, strip
from refcheck.frontend.binding import cursor_key
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.graph import GraphBuilder

# Format units of Py_BuildValue (Python/modsupport.c) and the C arguments each takes; `#` after a
# string unit adds a length, `&` after O a converter. N is O that steals its object.
_ONE = set("ibhlBHIkLKncCdfD")
_STRINGS = set("szUyu")
_OBJECTS = set("OSN")
_NO_ARGUMENT = set("()[]{}:, \t\n")


def build_value_steals(fmt: str) -> tuple[int, ...] | None:
    """The positions, among the arguments after the format, of the objects an `N` unit steals;
    None when the format is not one Py_BuildValue reads (then nothing is assumed stolen)."""
    steals, arg, i = [], 0, 0
    while i < len(fmt):
        c = fmt[i]
        nxt = fmt[i + 1] if i + 1 < len(fmt) else ""
        if c in _NO_ARGUMENT:
            pass
        elif c in _STRINGS:
            arg += 1
            if nxt == "#":
                arg, i = arg + 1, i + 1
        elif c in _OBJECTS:
            if nxt == "&" and c == "O":
                arg, i = arg + 1, i + 1  # O& passes a converter and what it converts
            elif c == "N":
                steals.append(arg)
            arg += 1
        elif c in _ONE:
            arg += 1
        else:
            return None
        i += 1
    return tuple(steals)


def string_literal(c) -> str | None:
    """The text of a string literal argument ("(" "NN" ")" concatenated), None if not one."""
    c = strip(c)
    if kind_of(c) != K.STRING_LITERAL:
        kids = list(children_of(c))
        if len(kids) != 1:
            return None
        return string_literal(kids[0])
    parts = []
    for tok in c.get_tokens():
        s = tok.spelling
        if not (len(s) >= 2 and s[0] == '"' and s[-1] == '"') or "\\" in s:
            return None  # a prefixed or escaped literal: not a format worth decoding
        parts.append(s[1:-1])
    return "".join(parts) if parts else None


def format_steals(b: GraphBuilder, name: str, args: list) -> frozenset[int]:
    """The argument indices a Py_BuildValue-family call steals by its format's `N` units."""
    index = b.conv.format_argument(name, len(args))
    if index is None:
        return frozenset()
    fmt = string_literal(args[index])
    steals = build_value_steals(fmt) if fmt is not None else None
    return frozenset(index + 1 + i for i in steals or () if index + 1 + i < len(args))


def success_split(b: GraphBuilder, loc, name: str, call, stolen: list[str], status: str | None) -> str:
    """`PyModule_AddObject(m, "x", o)`: on success (returns 0) `o` is handed over, on failure
    (returns -1) it is still the caller's. The result is an integer variable holding 0 or -1 on
    each edge, so that `if (PyModule_AddObject(...) < 0)` (or `rc = ...; if (rc)`) takes the
    edge its split did. `status`: the local the call's result is assigned to, if any."""
    r = status or b.temp(f"{name}(...)")
    n = b.node("branch", loc, cond=ir.Opaque(f"{name} succeeded"), text=f"{name} succeeded")
    yes, no, join = b.node("block"), b.node("block"), b.node("block")
    b.start(n)
    b.edge(n, yes, True)
    b.edge(n, no, False)
    b.cur = yes
    for v in stolen:
        b.emit(ir.Store(loc, v, "", frozenset()))
    b.emit(ir.Const(loc, r, 0))
    b.goto(join)
    b.cur = no
    b.emit(ir.Const(loc, r, -1))
    b.goto(join)
    b.cur = join
    b.status_vars[cursor_key(call)] = r
    return r


def status_condition(b: GraphBuilder, c, op_const) -> tuple[str, str, int] | None:
    """For a condition over a success-split call (`f(...)`, `f(...) < 0`, `f(...) == -1`, lowered
    already), the (variable, op, constant) test the split's constants decide."""
    if not b.status_vars:  # no success split in this function (nearly all): asked at every branch
        return None
    c = strip(c)
    if kind_of(c) == K.CALL_EXPR:
        r = b.status_vars.get(cursor_key(c))
        return (r, "!=", 0) if r is not None else None
    found = op_const(c)
    if found is None:
        return None
    call, op, k = found
    r = b.status_vars.get(cursor_key(call))
    return (r, op, k) if r is not None else None
