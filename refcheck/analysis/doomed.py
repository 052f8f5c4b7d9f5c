"""Branch edges on which a path can only abort: where a condition's temporaries die unreported,
and where the other edge of a pointer comparison is what an assertion lets through.

A condition's temporaries die on the branch's edges, after the edge's assumption (so a result
known NULL there leaks nothing). On an edge from which every run ends at an abort, the path ends
before the loss could matter (nothing is checked at an abort), so their death reports no leak
there: `g_assert_null (f ())` is `if (f () == NULL) ; else g_assertion_message (...);`, whose
non-NULL edge aborts. What another holder keeps stays and is checked as before (`if ((t = f ())
== NULL) ...; t = u; abort ();` still overwrites t's reference). The walk follows straight-line
nodes and branches that integer constants assigned on the walk itself decide (GLib's `G_LIKELY`
when optimising tests a flag set by `if (e) v = 1; else v = 0;`), within a few nodes; anything
else is not doomed.
"""
from __future__ import annotations

from refcheck import ir
from refcheck.ir.cfg import FunctionCFG

_STEPS = 32  # a doomed arm is a call or two and a flag test; longer walks decide nothing more
_WRITES = (ir.Assign, ir.Load, ir.Kill, ir.Acquire, ir.Realloc, ir.Escape, ir.Shift)
_DECIDE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
           ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}


def doomed_edges(cfg: FunctionCFG, errors: str, const_vars: set) -> frozenset:
    """(branch node, successor) of the edges out of branches with dying temporaries (`post`
    ops) from which every run ends at a `stop` node (or an `error` one with errors="abort").
    `const_vars`: the integer variables the exploration decides branches by (only those
    branches are followed, so the walk and the exploration agree)."""
    ends = {"stop", "error"} if errors == "abort" else {"stop"}
    data = dict(cfg.graph.nodes(data="data"))
    out = set()
    for n, d in data.items():
        if d.kind != "branch" or not d.post:
            continue
        for succ in cfg.graph.successors(n):
            if _ends_in(succ, cfg, data, ends, const_vars):
                out.add((n, succ))
    return frozenset(out)


def asserted_edges(cfg: FunctionCFG, errors: str, const_vars: set) -> frozenset:
    """(branch node, successor) of the equal edges of pointer comparisons whose unequal edge can
    only abort (`g_assert (p == q)`, `assert (p == q)`): every run that goes on has p and q
    pointing to one object, which `Assumptions.equate` makes them."""
    ends = {"stop", "error"} if errors == "abort" else {"stop"}
    data = dict(cfg.graph.nodes(data="data"))
    out = set()
    for n, d in data.items():
        if d.kind != "branch" or type(d.cond) is not ir.SameObject:
            continue
        edges = list(cfg.graph[n].items())
        equal = [s for s, e in edges if e.get("branch") is True]
        unequal = [s for s, e in edges if e.get("branch") is False]
        if len(equal) == 1 and len(unequal) == 1 and _ends_in(unequal[0], cfg, data, ends, const_vars):
            out.add((n, equal[0]))
    return frozenset(out)


def _ends_in(node: int, cfg: FunctionCFG, data: dict, ends: set, const_vars: set) -> bool:
    consts: dict[str, int] = {}
    for _ in range(_STEPS):
        d = data[node]
        if d.kind in ends:
            return True
        if d.kind not in ("block", "branch"):
            return False
        for op in (*d.ops, *d.post):
            if type(op) is ir.Const:
                consts[op.var] = op.value
            elif type(op) in _WRITES:
                consts.pop(getattr(op, "dst", None) or getattr(op, "var", None), None)
        succs = list(cfg.graph[node].items())
        if d.kind == "branch":
            succs = _decided(d.cond, succs, consts, const_vars)
        if len(succs) != 1:
            return False
        node = succs[0][0]
    return False


def _decided(cond, succs: list, consts: dict, const_vars: set) -> list:
    """The one edge out of a branch that the walk's constants decide, else all of them."""
    if not isinstance(cond, ir.Fact) or not cond.simple:
        return succs
    var, op, k = cond.simple
    if var not in const_vars or var not in consts or op not in _DECIDE:
        return succs
    holds = _DECIDE[op](consts[var], k)
    return [(s, e) for s, e in succs if e.get("branch") is holds]
