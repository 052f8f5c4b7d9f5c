"""States equal up to the numbering of stale views share a visited-map key (analysis/symmetry.py)."""

from __future__ import annotations

from refcheck.analysis.state import Facts, Kind, Obj, ObjId, State
from refcheck.analysis.symmetry import renumbered_core
from refcheck.rules.events import Gone, Nullness, Origin
from tests.analysis.test_states import L

SITE = "result:get( node"


def _view(line: int) -> Obj:
    return Obj(0, Gone.NO, Nullness.MAYBE, Origin.FIELD, L(line), "get", line)


def _state(binding: dict, stored: dict | None = None) -> State:
    """`binding`: variable -> generation of SITE's stale view it holds."""
    env = {v: ObjId(Kind.STALE, SITE, g) for v, g in binding.items()}
    objs = {oid: _view(10 + oid.gen) for oid in env.values()}
    return State(env, objs, Facts(stored=stored or {}))


def test_swapped_generations_are_one_key():
    a, b = _state({"title": 0, "uri": 1}), _state({"title": 1, "uri": 0})
    assert a.core() != b.core()
    key_a, key_b = renumbered_core(a) or a.core(), renumbered_core(b) or b.core()
    assert key_a == key_b


def test_gaps_are_closed_and_different_sharings_stay_apart():
    gap, dense = _state({"title": 0, "uri": 2}), _state({"title": 0, "uri": 1})
    assert (renumbered_core(gap) or gap.core()) == (renumbered_core(dense) or dense.core())
    shared = _state({"title": 0, "uri": 0})
    assert (renumbered_core(shared) or shared.core()) != (renumbered_core(dense) or dense.core())


def test_a_fact_naming_a_stale_view_keeps_the_plain_key():
    st = _state({"title": 1}, stored={"node->data": ObjId(Kind.STALE, SITE, 1)})
    assert renumbered_core(st) is None
