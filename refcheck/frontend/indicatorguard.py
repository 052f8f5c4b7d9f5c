"""A unit's own helper that answers only while the error indicator is set (CPython's convention:
an exception is pending iff `PyErr_Occurred ()`).

Cheetah's `wrapInternalNotFoundException (name, ns)` opens with `if (!PyErr_Occurred ()) return
0;` and only then looks at the exception: a caller's `if (helper (...)) theValue = NULL;` right
after `theValue = f (...)` returned an object (no error set, `frontend.indicator`) never takes the
true edge, so the object is not dropped. The helper's test is lowered as `indicator && helper
(...)`: only an implication (the helper may return 0 with an error set), never the indicator's
equal. A guard before the indicator's test may only return 0 and call nothing: a call there
could set the error the test then sees.
"""

from __future__ import annotations

from refcheck.frontend.binding import kind_of
from refcheck.frontend.clangutil import K, binop, constant, strip, unop
from refcheck.frontend.clangutil import kids as children_of

# The indicator's fact key in a body that tests it only through such helpers.
GUARDED_KEY = "<error indicator>"

_INTEGERS = frozenset(("INT", "UINT", "LONG", "ULONG", "SHORT", "USHORT", "CHAR_S", "SCHAR", "UCHAR",
                       "LONGLONG", "ULONGLONG", "BOOL"))


def guards_indicator(b, c) -> bool:
    """Whether call `c` is of a helper defined in the unit whose integer result is 0 whenever
    the error indicator is clear at the call (kept per callee for the build)."""
    if not b.conv.error_indicator:
        return False
    decl = b.callee_of(c)[0]
    if decl is None:
        return False
    cache = b.indicator_guards
    key = decl.hash
    if key not in cache:
        cache[key] = _guarded(b, decl.get_definition())
    return cache[key]


def _guarded(b, fn) -> bool:
    if fn is None or fn.result_type.get_canonical().kind.name not in _INTEGERS:
        return False
    body = next((k for k in children_of(fn) if kind_of(k) == K.COMPOUND_STMT), None)
    for s in children_of(body) if body is not None else ():
        if kind_of(s) == K.DECL_STMT and not _calls(s):
            continue
        parts = list(children_of(s)) if kind_of(s) == K.IF_STMT else []
        if len(parts) != 2 or not _returns_zero(parts[1]):
            return False  # anything but `if (c) return 0;` before the indicator's test
        if _tests_clear(b, parts[0]):
            return True
        if _calls(parts[0]):
            return False
    return False


def _returns_zero(s) -> bool:
    if kind_of(s) == K.COMPOUND_STMT:
        inner = list(children_of(s))
        return len(inner) == 1 and _returns_zero(inner[0])
    kids = list(children_of(s)) if kind_of(s) == K.RETURN_STMT else []
    return len(kids) == 1 and constant(kids[0]) == 0


def _tests_clear(b, cond) -> bool:
    """`!PyErr_Occurred ()` or `PyErr_Occurred () == NULL`."""
    cond = strip(cond)
    if kind_of(cond) == K.UNARY_OPERATOR and unop(cond) == "!":
        return _is_indicator(b, next(iter(children_of(cond))))
    if kind_of(cond) == K.BINARY_OPERATOR and binop(cond) == "==":
        lhs, rhs = list(children_of(cond))
        return (_is_indicator(b, lhs) and constant(rhs) == 0) or (_is_indicator(b, rhs) and constant(lhs) == 0)
    return False


def _is_indicator(b, e) -> bool:
    e = strip(e)
    return kind_of(e) == K.CALL_EXPR and b.conv.matches("error_indicator", b.callee_of(e)[1] or "")


def _calls(c) -> bool:
    return any(kind_of(x) == K.CALL_EXPR for x in c.walk_preorder())
