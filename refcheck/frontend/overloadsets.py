"""The one function of an overload set a dependent call can name, by its argument count.

In a template's pattern a call whose arguments depend on the template's parameters is left
unresolved: libclang names an overload set (`Require (PyObject_GetAttrString (this->p, name),
name)` in greenlet's `PyObjectPointer<T, TC>::PyRequireAttr`, the set holding `Require
(PyObject *, const std::string & = "")` and `Require (int)`), and the call was read as a call of
a bare name no record or body speaks for. Where exactly one function of the set takes the
call's number of arguments (defaults counted), C++ overload resolution can pick no other: the
call is that function's. A set with a template, a using-declaration or two candidates of that
arity stays unresolved (the bare name, as before).
"""

from __future__ import annotations

import ctypes
from functools import lru_cache

import clang.cindex as ci

from refcheck.frontend.clangutil import K, is_expression, kind_of
from refcheck.frontend.clangutil import kids as children_of

_FUNCTIONS = (K.FUNCTION_DECL, K.CXX_METHOD)


@lru_cache(maxsize=1)
def _lib():
    own = ctypes.CDLL(ci.conf.lib._name)
    own.clang_getNumOverloadedDecls.argtypes = [ci.Cursor]
    own.clang_getNumOverloadedDecls.restype = ctypes.c_uint
    own.clang_getOverloadedDecl.argtypes = [ci.Cursor, ctypes.c_uint]
    own.clang_getOverloadedDecl.restype = ci.Cursor
    return own


def _members(ref) -> list:
    lib = _lib()
    n = lib.clang_getNumOverloadedDecls(ref)
    out = []
    for i in range(min(n, 16)):
        c = lib.clang_getOverloadedDecl(ref, i)
        c = ci.Cursor.from_result(c, None, (ref,))  # keeps the unit, as the binding's results do
        if c is None:
            return []
        out.append(c)
    return out if n <= 16 else []


def _accepts(fn, n: int) -> bool:
    params = [p for p in children_of(fn) if kind_of(p) == K.PARM_DECL]
    defaults = sum(1 for p in params if any(is_expression(x) for x in children_of(p)))
    try:
        variadic = fn.type.is_function_variadic()
    except Exception:  # no prototype
        return False
    return len(params) - defaults <= n and (variadic or n <= len(params))


def by_arity(ref, n: int):
    """The one function of the overload set `ref` (an OVERLOADED_DECL_REF) that accepts `n`
    arguments, else None."""
    members = _members(ref)
    if not members or any(kind_of(m) not in _FUNCTIONS for m in members):
        return None
    fits = [m for m in members if _accepts(m, n)]
    return fits[0] if len(fits) == 1 else None
