"""Element counts and size-establishing calls, recognised where they are lowered (issue 14).

In Lua torch's unwind mode, TH_TENSOR_APPLY2/3 raise "inconsistent tensor size" when two operands'
element counts differ. The counts are computed by a loop in each operand's preamble

    T_n = (T->nDimension ? 1 : 0);
    for (T_i = 0; T_i < T->nDimension; T_i++)
      T_n *= T->size[T_i];

and compared (`if (T1_n != T2_n) THError(...)`). This module turns those shapes into typed IR the
analysis can reason about (`refcheck.analysis.sizes`): a `Count` op where a variable is known to hold
a tensor's element count, a `SameSize` op after a call of the `same-size` table (`resizeAs(a, b)`),
and a `SizeTest` condition for a comparison of two counts or a call of the `same-size-test` table.
Only variables of this function (locals, parameters) take part: a temporary or a field can change
behind the analysis' back.
"""

from __future__ import annotations

import re

from refcheck import ir
from refcheck.frontend.binding import arguments, spelling
from refcheck.frontend.clangutil import (K, binop, constant, has_pointer_type, is_expression, kind_of, location, referenced,
                                         strip, unop)
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.graph import GraphBuilder

# The call that returns a tensor's number of elements (its last argument: THC passes the state
# first). The preamble loop above computes the same number from TH's `nDimension`/`size` fields.
COUNT_CALL = re.compile(r"(?:^|_)(?:nElement|numel)$")
DIM_FIELD, SIZE_FIELD = "nDimension", "size"


def local(b: GraphBuilder, c, pointer: bool) -> str | None:
    """The value name of `c` when it is a plain local variable or parameter of the wanted kind."""
    c = strip(c)
    if kind_of(c) != K.DECL_REF_EXPR or has_pointer_type(c) != pointer:
        return None
    return b.var(referenced(c))


def counted_tensor(b: GraphBuilder, c) -> str | None:
    """t for `nElement(t)` (any type prefix, THC's state first)."""
    c = strip(c)
    if kind_of(c) != K.CALL_EXPR:
        return None
    _, name = b.callee_of(c)
    if not name or not COUNT_CALL.search(name):  # (the name first: arguments are a libclang call each)
        return None
    args = arguments(c)
    if not args:
        return None
    return local(b, args[-1], pointer=True)


def size_test(b: GraphBuilder, c, fallback) -> ir.SizeTest | None:
    """The condition `c` as a size test, or None. `fallback` is its plain `Fact` (or None)."""
    c = strip(c)
    if kind_of(c) == K.BINARY_OPERATOR and binop(c) in ("==", "!=") and len(children_of(c)) == 2:
        lhs, rhs = children_of(c)
        equal = binop(c) == "=="
        x, y = counted_tensor(b, lhs), counted_tensor(b, rhs)
        if x is not None and y is not None:
            return ir.SizeTest(x, y, counts=False, equal=equal, fallback=fallback)
        x, y = local(b, lhs, pointer=False), local(b, rhs, pointer=False)
        if x is not None and y is not None and x != y:
            return ir.SizeTest(x, y, counts=True, equal=equal, fallback=fallback)
        return None
    if kind_of(c) == K.CALL_EXPR:
        _, name = b.callee_of(c)
        args = arguments(c)
        pair = b.conv.same_size_arguments(name, len(args), test=True) if name else None
        if pair is not None:
            x, y = (local(b, args[i], pointer=True) for i in pair)
            if x is not None and y is not None:
                return ir.SizeTest(x, y, counts=False, equal=True, fallback=fallback)
    return None


def same_size_call(b: GraphBuilder, c, name: str, args: list) -> ir.SameSize | None:
    """What a call of the `same-size` table (`resizeAs(a, b)`) does to sizes, or None for another
    call. An argument that is not a local variable is None (the analysis then keeps no fact)."""
    pair = b.conv.same_size_arguments(name, len(args)) if name else None
    if pair is None:
        return None
    x, y = (local(b, args[i], pointer=True) for i in pair)
    return ir.SameSize(location(c), x, y if x != y else None)


def element_count(b: GraphBuilder, prev, stmt) -> ir.Count | None:
    """`Count(n, T)` when `prev; stmt` is TH_TENSOR_APPLY's counting shape (module docstring) or
    `stmt` is `n = nElement(T);` / `long n = nElement(T);`: after it, n holds T's element count."""
    k = kind_of(stmt)
    if k == K.DECL_STMT:
        decls = list(children_of(stmt))
        if len(decls) == 1 and kind_of(decls[0]) == K.VAR_DECL:
            init = [x for x in children_of(decls[0]) if is_expression(x)]
            v = b.var(decls[0])
            t = counted_tensor(b, init[-1]) if init and v is not None else None
            if t is not None and not has_pointer_type(decls[0]):
                return ir.Count(location(stmt), v, t)
        return None
    if k == K.FOR_STMT:
        return _counting_loop(b, prev, stmt)
    if is_expression(stmt):
        assigned = _assignment(b, stmt)
        if assigned is not None:
            v, rhs = assigned
            t = counted_tensor(b, rhs)
            if t is not None:
                return ir.Count(location(stmt), v, t)
    return None


def _assignment(b: GraphBuilder, c):
    """(integer local, right-hand side) of `v = rhs`, or None."""
    c = strip(c)
    if kind_of(c) != K.BINARY_OPERATOR or binop(c) != "=" or len(children_of(c)) != 2:
        return None
    lhs, rhs = children_of(c)
    v = local(b, lhs, pointer=False)
    return (v, rhs) if v is not None else None


def _field_of(b: GraphBuilder, c, field: str) -> str | None:
    """T for `T->field` with T a local pointer."""
    c = strip(c)
    if kind_of(c) != K.MEMBER_REF_EXPR or spelling(c) != field:
        return None
    base = children_of(c)
    return local(b, base[0], pointer=True) if base else None


def _counting_loop(b: GraphBuilder, prev, loop) -> ir.Count | None:
    if prev is None or not is_expression(prev):
        return None
    start = _assignment(b, prev)
    if start is None:
        return None
    n, first = start
    # n = (T->nDimension ? 1 : 0): 0 elements for a tensor without dimensions, as nElement says.
    first = strip(first)
    if kind_of(first) != K.CONDITIONAL_OPERATOR:
        return None
    if len(children_of(first)) != 3:
        return None
    test, one, zero = children_of(first)
    t = _field_of(b, test, DIM_FIELD)
    if t is None or constant(strip(one)) != 1 or constant(strip(zero)) != 0:
        return None
    parts = children_of(loop)
    if len(parts) != 4:  # all of init, condition and increment (libclang leaves out missing ones)
        return None
    init, cond, inc, body = parts
    # for (i = 0; i < T->nDimension; i++)
    start_i = _assignment(b, init)
    if start_i is None or constant(strip(start_i[1])) != 0:
        return None
    i = start_i[0]
    cond = strip(cond)
    if kind_of(cond) != K.BINARY_OPERATOR or binop(cond) != "<" or len(children_of(cond)) != 2:
        return None
    lhs, rhs = children_of(cond)
    if local(b, lhs, pointer=False) != i or _field_of(b, rhs, DIM_FIELD) != t:
        return None
    inc = strip(inc)
    if kind_of(inc) != K.UNARY_OPERATOR or unop(inc) not in ("++", "post++") or not children_of(inc) or \
            local(b, children_of(inc)[0], pointer=False) != i:
        return None
    # n *= T->size[i]; the whole body, so nothing else changes n, i or T.
    body = strip(body)
    while kind_of(body) == K.COMPOUND_STMT and len(children_of(body)) == 1:
        body = strip(children_of(body)[0])
    if kind_of(body) != K.COMPOUND_ASSIGNMENT_OPERATOR or binop(body) != "*=":
        return None
    if len(children_of(body)) != 2:
        return None
    lhs, rhs = children_of(body)
    rhs = strip(rhs)
    if local(b, lhs, pointer=False) != n or kind_of(rhs) != K.ARRAY_SUBSCRIPT_EXPR:
        return None
    if len(children_of(rhs)) != 2:
        return None
    array, index = children_of(rhs)
    if _field_of(b, array, SIZE_FIELD) != t or local(b, index, pointer=False) != i:
        return None
    return ir.Count(location(loop), n, t)
