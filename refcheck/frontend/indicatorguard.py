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

from refcheck.frontend.binding import definition, kind_of, referenced
from refcheck.frontend.clangutil import K, binop, constant, strip, unop
from refcheck.frontend.clangutil import kids as children_of

# A declaration's children that are its type, not its initializer.
_TYPE_PARTS = (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)

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
        cache[key] = _guarded(b, definition(decl))
    return cache[key]


def _guarded(b, fn) -> bool:
    if fn is None or fn.result_type.get_canonical().kind.name not in _INTEGERS:
        return False
    body = next((k for k in children_of(fn) if kind_of(k) == K.COMPOUND_STMT), None)
    if body is not None and _set_then_zero(b, list(children_of(body))):
        return True
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


def _set_then_zero(b, stmts: list) -> bool:
    """`[T err = PyErr_Occurred ();] if (err) { ... } return 0;` (pygit2's `git_error_for_exc`,
    which maps the pending exception to an error code): every other return is under the
    indicator's set edge. Declarations without calls may come first."""
    if len(stmts) < 2 or not _returns_zero(stmts[-1]) or kind_of(stmts[-2]) != K.IF_STMT:
        return False
    parts = list(children_of(stmts[-2]))
    if len(parts) != 2:  # an else arm could return anything
        return False
    cond, held = strip(parts[0]), None
    for s in stmts[:-2]:
        if kind_of(s) != K.DECL_STMT:
            return False
        for d in children_of(s):
            init = [x for x in children_of(d) if kind_of(x) not in _TYPE_PARTS]
            if init and _is_indicator(b, init[-1]):
                held = d
            elif _calls(d):
                return False
    if _is_indicator(b, cond):
        return True
    return held is not None and kind_of(cond) == K.DECL_REF_EXPR and referenced(cond) == held


def nonzero_edge(b, c) -> bool | None:
    """For `helper (...) OP 0` or `(v = helper (...)) OP 0` (OP one of != == < >) with a helper
    that answers only with an error set: the edge on which its result is nonzero (True: the true
    edge, `==`: the false one); None for any other condition."""
    if kind_of(c) != K.BINARY_OPERATOR or binop(c) not in ("!=", "==", "<", ">"):
        return None
    kids = [strip(x) for x in children_of(c)]
    if len(kids) != 2 or constant(kids[1]) != 0:
        return None
    call = kids[0]
    if kind_of(call) == K.BINARY_OPERATOR and binop(call) == "=":
        call = strip(list(children_of(call))[-1])
    if kind_of(call) != K.CALL_EXPR or not guards_indicator(b, call):
        return None
    return binop(c) != "=="


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
