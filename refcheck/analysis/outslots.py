"""The locations a function writes through its pointer parameters, read off its graph before
its exploration (the summarizer's out-parameter slots, the transfer's flag targets)."""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.state import Kind, ObjId
from refcheck.rules.events import Gone


def slot_keys(cfg, index: dict) -> dict[int, set]:
    """Per pointer parameter's index, the location keys of the stores through it: known before
    the exploration, so that a return reached before the first store explored has its slot's
    state too (fixtures/forwarded_fills.c's early `return -1`)."""
    slots: dict[int, set] = {}
    for _, d in cfg.graph.nodes(data="data"):
        for op in d.ops if d is not None else ():
            if type(op) is ir.Store and op.target and op.through in index:
                slots.setdefault(index[op.through], set()).add(op.target)
    return slots


def flag_targets(cfg, data: dict) -> dict:
    """Location key -> parameter index of the integer constants stored through a pointer
    parameter (`*is_copy = false;`)."""
    index = {v: i for i, (v, is_ptr) in enumerate(cfg.params) if v is not None and is_ptr}
    return {op.target: index[op.through] for d in data.values() for op in d.ops
            if type(op) is ir.Store and op.truth is not None and op.through in index and op.target}


class Renewals:
    """The pointer parameters `p` whose value on entry, `*p`, the body gives up: released or
    consumed before any store through `p` (`Summarizer.replaced`), or handed back as the result,
    and kept at no return (grilo's `filter_key_list (..., GList **keys, ...)`: `g_list_free
    (*keys); *keys = new_list;`; its `filter_slow` returns the old list or frees it). With a fill
    every return passes, the record's `Effect.RENEW`: the caller's `&x` gives its old reference up
    and owns the new one (an in-out parameter). A return that never read `*p` counts as giving
    it up: the fill there drops it, the callee's own leak, not its caller's."""

    def __init__(self, slots: dict[int, set]):
        self.slots = slots  # the summarizer's: parameter index -> location keys stored through it
        self.returned: set[int] = set()
        self.kept: set[int] = set()

    def at_return(self, st, oid) -> None:
        """One return of the exploration, returning `oid` (None: nothing tracked). The entry
        value, once loaded, is the location's object (FIELD; STALE once stored over)."""
        for i, keys in self.slots.items():
            if oid is not None and oid.kind in (Kind.FIELD, Kind.STALE) and oid.site in keys:
                self.returned.add(i)
            elif any((o := st.objs.get(ObjId(Kind.FIELD, k))) is not None and o.gone is Gone.NO for k in keys):
                self.kept.add(i)

    def renewed(self, filled, given: set[int]) -> set[int]:
        """Of the parameters filled at every return, those whose entry value the body gives up
        (`given`: released or consumed on some path) and keeps at no return."""
        return {i for i in filled if (i in given or i in self.returned) and i not in self.kept}
