"""A statement expression that only turns a test into 0 or 1: GLib's `_G_BOOLEAN_EXPR`.

Under `__OPTIMIZE__` (meson's default `debugoptimized`, any `-O2` build) GLib's `G_LIKELY (e)` is
`__builtin_expect (({ int v; if (e) v = 1; else v = 0; v; }), 1)`, and with it every
`g_assert_true`, `g_assert_false`, `g_return_if_fail` and `g_return_val_if_fail`. Lowered
statement by statement, the test of e decides only a constant the next branch reads: the
slicing (`analysis.slicing.relevant_branches`) finds nothing that matters in its arms and
contracts it, so e's outcome was forgotten and `ok = f (..., &err); g_assert_true (ok);` let the
failure edge (err set) past the assertion (bolt's test_uuidv_check, 7 false RC007). Such an
expression is e's truth itself: a condition tests e (the local is fresh, declared in it, read
nowhere else).
"""

from __future__ import annotations

from refcheck.frontend.binding import kind_of
from refcheck.frontend.clangutil import K, binop, constant, referenced, strip
from refcheck.frontend.clangutil import kids as children_of


def boolean_test(c) -> tuple[object, bool] | None:
    """(e, sense) where `c` is `({ int v; if (e) v = A; else v = B; v; })` with {A, B} = {1, 0}:
    the expression's truth is e's (sense True, A = 1) or its negation; else None."""
    body = next(iter(children_of(c)), None)
    stmts = list(children_of(body)) if body is not None else []
    if len(stmts) != 3 or kind_of(stmts[0]) != K.DECL_STMT or kind_of(stmts[1]) != K.IF_STMT:
        return None
    decls = list(children_of(stmts[0]))
    if len(decls) != 1 or kind_of(decls[0]) != K.VAR_DECL or list(children_of(decls[0])):
        return None  # one local, not initialised
    var = decls[0]
    last = strip(stmts[2])
    if kind_of(last) != K.DECL_REF_EXPR or referenced(last) != var:
        return None
    parts = list(children_of(stmts[1]))
    if len(parts) != 3:
        return None
    cond, then, other = parts
    a, b = _set_constant(then, var), _set_constant(other, var)
    if {a, b} != {0, 1}:
        return None
    return cond, a == 1


def _set_constant(s, var) -> int | None:
    """The constant `s` (`v = k;`, or `{ v = k; }`) assigns to var, else None."""
    if kind_of(s) == K.COMPOUND_STMT:
        inner = list(children_of(s))
        if len(inner) != 1:
            return None
        s = inner[0]
    s = strip(s)
    if kind_of(s) != K.BINARY_OPERATOR or binop(s) != "=":
        return None
    lhs, rhs = list(children_of(s))
    lhs = strip(lhs)
    if kind_of(lhs) != K.DECL_REF_EXPR or referenced(lhs) != var:
        return None
    return constant(strip(rhs))
