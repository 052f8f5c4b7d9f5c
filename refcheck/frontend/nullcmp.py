"""String comparisons that sort NULL apart (issue 32): GLib's `g_strcmp0 (a, b)` "handles NULL
gracefully by sorting it before non-NULL strings", so `g_strcmp0 (x, NULL) == 0` holds exactly
where x is NULL. `g_assert_cmpstr (password, ==, NULL)` (libsecret's tests) expands to `const char
*__s1 = (password), *__s2 = (NULL); if (g_strcmp0 (__s1, __s2) == 0) ; else ...`: the test is a
null test of `__s1`, an alias of `password`. The callees are the conventions' `null_sorted`.
"""

from __future__ import annotations

from refcheck.frontend.binding import arguments
from refcheck.frontend.clangutil import K, binop, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of


def null_compared(b, call, is_null):
    """The argument of `call` (a `null_sorted` comparison of two strings) compared with NULL:
    the other one is a NULL constant (`is_null`), or a local initialised with one and never
    assigned again (the assertion macro's `__s2`). None otherwise."""
    if not b.conv.null_sorted or not b.conv.matches("null_sorted", b.callee_of(call)[1] or ""):
        return None
    args = arguments(call)
    if len(args) != 2:
        return None
    for x, other in ((args[0], args[1]), (args[1], args[0])):
        if _null_value(b, other, is_null) and not _null_value(b, x, is_null):
            return x
    return None


def _null_value(b, c, is_null) -> bool:
    c = strip(c)
    if is_null(c):
        return True
    if kind_of(c) != K.DECL_REF_EXPR:
        return False
    d = referenced(c)
    if d is None or kind_of(d) != K.VAR_DECL:
        return False
    init = [k for k in children_of(d) if kind_of(k) not in (K.TYPE_REF, K.UNEXPOSED_ATTR)]
    return bool(init) and is_null(init[-1]) and not _assigned(b, d)


def _assigned(b, d) -> bool:
    """Whether the function writes `d` after its declaration (`d = ...`, `&d` taken)."""
    stack = list(children_of(b.fn))
    while stack:
        c = stack.pop()
        k = kind_of(c)
        if k == K.BINARY_OPERATOR and binop(c).endswith("=") and binop(c) not in ("==", "!=", "<=", ">="):
            lhs = strip(next(iter(children_of(c)), c))
            if kind_of(lhs) == K.DECL_REF_EXPR and referenced(lhs) == d:
                return True
        if k == K.UNARY_OPERATOR:
            inner = children_of(c)
            target = strip(inner[0]) if inner else None
            if target is not None and kind_of(target) == K.DECL_REF_EXPR and referenced(target) == d:
                if unop(c) in ("&", "++", "--"):
                    return True
        stack.extend(children_of(c))
    return False
