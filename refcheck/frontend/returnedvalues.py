"""C++ `return p;` from a function whose result is a class built from p: the reference goes to
the caller inside the value (fastnumbers' `RawPayload<PyObject *>`, a std::variant, returned
by its converting constructor from `PyNumber_Long (o)`)."""

from __future__ import annotations

import clang.cindex as ci

from refcheck import ir
from refcheck.frontend.binding import arguments
from refcheck.frontend.clangutil import K, has_pointer_type, kind_of, referenced
from refcheck.frontend.conditions import NULL


def constructed_from(fn, returned) -> list | None:
    """The arguments of the constructor call `returned` (stripped) when it builds the result of
    fn, a function not returning a pointer; None for any other return."""
    if returned is None or kind_of(returned) != K.CALL_EXPR or has_pointer_type(returned):
        return None
    ctor = referenced(returned)
    if ctor is None or kind_of(ctor) != K.CONSTRUCTOR:
        return None
    if fn is not None and kind_of(fn) != K.LAMBDA_EXPR and fn.result_type.get_canonical().spelling \
            != returned.type.get_canonical().spelling:
        return None  # a temporary converted again (`return Other(T(p))`): not the value returned
    return list(arguments(returned))


def lower_constructed(b, loc, args: list) -> None:
    """Lower the constructor's arguments for their effects; what a pointer argument holds is no
    longer this function's to release (ir.Escape): the caller owns the value built from it."""
    for a in args:
        v = b.exprs.value(a)
        # A dependent argument in a template's pattern (`consuming (Require (PyObject_GetAttrString
        # (this->p, name)))`) has no type yet: a tracked value is a pointer all the same.
        if (has_pointer_type(a) or a.type.kind == ci.TypeKind.DEPENDENT) and v not in (None, NULL):
            b.emit(ir.Use(loc, v))  # an object released before it is handed over: RC003
            b.emit(ir.Escape(loc, v))
