"""Per-function "may raise" summaries for errors="unwind" (issue 14).

In Lua torch an error raised inside a callee longjmps past the caller, so every reference the
caller still owns at the call leaks, just as at a THError of its own. A function of the unit may
raise when its body calls an error function (`THError`), a conditional error (`_THArgCheck`,
`__THCudaCheck`), a callee of the `may-raise` list, or a function of the unit that may raise,
on any path (read from the cursors: every call counts, whatever condition guards it), or throws.
"""

from __future__ import annotations

from refcheck import ir
from refcheck.conventions import Conventions
from refcheck.frontend.clangutil import K, qualified_name
from refcheck.frontend.graph import GraphBuilder, callee_of
from refcheck.findings import Location


def may_raise_functions(functions: list, conv: Conventions) -> frozenset[str]:
    """The names of the functions among `functions` (definition cursors) that may raise."""
    calls: dict[str, set[str]] = {}
    raising: set[str] = set()
    for fn in functions:
        name = qualified_name(fn)
        callees = calls.setdefault(name, set())
        for c in fn.walk_preorder():
            k = c.kind
            if k == K.CALL_EXPR:
                callee = callee_of(c)[1]
                if not callee:
                    continue
                if _raises(conv, callee):
                    raising.add(name)
                    break
                callees.add(callee)
            elif k == K.CXX_THROW_EXPR:
                raising.add(name)
                break
    # Callers of raising functions raise too: propagate backwards to a fixed point.
    callers: dict[str, set[str]] = {}
    for name, callees in calls.items():
        for callee in callees:
            callers.setdefault(callee, set()).add(name)
    todo = list(raising)
    while todo:
        for caller in callers.get(todo.pop(), ()):
            if caller not in raising:
                raising.add(caller)
                todo.append(caller)
    return frozenset(raising)


def _raises(conv: Conventions, name: str) -> bool:
    return (conv.classify(name) == "error" or conv.error_condition(name) is not None
            or conv.matches("may_raise", name))


def raise_split(b: GraphBuilder, loc: Location, name: str) -> None:
    """Before a call that may raise: an edge to an error node (the callee raised) and one on."""
    n = b.node("branch", loc, cond=ir.Opaque(f"{name} raises"), text=f"{name} raises")
    err, on = b.error_node(loc, f"an error raised in {name}"), b.node("block")
    b.start(n)
    b.edge(n, err, True)
    b.edge(n, on, False)
    b.cur = on
