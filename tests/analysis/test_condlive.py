"""Remembered branch answers no later branch reads (`analysis.condlive`), and views keyed
without their load site (`state.Obj.ident`): fewer states, the same findings."""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.condlive import CondLiveness, droppable_keys
from refcheck.analysis.explore import explore
from refcheck.analysis.liveness import _op_effect
from refcheck.analysis.state import Facts, Kind, Obj, ObjId, State
from refcheck.analysis.transfer import Transfer
from refcheck.ir.cfg import Node
from refcheck.rules import RULES
from refcheck.rules.events import Gone, Nullness, Origin
from tests.analysis.test_states import CONV, L, make

REF = "call:strcmp( 2 n str:ref"


def _names_loop():
    # v = NULL; n = first; while (more) { if (strcmp (n, "ref") == 0) v = p; use (n); n = next; }
    # if (v) ...; return;   n is read all along, so the variable liveness keeps the answer about
    # it; the answer is read again only after n changes.
    return make([
        Node("entry", L(1)), Node("exit", L(9)),
        Node("block", ops=[ir.Assign(L(2), "v", None), ir.Assign(L(2), "n", None)]),
        Node("branch", L(3), cond=ir.Opaque("more"), text="more"),
        Node("branch", L(4), cond=ir.Fact(REF, frozenset({"n"})), text="strcmp"),
        Node("block", ops=[ir.Assign(L(5), "v", "p")]),
        Node("block", ops=[ir.Use(L(6), "n"), ir.Assign(L(6), "n", None)]),
        Node("branch", L(7), cond=ir.NullTest("v"), text="v"),
        Node("return", L(8)),
    ], [(0, 2), (2, 3), (3, 4, True), (3, 7, False), (4, 5, True), (4, 6, False), (5, 6), (6, 3),
        (7, 8, True), (7, 8, False), (8, 1)], params=[("p", False)])


def test_a_loop_test_is_remembered_and_droppable():
    cfg = _names_loop()
    tr = Transfer(cfg, CONV)
    assert REF in tr.correlated  # a loop's test: the next trip may test it again (assume.loop_tests)
    assert droppable_keys(tr) == {REF}


def test_the_answer_dies_where_every_path_to_the_test_changes_n_first():
    cfg = _names_loop()
    live = CondLiveness(cfg, Transfer(cfg, CONV).cond_vars, {REF}, _op_effect)
    bit = live.keys.bit[REF]
    assert live.live[3] & bit and live.live[4] & bit
    assert not live.live[5] & bit and not live.live[6] & bit and not live.live[2] & bit
    assert live.died(4, 5, {REF: True}) == [REF] and live.died(3, 4, {REF: True}) == []


def _explore(cfg, monkeypatch=None):
    """Per node, the remembered answers of the states explored there; without the cut when
    `monkeypatch` is given. Every branch and variable is kept (no contraction, nothing untracked)."""
    import sys
    seen: dict = {}
    if monkeypatch is not None:
        monkeypatch.setattr(sys.modules["refcheck.analysis.explore"], "droppable_keys", lambda tr: frozenset())
    result = explore(cfg, CONV, RULES.values(), contract=False, untrack=False,
                     observe=lambda n, st: seen.setdefault(n, set()).add(tuple(sorted(st.facts.conds.items()))))
    return seen, result


def test_the_arms_join_without_the_answer_and_findings_do_not_change(monkeypatch):
    cfg = _names_loop()
    seen, cut = _explore(cfg)
    kept, before = _explore(cfg, monkeypatch)
    assert seen[6] == {()} and len(kept[6]) == 2  # without the cut: one state per answer
    assert cut.states < before.states
    assert cut.findings == before.findings == []


def _twice():
    # if (c) t = new();  n = 1;  if (c) free(t);  return;   c is read again: its answer stays.
    c = ir.Fact("c", frozenset({"c"}))
    return make([
        Node("entry", L(1)), Node("exit", L(9)),
        Node("branch", L(2), cond=c, text="c"),
        Node("block", ops=[ir.Acquire(L(3), "t", "THFloatTensor_new")]),
        Node("block", ops=[ir.Assign(L(4), "n", None)]),
        Node("branch", L(5), cond=c, text="c"),
        Node("block", ops=[ir.Release(L(6), ("t",), "THFloatTensor_free")]),
        Node("return", L(7)),
    ], [(0, 2), (2, 3, True), (2, 4, False), (3, 4), (4, 5), (5, 6, True), (5, 7, False), (6, 7), (7, 1)],
        params=[("c", False)])


def test_an_answer_a_later_branch_reads_is_kept():
    cfg = _twice()
    live = CondLiveness(cfg, Transfer(cfg, CONV).cond_vars, {"c"}, _op_effect)
    bit = live.keys.bit["c"]
    assert all(live.live[n] & bit for n in (2, 3, 4, 5))
    assert explore(cfg, CONV, RULES.values()).findings == []  # no leak on the correlated path


def _obj(line: int, owned: int = 0, origin: Origin = Origin.FIELD) -> Obj:
    return Obj(owned, Gone.NO, Nullness.NONNULL, origin, L(line), "node->data", line)


def test_views_that_differ_only_in_their_load_site_are_one_state():
    oid = ObjId(Kind.FIELD, "node->data")
    a = State({"x": oid}, {oid: _obj(3)}, Facts())
    b = State({"x": oid}, {oid: _obj(5)}, Facts())
    assert a.objs != b.objs and a.core() == b.core()
    # Owned (retained) or acquired, where it came from is part of what a report says: apart.
    a2 = State({"x": oid}, {oid: _obj(3, 1, Origin.RETAIN)}, Facts())
    b2 = State({"x": oid}, {oid: _obj(5, 1, Origin.RETAIN)}, Facts())
    assert a2.core() != b2.core()
    # Nullness is no load site: views known NULL and not NULL stay apart.
    c = State({"x": oid}, {oid: Obj(0, Gone.NO, Nullness.NULL, Origin.FIELD, L(3), "node->data", 3)}, Facts())
    assert c.core() != a.core()
