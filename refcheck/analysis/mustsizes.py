"""Size facts every explored state has (issue 30): the first pass's view of `sizes`.

TH_TENSOR_APPLY2(r_, t) after `resizeAs(r_, t)` allocates its counters, then checks
`r__n != t_n` and raises "inconsistent tensor size" (THError). With errors=unwind that error
edge would lose the counters, but the exploration never takes it: its size facts
(`sizes.assume`) make it infeasible. The first pass (`prepass`) takes that edge out only where
every state the exploration can have at the test knows the sizes equal:

- a must-analysis over the exploration's own size transfer: facts are sets of the typed keys of
  `sizes` (`Same`, `CountOf`) with their values, met by intersection at merges (the
  exploration's joins keep the facts common to both sides, `Facts.meet`, so each state it
  explores has at least these: nothing else drops a size fact, the pruner included);
- each op drops at least what the exploration drops and adds only what it surely adds:
  `resizeAs`'s `SameSize` clears every fact and adds `Same(a, b)` (the exploration drops only
  the facts of the variables holding a's object); a call that is not pure clears; any variable
  written loses its facts; a store keeps the facts only where every variable its address
  names that could hold an object is shown (by the pass's own per-site flow) to hold an
  acquisition's live object on every path, which is when the exploration keeps them too
  (`sizes.on_store`), and then drops those of every variable of an acquisition's alias class;
- the equal edge of a size test adds nothing (the exploration adds `Same` only where it did not
  know the sizes equal already, through variables that may change later);
- an unequal edge is infeasible where the two counts' tensors are linked by a chain of `Same`
  facts (`sizes.known_equal` links more: it only finds more edges infeasible).
"""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.sizes import CountOf, Same

# No facts at all; the must-analysis starts every node but the entry at "not reached" (None).
NONE: frozenset = frozenset()

# The ops whose written variable loses its size facts (`Transfer.bind`, `invalidate`), as the
# attribute naming it.
_WRITES = {ir.Assign: "dst", ir.Load: "dst", ir.Shift: "dst", ir.Acquire: "dst", ir.Realloc: "dst",
           ir.Kill: "var", ir.Touch: "var", ir.Escape: "var"}


def has_size_tests(data: dict) -> bool:
    """Whether any branch tests sizes (else the pass has nothing to decide with the facts)."""
    return any(isinstance(d.cond, ir.SizeTest) for d in data.values())


def bindable(cfg, ops) -> frozenset:
    """The variables that may ever hold an object in the exploration's environment: pointer
    parameters, loads, acquisitions, and assignments of NULL or of such a variable. Any other
    variable in a store's address never makes the exploration forget its size facts."""
    out = {v for v, is_ptr in cfg.params if v is not None and is_ptr}
    copies: dict[str, list] = {}
    for op in ops:
        t = type(op)
        if t in (ir.Load, ir.Acquire, ir.Realloc) or (t is ir.Assign and op.null):
            out.add(op.dst)
        elif t is ir.Assign and op.src is not None:
            copies.setdefault(op.src, []).append(op.dst)
    todo = list(out)
    while todo:
        for dst in copies.get(todo.pop(), ()):
            if dst not in out:
                out.add(dst)
                todo.append(dst)
    return frozenset(out)


def _drop(facts: frozenset, var: str) -> frozenset:
    return frozenset(kv for kv in facts if not kv[0].mentions(kv[1], var))


class MustSizes:
    """The transfer of the must-analysis (see the module's text); facts: a frozenset of
    (key, value) items of `Facts.sizes`."""

    def __init__(self, cfg, conv, ops, acquired) -> None:
        self.conv = conv
        self.bindable = bindable(cfg, ops)
        self.acquired = acquired  # variable -> whether its alias class holds an acquisition's object

    def op(self, facts: frozenset, op, owned_by_site) -> frozenset:
        """The facts after `op`; `owned_by_site(v)`: v holds an acquisition's live object on
        every path reaching here (the pass's flow)."""
        t = type(op)
        if t is ir.SameSize:
            if op.a is None or op.b is None or op.a == op.b:
                return NONE
            return frozenset(((Same(*sorted((op.a, op.b))), True),))
        if t is ir.Count:
            return _drop(facts, op.var) | {(CountOf(op.var), op.tensor)}
        if not facts:
            return facts
        if t is ir.Call:
            name = op.callee
            if self.conv.matches("pure", name) or self.conv.same_size_arguments(name, 2) is not None:
                return facts
            return NONE
        if t is ir.Store:
            deps = [v for v in op.deps if v in self.bindable]
            if not deps or not all(owned_by_site(v) for v in deps):
                return NONE
            return frozenset(kv for kv in facts if not any(self.acquired(v) for v in _mentioned(kv)))
        if t is ir.Release:
            for v in op.vars:
                facts = _drop(facts, v)
            return facts
        attr = _WRITES.get(t)
        if attr is not None:
            return _drop(facts, getattr(op, attr))
        return facts

    @staticmethod
    def infeasible(facts: frozenset, cond: ir.SizeTest, taken: bool) -> bool:
        """Whether every state with these facts finds the `taken` edge of `cond` infeasible."""
        if taken == cond.equal or not facts:
            return False
        if cond.counts:
            counts = {k.var: v for k, v in facts if type(k) is CountOf}
            a, b = counts.get(cond.a), counts.get(cond.b)
        else:
            a, b = cond.a, cond.b
        return a is not None and b is not None and _linked(facts, a, b)


def _mentioned(kv) -> tuple:
    k, v = kv
    return (k.a, k.b) if type(k) is Same else (k.var, v)


def _linked(facts: frozenset, a: str, b: str) -> bool:
    """a and b are linked by a chain of `Same` facts (a part of `sizes.known_equal`)."""
    pairs = [k for k, _ in facts if type(k) is Same]
    seen, todo = {a}, [a]
    while todo:
        x = todo.pop()
        if x == b:
            return True
        for k in pairs:
            y = k.b if k.a == x else k.a if k.b == x else None
            if y is not None and y not in seen:
                seen.add(y)
                todo.append(y)
    return False
