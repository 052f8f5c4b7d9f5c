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

from dataclasses import replace

from refcheck import ir
from refcheck.conventions.pytypes import check_of
from refcheck.frontend.binding import kind_of, referenced, spelling
from refcheck.frontend.clangutil import K, expr_text, has_pointer_type
from refcheck.frontend.clangutil import kids as children_of


def type_test(b, c, fact: ir.Fact | None) -> ir.Fact | None:
    """`fact`, the lowering's fact of call condition `c`, with `pytype` where `c` is one
    type-check macro of a local pointer variable (a fact of its own where the call had none)."""
    if fact is not None and (type(fact) is not ir.Fact or fact.simple or fact.same):
        return fact
    found = check_of(expr_text(c))
    if found is None:
        return fact
    family, exact, name = found
    var = _argument(b, c, name)
    if var is None:
        return fact
    if fact is not None:  # a pure call's own key (`PyObject_TypeCheck`): kept, as argument tests read it
        return replace(fact, pytype=(var, family, exact))
    key = f"pytype:{family}{'!' if exact else ''} {var}"
    return ir.Fact(key, frozenset((var,)), pytype=(var, family, exact))


def _argument(b, c, name: str) -> str | None:
    """The variable the expansion reads under `name`: a pointer local or parameter."""
    todo = [c]
    while todo:
        x = todo.pop()
        if kind_of(x) == K.DECL_REF_EXPR and spelling(x) == name and has_pointer_type(x):
            return b.var(referenced(x))
        todo.extend(children_of(x))
    return None
