"""What the transfer reads off the function's graph once, before any state: store targets, the
variables whose nullness a test reads, and the nodes a state passes unchanged."""

from __future__ import annotations

from refcheck import ir


class GraphTables:
    """A mixin of `Transfer`: it reads `self.data` (the graph's node data), `self.correlated`
    and `self.const_vars`, which `Transfer.__init__` sets."""

    def store_targets(self, params: set) -> tuple[frozenset, frozenset, frozenset]:
        """The targets of the graph's stores through a parameter, by a sink call, and of a cleanup
        variable's value (one pass over the ops)."""
        through, sink, alias = set(), set(), set()
        for d in self.data.values():
            for op in (*d.ops, *d.post):
                if type(op) is ir.Store and op.target:
                    if op.through in params:
                        through.add(op.target)
                    if op.sink:
                        sink.add(op.target)
                    if op.alias:
                        alias.add(op.target)
        return frozenset(through), frozenset(sink), frozenset(alias)

    def null_tables(self) -> tuple[set, set]:
        """The variables whose nullness a later test can ask (directly, or by a comparison with a
        variable that may hold a NULL constant): the only ones an equality fact can help; and
        those whose nullness some branch reads at all (null tests, pointer comparisons):
        elsewhere what a dereference proves would only split states (see op_use)."""
        nulled = {op.dst for d in self.data.values() for op in d.ops if isinstance(op, ir.Assign) and op.null}
        tested: set[str] = set()
        read: set[str] = set()
        for d in self.data.values():
            cond = d.cond
            if isinstance(cond, ir.NullTest):
                tested.add(cond.var)
                read.add(cond.var)
            elif isinstance(cond, ir.SameObject):
                tested.update(x for x, y in ((cond.a, cond.b), (cond.b, cond.a)) if y in nulled)
                read.update((cond.a, cond.b))
        return tested, read

    def stepped_on_copies(self) -> frozenset:
        """The nodes whose step never changes the state it is given: no ops, and a branch or a
        switch, whose every edge gets a copy (`Transfer.step`: `assume` and `assume_case` copy,
        post ops run on the copies). The visited map can keep such a state's own facts as the
        variant explored instead of a copy (`explore`; 26% of THTensor.c's states sit at
        op-less branches)."""
        return frozenset(n for n, d in self.data.items() if not d.ops and d.kind in ("branch", "switch"))

    def passes_unchanged(self, node: int) -> bool:
        """Every successor of `node` gets the state it entered with, unchanged: no ops, and no
        condition that the state can decide or that is remembered (a contracted or uncorrelated
        condition, a switch over a variable whose value is not tracked)."""
        d = self.data[node]
        if d.ops or d.post:
            return False
        kind = d.kind
        if kind == "branch":
            cond = d.cond
            if isinstance(cond, ir.Opaque):
                return True
            return (type(cond) is ir.Fact and cond.key not in self.correlated and cond.same is None
                    and cond.pytype is None
                    and not (cond.simple and cond.simple[0] in self.const_vars))
        if kind == "switch":
            return d.value is None or d.value not in self.const_vars
        return kind not in ("return", "exit", "error", "stop") and d.cond is None and d.value is None
