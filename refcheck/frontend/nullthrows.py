"""C++ checkers that throw only where a pointer argument is NULL (issue 31, cpy45's greenlet).

greenlet's `Require (PyObject *p, ...)` is `if (!p) throw PyErrOccurred (msg); return p;`: a
call `Require (PyLong_FromSsize_t (n))` inside a `try` throws exactly where the new reference
is NULL, so the handler never sees one owned. A throw split taken unconditionally (every
callee not declared noexcept may throw) reached the handler with the reference owned and
reported it leaked there. Where the callee's body is in the unit and every throw in it lies in
the then-branch of a NULL test of one pointer parameter, with no other call that may throw
outside those branches, the call's throw edge is taken on its argument's NULL edge only.
"""

from __future__ import annotations

from refcheck import ir
from refcheck.findings import Location
from refcheck.frontend.binding import definition
from refcheck.frontend.clangutil import K, binop, cursor_key, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import is_null_constant
from refcheck.frontend.graph import GraphBuilder

_CALLS = (K.CALL_EXPR, K.CXX_NEW_EXPR)


def _tested_parameter(cond, params: list) -> int | None:
    """The position of the parameter `cond` is true for where it is NULL: `!p`, `p == NULL`,
    `NULL == p`, `p == nullptr`, `p == 0`."""
    cond = strip(cond)
    k = kind_of(cond)
    if k == K.UNARY_OPERATOR and unop(cond) == "!":
        inner = list(children_of(cond))
        return _parameter(inner[0], params) if len(inner) == 1 else None
    if k == K.BINARY_OPERATOR and binop(cond) == "==":
        a, b = (list(children_of(cond)) + [None, None])[:2]
        if a is None or b is None:
            return None
        if is_null_constant(b):
            return _parameter(a, params)
        if is_null_constant(a):
            return _parameter(b, params)
    return None


def _parameter(e, params: list) -> int | None:
    e = strip(e)
    if kind_of(e) != K.DECL_REF_EXPR:
        return None
    ref = referenced(e)
    for i, p in enumerate(params):
        if ref is not None and p == ref:
            return i
    return None


def _scan(c, params: list, guarded: set, may_throw) -> bool:
    """Whether every throw under `c` is in a NULL-test's then-branch (adding the tested
    positions to `guarded`) and no call outside such a branch may throw."""
    k = kind_of(c)
    if k == K.CXX_THROW_EXPR:
        return False
    if k == K.IF_STMT:
        kids = list(children_of(c))
        if len(kids) == 2:  # no else: `if (!p) throw ...;`
            i = _tested_parameter(kids[0], params)
            if i is not None and _scan(kids[0], params, guarded, may_throw):
                guarded.add(i)  # the then-branch may throw: only where p is NULL
                return True
    if k in _CALLS and may_throw(c):
        return False
    if k in (K.LAMBDA_EXPR, K.CXX_TRY_STMT):
        return False
    return all(_scan(x, params, guarded, may_throw) for x in children_of(c))


def throws_where_null(decl, may_throw, cache: dict) -> int | None:
    """The position of the one pointer parameter whose NULL is the callee's only throw, from its
    definition in the unit; None where its body says otherwise or is not here. `cache`: the
    build's, by declaration (a body calls the same checker many times)."""
    if decl is None:
        return None
    key = ("throws where null", cursor_key(decl))
    if key not in cache:
        cache[key] = _read(decl, may_throw)
    return cache[key]


def _read(decl, may_throw) -> int | None:
    try:
        body_decl = definition(decl)
    except Exception:  # a cursor libclang cannot resolve
        return None
    if body_decl is None:
        return None
    params = [x for x in children_of(body_decl) if kind_of(x) == K.PARM_DECL]
    body = next((x for x in children_of(body_decl) if kind_of(x) == K.COMPOUND_STMT), None)
    if body is None or not params:
        return None
    guarded: set = set()

    def call_may_throw(call) -> bool:
        callee = referenced(call)
        return kind_of(call) == K.CXX_NEW_EXPR or may_throw(callee)

    if not _scan(body, params, guarded, call_may_throw) or len(guarded) != 1:
        return None
    return next(iter(guarded))


def null_throw_split(b: GraphBuilder, loc: Location, name: str, var: str, unwind) -> None:
    """The call may throw where `var` is NULL: the throw edge leaves the NULL branch only."""
    test = b.node("branch", loc, cond=ir.NullTest(var), text=f"{name} throws where {b.names.get(var, var)} is NULL")
    b.start(test)
    thrown = b.node("block", loc, text=f"{name} may throw")
    b.edge(test, thrown, False)
    for entry in b.handlers[-1]:
        unwind(b, thrown, entry, loc)
    b.cur = b.node("block")
    b.edge(test, b.cur, True)
