"""Holders that outlive the function (issue 31, cpy41's gmpy2 `GMPy_CTXT_Get`).

A call that keeps its own reference to an argument (Effect.KEEP: `PyContextVar_Set (var, ctx)`,
`PyDict_SetItem (d, k, v)`) keeps it in its first argument. Where that holder is a global or
static variable, or memory a parameter reaches (`self->cache`, the caller's own dict), it
outlives the function: an object the function returns after keeping it there is also held by
someone else, so the caller's one release of the result does not free it (`Summary.result_held`).
A local's holder (`l = PyList_New (0); PyList_Append (l, x); Py_DECREF (l);`) may go first: no.
"""

from __future__ import annotations

from refcheck.frontend.clangutil import K, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.statics import is_global

# Expressions whose value lives in memory their first child names: `p->f`, `a[i]`, `*p`.
_THROUGH = (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR)


def lasting_holder(arg) -> bool:
    """`arg` names a global or static variable, a parameter, or memory reached from one."""
    c = strip(arg)
    for _ in range(16):  # a chain of member reads, subscripts and dereferences
        k = kind_of(c) if c is not None else None
        if k in _THROUGH or (k == K.UNARY_OPERATOR and unop(c) == "*"):
            kids = list(children_of(c))
            if not kids:
                return False
            c = strip(kids[0])
            continue
        break
    if c is None or kind_of(c) != K.DECL_REF_EXPR:
        return False
    d = referenced(c)
    return d is not None and (kind_of(d) == K.PARM_DECL or is_global(c))
