"""Calls whose result is their argument itself where a test of it holds, a new object elsewhere
(`Summary.argument_when`, read off the callee's body by `analysis.argtests`).

cvxopt's `Il = create_indexlist (n, args)` is `args` itself where `Matrix_Check (args)` holds,
and a new index matrix where it does not; the caller releases `Il` under `!Matrix_Check (args)`.
Where the caller tests the same thing of the same variable, the call splits on that test, a
condition like any other (`ir.Fact`), so that the caller's own test takes the matching edge: on
the true one the result is the argument (a release there releases what is not the caller's),
on the false one a new reference (left unreleased it leaks). A caller that never tests it gets
the plain owned result, as before the record said more.
"""

from __future__ import annotations

import clang.cindex as ci

from refcheck import ir
from refcheck.frontend.binding import of_kinds
from refcheck.frontend.conditions import key_of

_ARGUMENT = "@"  # `analysis.argtests.ARGUMENT`: the argument's place in the test's key
_CALLS = frozenset({ci.CursorKind.CALL_EXPR.value})


def argument_test(b, summary, values: list) -> tuple[str, str] | None:
    """(condition key, variable) of the record's test applied to this call's argument, where the
    argument is a variable and the function tests the same thing of it somewhere, else None."""
    if not summary.argument_when:
        return None
    index, template = summary.argument_when
    var = values[index] if index < len(values) else None
    if not isinstance(var, str) or var.startswith("$"):
        return None
    key = " ".join(var if t == _ARGUMENT else t for t in template.split(" "))
    head = template.split(" ", 1)[0]  # `call:PyObject_TypeCheck(`
    if not head.startswith("call:") or not head.endswith("("):
        return None
    name = head[5:-1]
    for call in of_kinds(b.fn, _CALLS):
        if b.callee_of(call)[1] == name:
            found = key_of(b, call)
            if found is not None and found[0] == key:
                return key, var
    return None


def argument_split(b, loc, name: str, key: str, var: str, acquire) -> str:
    """The call's result split on the test `key` of `var`: `var` itself where it holds, where it
    does not the new reference `acquire(t)` emits into t."""
    t = b.temp(f"{name}(...)")
    # The callee's test reads the argument's object (`Py_TYPE (ob)`): not NULL on either edge, so
    # a caller's `if (A && !Matrix_Check (A))` has no NULL edge that skips the release.
    b.emit(ir.Use(loc, var, deref=True))
    test = b.node("branch", loc, cond=ir.Fact(key, frozenset((var,))),
                  text=f"{name} returns {b.names.get(var, var)} itself")
    same, fresh, join = b.node("block"), b.node("block"), b.node("block")
    b.start(test)
    b.edge(test, same, True)
    b.edge(test, fresh, False)
    b.cur = same
    b.emit(ir.Assign(loc, t, var))
    b.goto(join)
    b.cur = fresh
    acquire(t)
    b.goto(join)
    b.cur = join
    return t
