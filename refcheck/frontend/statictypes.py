"""Static type objects as singletons (issue 31, session 27: maxminddb c35e2c7, psycopg2 7b2e8f0a):
a global of one of the conventions' `singleton_types` (CPython's `static PyTypeObject FooType`) is
shared by the whole run like Py_None, so handing `(PyObject *) &FooType` to a steal
(`PyModule_AddObject`) with no reference of one's own is RC009.

Only in a function that never retains that object: a static object is never freed, so a count too
high is harmless and only one too low is a bug. Where the function retains it, its bookkeeping is
left untracked as before; tracking every retained type across a module init's unchecked adds
(pyodbc's `PyInit_pyodbc`: each add splits on its result) multiplied the states past the limit."""

from __future__ import annotations

import clang.cindex as ci

from refcheck.frontend.binding import of_kinds, referenced
from refcheck.frontend.clangutil import K, kind_of, strip, unop
from refcheck.frontend.clangutil import kids as children_of

_CALLS = frozenset({ci.CursorKind.CALL_EXPR.value})


def static_object(ref, b) -> bool:
    """`ref`, a global that is no tracked local, is an object of one of the `singleton_types` that
    the function being lowered never retains (`Py_INCREF (&FooType)` anywhere in it)."""
    conv = b.conv
    if not conv.singleton_types:
        return False
    t = ref.type
    if not (conv.matches("singleton_types", t.spelling) or conv.matches("singleton_types", t.get_canonical().spelling)):
        return False
    if b.retained_statics is None:
        b.retained_statics = _retained(b)
    return ref.spelling not in b.retained_statics


def _retained(b) -> frozenset[str]:
    """The globals whose address a retain of the function takes (`Py_INCREF (&FooType)`,
    `Py_NewRef ((PyObject *) &FooType)`)."""
    out = set()
    for call in of_kinds(b.fn, _CALLS):
        args = list(call.get_arguments())
        if not args or b.summary_of(*b.callee_of(call)).role != "retain":
            continue
        a = strip(args[0])
        if kind_of(a) != K.UNARY_OPERATOR or unop(a) != "&":
            continue
        inner = next(iter(children_of(a)), None)
        inner = strip(inner) if inner is not None else None
        if inner is not None and kind_of(inner) == K.DECL_REF_EXPR:
            ref = referenced(inner)
            if ref is not None and kind_of(ref) == K.VAR_DECL:
                out.add(ref.spelling)
    return frozenset(out)

