"""A fresh object returned owned where a parameter is NULL, and put into a container reached
from that parameter where it is not (issue 32, glib31's librest): `Summary.kept_unless_null`.

`rest_xml_node_add_child (parent, tag)` makes a node and, where `parent` is set, inserts it into
`parent->children` (or links it after a sibling found there) before returning it: the root where
parent is NULL (the caller's, to unref), the parent's child otherwise, documented `(transfer
none)`. Read as one record, the root's owned path made every child a new reference, so each
`add_child (group, ...)` was a leak and a child's variable reused RC007. The body says which:
every put of the returned object into a container happens where the parameter is known not to be
NULL, and a test of the parameter leads to a return on its NULL edge. A path that returns the
object owned although the parameter is set (a sibling link the analysis reads as a lent store)
is not told apart: where a caller passes an object the result is the keeper's.
"""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.state import Kind, ObjId, State
from refcheck.rules.events import Nullness


class NullKept:
    """Mixed into `Summarizer`, whose `params`, `results`, `glib` and `cfg` it reads. GLib code
    only (`glib`), where it was measured."""

    def init_null_kept(self) -> None:
        # Per object put into a container: the parameter indices known non-NULL at every put.
        self.set_at_put: dict = {}
        # Per return of a kept object: those indices at its puts.
        self.set_at_kept: list[frozenset[int]] = []

    def at_contained(self, st: State, oid) -> None:
        """`oid` put into a container (`Transfer.op_store` of an element) in state `st`."""
        here = frozenset(i for i, var in self.params
                         if (o := st.objs.get(ObjId(Kind.PARAM, var))) is not None and o.null is Nullness.NONNULL)
        before = self.set_at_put.get(oid)
        self.set_at_put[oid] = here if before is None else before & here

    def at_kept_return(self, oid) -> None:
        """A return of `oid`, an object the body put into a container (`Summarizer.at_return`)."""
        self.set_at_kept.append(self.set_at_put.get(oid, frozenset()))

    def kept_unless_null(self) -> int | None:
        """The parameter set at every put of every kept object returned, whose NULL the body tests
        with a return after it, where the body returns only fresh owned objects and kept ones
        (and NULL, and values nobody counts)."""
        kinds = {r[0] for r in self.results} - {"null", "none"}
        if not self.glib or kinds != {"owned", "kept"} or not self.set_at_kept:
            return None
        if any(r[1] is not None or r[2:] for r in self.results if r[0] == "owned"):
            return None  # a parameter handed back owned, or a held result: not a fresh object alone
        both = frozenset.intersection(*self.set_at_kept)
        tested = self._tested_with_return()
        found = sorted(i for i in both if self.params_by_index[i] in tested)
        return found[0] if found else None

    def _tested_with_return(self) -> frozenset[str]:
        """The variables of the body's NULL tests whose NULL edge reaches a return."""
        g = self.cfg.graph
        out = set()
        for n in g.nodes:
            d = g.nodes[n]["data"]
            if d.kind != "branch" or type(d.cond) is not ir.NullTest:
                continue
            null = [s for s in g.successors(n) if g.edges[n, s].get("branch") is False]
            if null and _reaches_return(g, null[0]):
                out.add(d.cond.var)
        return frozenset(out)


def _reaches_return(g, start: int) -> bool:
    seen, todo = {start}, [start]
    while todo:
        n = todo.pop()
        if g.nodes[n]["data"].kind == "return":
            return True
        for s in g.successors(n):
            if s not in seen:
                seen.add(s)
                todo.append(s)
    return False
