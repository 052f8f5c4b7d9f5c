"""Remembered branch answers that no later node can read: a condition key's own liveness.

`Transfer.correlated` remembers the answer of a condition tested at two places, or at one
place inside a loop (`assume.loop_tests`: the next trip may test the same text again). The
variable liveness (`liveness.Liveness.facts`) drops such a fact only once a variable it mentions
is dead, but a loop's cursor is live across the whole loop: `for (node = first; node; node =
node->next) { if (strcmp (node->name, "ref") == 0) ...; if (strcmp (node->name, "title") ...`
kept every test's answer about the current node from the test to the end of the trip, where
`node = node->next` forgets them all. Each answer split the states it rode on (up to
`explore.FACT_VARIANTS` sets per ownership core), and a parser's loop over element names with
a dozen tests went past the state bound (totem-pl-parser's parse_asx_entry, parse_xspf_track).

Here a key is live at a node's entry where some path from it reaches a branch testing that key
before an op that invalidates facts about a variable the key mentions (the invalidations the
variable liveness counts, `liveness._op_effect`). A dead key's answer is dropped: no transfer
can read it, so every path explored goes on as it would have, only states that differed in it
alone are explored once. Keys read elsewhere than at a branch are never dropped: pointer
comparisons (a later null test reads them, `Assumptions.assume`), the identity tests
(`IdentityTests.guarded_fresh`, read at an acquisition; `argtests`, read at a return) and the texts of stored-to locations
(`Summarizer.slot_state` reads `if (*result)`'s answer at a return).
"""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.bitsets import Bits, backward


def branch_key(cond):
    """The key a branch's condition is remembered under, or None (as `Transfer.__init__`)."""
    if isinstance(cond, ir.SizeTest):
        cond = cond.fallback
    if isinstance(cond, ir.Fact):
        return cond.key
    return None


class CondLiveness:
    """Per node, the droppable condition keys live at its entry (`live`, as bits of `keys`)."""

    def __init__(self, cfg, cond_vars: dict, droppable, effect, solve: bool = True) -> None:
        """`effect`: an op's (env kills, fact kills, reads), `liveness._op_effect`; `solve`: False
        leaves the fixpoint to the caller (`bitsets.solve_together`)."""
        self.keys = keys = Bits()
        by_var: dict[str, int] = {}
        for k in droppable:
            b = keys.of((k,))
            for v in cond_vars.get(k, ()):
                by_var[v] = by_var.get(v, 0) | b
        gen: dict[int, int] = {}
        keep: dict[int, int] = {}
        self.read: dict[int, int] = {}
        for n, d in cfg.graph.nodes(data="data"):
            k_ops = _kills(d.ops, by_var, effect)
            k_post = _kills(d.post, by_var, effect)
            key = branch_key(d.cond)
            r = keys.bit.get(key, 0) if key is not None else 0
            # Forward: the ops, then the branch's test, then the post ops.
            self.read[n] = r
            gen[n] = r & ~k_ops
            keep[n] = ~(k_ops | k_post)
        self.problem = ((gen,), (keep,))
        if solve:
            self.solved(backward(cfg.graph, *self.problem))

    def solved(self, lives) -> None:
        """Take the fixpoint's solution."""
        self.problem = None
        (self.live,) = lives

    def died(self, pred: int | None, node: int, conds: dict) -> list:
        """The keys of `conds` dead at `node`'s entry (with `pred`: only those that could be alive
        leaving `pred`, the rest were dropped there)."""
        bit = self.keys.bit
        alive = self.live[node]
        if pred is not None and not (self.live[pred] | self.read[pred]) & ~alive:
            return []
        return [k for k in conds if bit.get(k, 0) & ~alive]

    def drop(self, pred: int | None, node: int, conds: dict) -> None:
        """Forget in `conds` (a state's, entering `node` from `pred`) the answers dead there."""
        for k in self.died(pred, node, conds):
            del conds[k]


def _kills(ops, by_var: dict, effect) -> int:
    out = 0
    for op in ops:
        for v in effect(op)[1]:
            out |= by_var.get(v, 0)
    return out


def droppable_keys(tr) -> frozenset:
    """The remembered keys only a branch reads (see the module's docstring)."""
    identity = {k for keys in tr.identity_tests.values() for k, _ in keys}
    identity.update(tr.argument_tests)  # read at a return (`Summarizer.at_tests`)
    identity.update(tr.flag_tests)  # so (`Summarizer.at_flag_return`)
    stored = {op.target for d in tr.data.values() for op in (*d.ops, *d.post)
              if type(op) is ir.Store and op.target}
    return frozenset(k for k in tr.correlated
                     if isinstance(k, str) and k not in tr.pair_keys and k not in identity
                     and k not in stored and k not in tr.slots)
