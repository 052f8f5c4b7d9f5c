"""Opaque user data (issue 31, cpy43's confluent-kafka): a library setter that keeps a raw
`void *` for the program's own callback (`rd_kafka_AdminOptions_set_opaque (options, future)`,
no destroy notify: the library never releases it), and the project's helpers that hand one of
their parameters to such a setter (`Admin_options_to_c (self, op, &o, future)`).

The reference that goes with the pointer is the program's protocol, not the library's: the
caller retains the object for the callback that will release it, and releases it itself on the
paths where the holder is thrown away before it was used (confluent-kafka's `err:` labels). So:
- a parameter of the function lowered, handed on, is its callers' to pay (a plain read here);
- a value the function retains after the hand-over (`c_options = Admin_options_to_c (..., future);
  if (!c_options) return NULL; Py_INCREF (future);`) follows that protocol: it is no longer
  tracked after the call, neither the retain left at a return nor a release on an error path
  is reported;
- any other value is handed over as to a sink: a borrowed one is RC009 (nothing paid for the
  callback's release), an owned one goes to the holder (a later release is RC006)."""

from __future__ import annotations

import clang.cindex as ci

from refcheck.frontend.argtypes import defined_here, parameter_types, void_pointer
from refcheck.frontend.binding import cursor_key, definition, of_kinds
from refcheck.frontend.clangutil import K, kind_of, named_parameter
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.perunit import PerUnit

_CALLS = frozenset({ci.CursorKind.CALL_EXPR.value})
_HELPERS: PerUnit[tuple] = PerUnit()  # (conventions, helper -> positions) of the unit asked last


def opaque_positions(b, decl, name: str, args: list) -> frozenset:
    """The argument positions a call keeps as opaque user data: a `void *` parameter of a library
    setter the conventions name (`opaque_setters`), or a parameter a helper of this unit hands
    to one itself (read from its body once per unit; one level: confluent-kafka's)."""
    if not args or not b.conv.opaque_setters:
        return frozenset()
    if not defined_here(decl):
        return _setter_positions(b, decl, name, args)
    if kind_of(decl) != K.FUNCTION_DECL:
        return frozenset()
    memo = _helpers(b)
    d = definition(decl)
    key = cursor_key(d)
    if key not in memo:
        memo[key] = _helper_positions(b, d)
    return memo[key]


def _helpers(b) -> dict:
    """Helper -> its positions, kept per unit and conventions: a helper's body answers alike for
    every function that calls it (gmpy2: 6,213 body walks for 1,476 builds when kept per build)."""
    tu = getattr(b.fn, "_tu", None)
    if tu is None:
        return b.opaque_helpers
    conv, memo = _HELPERS.of(tu, lambda: (b.conv, {}))
    if conv is not b.conv:
        conv, memo = b.conv, {}
        _HELPERS.put(tu, (conv, memo))
    return memo


def _setter_positions(b, decl, name: str, args: list) -> frozenset:
    if not b.conv.matches("opaque_setters", name or ""):
        return frozenset()
    types = parameter_types(decl, args)
    return frozenset(i for i, t in enumerate(types) if i < len(args) and void_pointer(t))


def _helper_positions(b, d) -> frozenset:
    params = [cursor_key(p) for p in children_of(d) if kind_of(p) == K.PARM_DECL]
    if not params:
        return frozenset()
    out = set()
    for inner in of_kinds(d, _CALLS):
        if not b.conv.matches("opaque_setters", inner.spelling or ""):
            continue  # the cheap test first: most helpers call no setter
        callee, name = b.callee_of(inner)
        args = list(inner.get_arguments())
        for j in _setter_positions(b, callee, name, args) if not defined_here(callee) else ():
            ref = named_parameter(args[j])
            if ref is not None and cursor_key(ref) in params:
                out.add(params.index(cursor_key(ref)))
    return frozenset(out)
