"""CPython type checks of a local pointer as branch facts (issue 31, cpy44's pyodbc).

`PyBytes_Check (v)` expands to a call of `PyType_HasFeature (Py_TYPE (v), ...)` (or
`PyObject_TypeCheck`, `Py_IS_TYPE`, by version and type), which no table calls pure, so the
test was opaque: a path could take its false edge with v holding the fresh bytes of
`PyUnicode_AsUTF8String`. Read from the macro as written (the expansion differs between
Python versions), the test becomes a `Fact` keyed on the family and the variable, with
`Fact.pytype` for the analysis to decide from what v holds (`conventions.pytypes`); the same
test of an unchanged variable then correlates as any fact's.
"""

from __future__ import annotations

import re

from refcheck import ir
from refcheck.conventions.pytypes import check_of
from refcheck.frontend.binding import kind_of, referenced, spelling
from refcheck.frontend.clangutil import K, expr_text, has_pointer_type, strip
from refcheck.frontend.clangutil import kids as children_of


def type_test(b, c, fact: ir.Fact | None, key_of) -> ir.Fact | None:
    """The fact of call condition `c` where it is one built-in type-check macro of a local
    pointer or a loaded location (with `pytype`), else `fact`, the lowering's own.
    `key_of`: `conditions.key_of`, a location's structural key."""
    if fact is not None and (type(fact) is not ir.Fact or fact.simple or fact.same):
        return fact
    found = check_of(expr_text(c))
    if found is None:
        return fact
    family, exact, name = found
    arg = _argument(c, name)
    if arg is None:
        return fact
    if kind_of(arg) == K.DECL_REF_EXPR:
        var, loaded = b.var(referenced(arg)), None
        if var is None:
            return fact
        text, vars_ = var, frozenset((var,))
    else:  # `pInfo->cell`: the object loaded from there (`ObjId(Kind.FIELD, key)`)
        found_key = key_of(b, arg)
        if found_key is None:
            return fact
        var, loaded = None, found_key[0]
        text, vars_ = loaded, frozenset(found_key[1])
    # Keyed on the family and what is tested, whatever the macro expands to: a check of a
    # location is found by that key (`analysis.typefacts.location_key`).
    return ir.Fact(f"pytype:{family}{'!' if exact else ''} {text}", vars_, pytype=(var, loaded, family, exact))


def _argument(c, text: str):
    """The pointer expression the expansion reads as its argument `text` (a variable or a
    member access, as written). Inside the expansion a cursor's extent is the macro's, so the
    argument is matched by its names (`pInfo->cell`: `pInfo`, then `cell`)."""
    wanted = re.split(r"\s*(?:->|\.)\s*", text)
    todo = [c]
    while todo:
        x = todo.pop()
        if kind_of(x) in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR) and has_pointer_type(x) and _names(x) == wanted:
            return x
        todo.extend(children_of(x))
    return None


def _names(x) -> list[str] | None:
    """The names a variable or a chain of member accesses reads, outermost first."""
    out: list[str] = []
    while kind_of(x) == K.MEMBER_REF_EXPR:
        out.append(spelling(x))
        kids = children_of(x)
        if len(kids) != 1:
            return None
        x = strip(kids[0])
    if kind_of(x) != K.DECL_REF_EXPR:
        return None
    out.append(spelling(x))
    return out[::-1]
