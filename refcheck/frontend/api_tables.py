"""Calls through a library's function-pointer table, named as the library's headers name them.

NumPy's C API reaches an extension as macros over a table its import fills in:
`#define PyArray_FromAny (*(PyObject * (*)(PyObject *, PyArray_Descr *, int, int, int, PyObject *))
PyArray_API[69])` (numpy/__multiarray_api.h; PyUFunc_API in __ufunc_api.h). After the preprocessor
the call is `(*(cast) PyArray_API[69])(...)`, an indirect call with no callee name; refcheck names
it by the macro that expands to it, so it gets that function's summary record. The names come
from the text of the header that declares the table (conventions.api_tables lists the table
variables): the macros are defined in the same header, each as a cast of one element.
"""

from __future__ import annotations

import re
from functools import lru_cache

from refcheck.conventions import Conventions
from refcheck.frontend.clangutil import K, constant, kind_of, referenced, strip
from refcheck.frontend.clangutil import kids as children_of

# `#define NAME (*(TYPE (*)(ARGS)) TABLE[N])`, continuation lines joined; the cast may nest parentheses.
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+\(\*\(.*\)[ \t]*(\w+)[ \t]*\[[ \t]*(\d+)[ \t]*\]\)[ \t]*$",
                     re.MULTILINE)


def api_call_name(call, conv: Conventions) -> str | None:
    """The name of the function a call through a configured table reaches (`PyArray_FromAny` for
    `(*(...) PyArray_API[69])(...)`), or None: not such a call, or a slot no macro names."""
    if not conv.api_tables:
        return None
    found = _table_element(call)
    if found is None:
        return None
    base, index = found
    decl = referenced(base)
    where = decl.location.file if decl is not None else None
    if where is None:
        return None
    names = header_names(where.name, tuple(conv.api_tables))
    # The table's own name, or (PY_ARRAY_UNIQUE_SYMBOL renames the variable) the one table the
    # header defines macros over.
    table = base.spelling if base.spelling in conv.api_tables else None
    if table is None:
        tables = {t for t, _ in names}
        table = next(iter(tables)) if len(tables) == 1 else None
    return names.get((table, index)) if table is not None else None


def _table_element(call):
    """(the table variable's reference, the constant index) when the callee is `*(cast) T[N]`."""
    kids = children_of(call)
    if not kids:
        return None
    c = strip(kids[0])
    while kind_of(c) == K.UNARY_OPERATOR:  # the `*` of `(*(cast) T[N])`
        inner = children_of(c)
        if not inner:
            return None
        c = strip(inner[-1])
    if kind_of(c) != K.ARRAY_SUBSCRIPT_EXPR:
        return None
    parts = children_of(c)
    if len(parts) != 2:
        return None
    base, index = strip(parts[0]), parts[1]
    if kind_of(base) != K.DECL_REF_EXPR:
        return None
    n = constant(index)
    return (base, n) if n is not None else None


@lru_cache(maxsize=64)
def header_names(path: str, tables: tuple[str, ...]) -> dict[tuple[str, int], str]:
    """(table, index) -> the macro's name, from the `#define`s of the header at `path`."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return {}
    text = re.sub(r"\\\r?\n", " ", text)
    return {(m.group(2), int(m.group(3))): m.group(1) for m in _DEFINE.finditer(text) if m.group(2) in tables}
