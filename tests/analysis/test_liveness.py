"""Forgetting dead variables' unowned objects and facts (`analysis.liveness`): fewer states, the
same findings, the same names in messages."""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.explore import explore
from refcheck.analysis.liveness import Liveness
from refcheck.analysis.view import state_table
from refcheck.ir.cfg import Node
from refcheck.rules import RULES
from tests.analysis.test_states import CONV, L, make


def _arms():
    # if (c) { a = new(); free(a); } else { b = new(); free(b); }  n = 1; if (n) ...; return;
    return make([
        Node("entry", L(1)), Node("exit", L(9)),
        Node("branch", L(2), cond=ir.Opaque("c"), text="c"),
        Node("block", ops=[ir.Acquire(L(3), "a", "THFloatTensor_new"), ir.Release(L(3), ("a",), "THFloatTensor_free")]),
        Node("block", ops=[ir.Acquire(L(4), "b", "THFloatTensor_new"), ir.Release(L(4), ("b",), "THFloatTensor_free")]),
        Node("block", ops=[ir.Assign(L(5), "n", None), ir.Const(L(5), "n", 1)]),
        Node("branch", L(6), cond=ir.Fact("n", frozenset({"n"}), ("n", "!=", 0)), text="n"),
        Node("block", ops=[ir.Use(L(7), "p")]),
        Node("return", L(8)),
    ], [(0, 2), (2, 3, True), (2, 4, False), (3, 5), (4, 5), (5, 6), (6, 7, True), (6, 8, False), (7, 8)],
        params=[("p", True)])


def test_liveness_of_bindings_and_facts():
    cfg = _arms()
    live = Liveness(cfg)
    assert "a" not in live.env[5] and "b" not in live.env[5]
    assert "p" in live.env[5] and "n" in live.facts[6] and "n" not in live.facts[7]


def test_liveness_sets_are_made_per_node_read_and_equal_the_eager_ones():
    from refcheck.analysis.bitsets import LazySets

    live = Liveness(_arms())
    assert isinstance(live.env, LazySets) and dict.__len__(live.env) == 0  # nothing made yet
    assert "p" in live.env[5] and list(dict.keys(live.env)) == [5]
    eager = {n: live.names.set_of(b) for n, b in live.env.bits.items()}
    assert live.env == eager and not live.env != eager
    assert live.env != {**eager, 5: frozenset()}
    # `died` from the bits is the set difference it was made as.
    for p, s in _arms().graph.edges:
        want = (live.facts[p] | live.names.set_of(live.touched[p])) - live.facts[s]
        assert live.died(p, s) == want


def test_dead_released_objects_merge_states_and_findings_do_not_change():
    cfg = _arms()
    table, pruned = state_table(cfg, CONV, RULES.values())
    full = explore(cfg, CONV, RULES.values(), prune=False)
    # Which arm's variable holds the released object no longer splits the join.
    assert len(table[5]) == 1 and "a2" not in table[5][0] and "a3" not in table[5][0]
    assert pruned.states < full.states
    assert pruned.findings == full.findings == []
    # n's constant is forgotten once no test of n can follow.
    assert all("n ==" not in s for s in table[7])


def test_a_dead_holder_that_names_the_object_is_kept():
    # d = new(); h = d; free(h); use(h)   d is dead after `h = d`, but messages name the object
    # by its first holder, d: the report must not change.
    cfg = make([
        Node("entry", L(1)), Node("exit", L(9)),
        Node("block", ops=[ir.Acquire(L(2), "d", "THFloatTensor_new"), ir.Assign(L(3), "h", "d")]),
        Node("block", ops=[ir.Release(L(4), ("h",), "THFloatTensor_free")]),
        Node("block", ops=[ir.Use(L(5), "h")]),
        Node("return", L(6)),
    ], [(0, 2), (2, 3), (3, 4), (4, 5)])
    pruned = explore(cfg, CONV, RULES.values())
    full = explore(cfg, CONV, RULES.values(), prune=False)
    assert [f.message for f in pruned.findings] == [f.message for f in full.findings]
    assert any("'d'" in f.message for f in pruned.findings)


def test_a_second_exploration_reuses_the_pruners_tables_and_explores_alike(monkeypatch):
    """A function that steals its parameter is explored twice; the second takes the first's
    pruner tables (the same graph and branches), with the same result as tables made afresh."""
    import importlib
    from dataclasses import replace

    from refcheck.analysis.liveness import PruneTables

    # void f(THFloatTensor *t) { if (t) THFloatTensor_free(t); }
    cfg = make([Node("entry", L(1)), Node("exit", L(9)),
                Node("branch", L(2), cond=ir.NullTest("t"), text="t"),
                Node("block", ops=[ir.Release(L(3), ("t",), "THFloatTensor_free")]),
                Node("return", L(4))], [(0, 2), (2, 3, True), (2, 4, False), (3, 4), (4, 1)], params=[("t", True)])
    conv = replace(CONV, infer_steals=True)
    explore_mod = importlib.import_module("refcheck.analysis.explore")  # the package exports the function
    made = []
    real_of = PruneTables.of.__func__

    def counted(cls, *a, **k):
        made.append(1)
        return real_of(cls, *a, **k)

    monkeypatch.setattr(PruneTables, "of", classmethod(counted))
    stolen_seen = []
    real_explore = explore_mod._explore

    def spy(*a, **k):
        stolen_seen.append(k.get("stolen", frozenset()))
        return real_explore(*a, **k)

    monkeypatch.setattr(explore_mod, "_explore", spy)
    shared = explore(cfg, conv, RULES.values())
    assert stolen_seen == [frozenset(), frozenset({"t"})] and len(made) == 1
    # Off: every exploration makes its own tables.
    monkeypatch.setattr(explore_mod, "_explore", lambda *a, pruned=None, **k: real_explore(*a, **k))
    made.clear()
    fresh = explore(cfg, conv, RULES.values())
    assert len(made) == 2
    assert (shared.states, shared.summary, [f.rule for f in shared.findings]) == \
        (fresh.states, fresh.summary, [f.rule for f in fresh.findings])


def _counter():
    # t = new(); if (c) i = 0; else i = 1;  use(i); i = n - 2; if (i == 0) ...; free(t); return;
    # i is mentioned at the join (facts about it live) but its constant is read by no test
    # before `i = n - 2`: the two arms' constants are one state there (`Liveness.consts`).
    return make([
        Node("entry", L(1)), Node("exit", L(9)),
        Node("block", ops=[ir.Acquire(L(2), "t", "THFloatTensor_new")]),
        Node("branch", L(3), cond=ir.Opaque("c"), text="c"),
        Node("block", ops=[ir.Const(L(3), "i", 0)]),
        Node("block", ops=[ir.Const(L(4), "i", 1)]),
        Node("block", ops=[ir.Use(L(5), "i"), ir.Assign(L(5), "i", None)]),
        Node("branch", L(6), cond=ir.Fact("i", frozenset({"i"}), ("i", "==", 0)), text="i == 0"),
        Node("block", ops=[ir.Use(L(7), "t")]),
        Node("block", ops=[ir.Release(L(8), ("t",), "THFloatTensor_free")]),
        Node("return", L(8)),
    ], [(0, 2), (2, 3), (3, 4, True), (3, 5, False), (4, 6), (5, 6), (6, 7), (7, 8, True), (7, 9, False),
        (8, 9), (9, 10)])


def test_a_constant_no_test_reads_is_dropped_though_its_variable_is_live():
    cfg = _counter()
    live = Liveness(cfg)
    assert "i" in live.facts[6] and "i" not in live.consts[6]  # mentioned, its value unread
    assert "i" in live.consts[7]  # the test against 0 reads it
    table, pruned = state_table(cfg, CONV, RULES.values())
    full = explore(cfg, CONV, RULES.values(), prune=False)
    assert len(table[6]) == 1 and not any("i ==" in line for line in table[6])
    assert pruned.findings == full.findings == []
    # The edge-wise drop equals the set difference it stands for.
    for p, s in cfg.graph.edges:
        made = live.names.set_of(live._set_c.get(p, 0))
        assert live.consts_died(p, s) == (live.consts[p] | made) - live.consts[s]
