"""The visited map keeps, as a variant, the very facts of a state admitted at a node whose step
never changes the state it is given (`GraphTables.stepped_on_copies`, `explore`); and the
liveness tables ask each op's effect once (`liveness.effects`)."""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis import liveness
from refcheck.analysis.transfer import Transfer
from refcheck.ir.cfg import Node
from tests.analysis.test_states import CONV, L, make

_K = frozenset({"k"})


def _graph():
    # t = new(); if (t) ...; if (c twice) ...; switch (k) ...; use t; return
    nodes = [Node("entry", L(1)), Node("exit", L(99)),
             Node("block", ops=[ir.Acquire(L(2), "t", "THFloatTensor_new")]),   # 2 no: an op
             Node("branch", L(3), cond=ir.NullTest("t")),                      # 3 yes
             Node("branch", L(4), cond=ir.Fact("c", _K)),                      # 4 yes: remembered, on a copy
             Node("branch", L(5), cond=ir.Fact("c", _K)),                      # 5 yes
             Node("switch", L(6), value="k"),                                  # 6 yes
             Node("block", ops=[ir.Use(L(7), "t")]),                           # 7 no
             Node("block"),                                                    # 8 no: passes its own state on
             Node("branch", L(9), cond=ir.SameObject("t", "u"),
                  ops=[ir.Use(L(9), "t")]),                                    # 9 no: an op
             Node("return", L(10), value="t")]                                 # 10 no: an end
    # One edge per pair of nodes (a DiGraph): each branch's false edge.
    edges = [(0, 2), (2, 3), (3, 4, False), (4, 5, False), (5, 6, False), (6, 7), (7, 8), (8, 9),
             (9, 10, False), (10, 1)]
    return make(nodes, edges)


def test_only_op_less_branches_and_switches_step_on_copies():
    cfg = _graph()
    assert Transfer(cfg, CONV).stepped_on_copies() == {3, 4, 5, 6}


def test_a_step_at_such_a_node_leaves_the_state_it_is_given_as_it_was():
    cfg = _graph()
    tr = Transfer(cfg, CONV)
    st = tr.initial()
    for node in (2,):
        (_, st, _), = tr.step(node, st, [])
    st.facts.conds["c"] = False
    st.facts.consts["k"] = 1
    for node in sorted(tr.stepped_on_copies()):
        given = st.copy()
        facts = given.facts
        succs = tr.step(node, given, [])
        assert (given.env, given.objs, given.facts.describe({})) == (st.env, st.objs, st.facts.describe({}))
        assert given.facts is facts and succs
        assert all(s is not given and s.facts is not facts for _, s, _ in succs)


def test_each_ops_effect_is_asked_once_per_graph(monkeypatch):
    cfg = _graph()
    asked = []
    real = liveness._op_effect
    monkeypatch.setattr(liveness, "_op_effect", lambda op: asked.append(id(op)) or real(op))
    effect = liveness.effects()
    ops = [op for _, d in cfg.graph.nodes(data="data") for op in (*d.ops, *d.post)]
    assert [effect(op) for op in ops * 3] == [real(op) for op in ops * 3]
    assert sorted(asked) == sorted(id(op) for op in ops)
