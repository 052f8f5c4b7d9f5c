"""Which conditions a function's branches test, and which of them can correlate: the per-function
tables `Transfer` reads to decide whose answers a state remembers."""

from __future__ import annotations

from dataclasses import dataclass

from refcheck import ir
from refcheck.analysis.assume import null_key, same_key


@dataclass(frozen=True)
class ConditionTables:
    # Condition key -> the variables it reads (a pointer comparison's key: its two sides).
    cond_vars: dict
    # The keys of pointer comparisons (`assume.same_key`).
    pair_keys: frozenset
    # Integer variables whose constant values decide conditions (`own = 1; ... if (own)`).
    const_vars: set
    # Condition keys tested at a branch that is not contracted.
    kept: set
    # Only conditions tested at two places can correlate; remembering others only splits states.
    correlated: set


def condition_tables(data: dict, relevant: set[int] | None) -> ConditionTables:
    """The tables of the graph whose node data is `data`; `relevant`: the branch nodes whose
    conditions may matter (`slicing`), None: all. Run once per function, before its exploration."""
    cond_vars: dict = {}
    pair_keys: set = set()
    counts: dict = {}
    kept: set = set()
    const_vars: set[str] = set()
    for n, d in data.items():
        for op in d.ops:  # a flag field's store with its truth decides a later test of the field
            if type(op) is ir.Store and op.truth is not None:
                counts[op.target] = counts.get(op.target, 0) + 1
        cond = d.cond
        if isinstance(cond, ir.SizeTest):  # decided by size facts, else by its plain Fact
            cond = cond.fallback
        keep = relevant is None or n in relevant
        if isinstance(cond, ir.Fact):
            key, cond_vars[cond.key] = cond.key, cond.vars
            if keep and cond.simple:
                const_vars.add(cond.simple[0])
        elif isinstance(cond, ir.SameObject):
            key = same_key(cond)
            cond_vars[key] = frozenset((cond.a, cond.b))
            pair_keys.add(key)
        elif isinstance(cond, ir.NullTest):
            # Read only where the pointer holds no tracked object (`Assumptions.assume_null`).
            key = null_key(cond.var)
            cond_vars[key] = frozenset((cond.var,))
        else:
            key = None
        if key is not None:
            counts[key] = counts.get(key, 0) + 1
            if keep:
                kept.add(key)
        if keep and d.kind == "switch" and d.value:
            const_vars.add(d.value)
    correlated = {k for k, c in counts.items() if c > 1 and k in kept}
    return ConditionTables(cond_vars, frozenset(pair_keys), const_vars, kept, correlated)
