"""Graph-only tables the first pass, the return witness and the exploration all read are made
once per graph (`DiGraph.memo`), give what a fresh computation gives, and are dropped when the
graph changes."""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis import slicing
from refcheck.analysis.assume import _loop_tests, loop_tests
from refcheck.analysis.nullness import _fated_parameters, fated_parameters
from refcheck.ir.cfg import FunctionCFG, Node
from refcheck.ir.digraph import DiGraph

from tests.analysis.test_states import L


def _loop_with_a_test():
    # p = s->a; while (c) { if (s->f) free(q); q = p; }  return;
    nodes = [Node("entry", L(1)), Node("exit", L(9)),
             Node("block", ops=[ir.Load(L(2), "p", "s->a", frozenset({"s"}), "s->a")]),
             Node("branch", L(3), cond=ir.Opaque("c"), text="c"),
             Node("branch", L(4), cond=ir.Fact("(-> s f", frozenset({"s"})), text="s->f"),
             Node("block", ops=[ir.Release(L(5), ("q",), "free")]),
             Node("block", ops=[ir.Assign(L(6), "q", "p")]),
             Node("return", L(8))]
    edges = [(0, 2), (2, 3), (3, 4, True), (3, 7, False), (4, 5, True), (4, 6, False), (5, 6), (6, 3), (7, 1)]
    g = DiGraph()
    for i, n in enumerate(nodes):
        g.add_node(i, data=n)
    for e in edges:
        g.add_edge(e[0], e[1], branch=e[2] if len(e) > 2 else None, label="")
    return FunctionCFG("f", g, 0, 1, L(1), [("s", True), ("q", True)], {})


def test_tables_are_made_once_per_graph_and_equal_a_fresh_computation():
    cfg = _loop_with_a_test()
    data = dict(cfg.graph.nodes(data="data"))
    ops = [op for d in data.values() for op in (*d.ops, *d.post)]
    assert slicing.all_ops(cfg) == ops and slicing.all_ops(cfg) is slicing.all_ops(cfg)
    find, _ = slicing.graph_alias_classes(cfg)
    fresh, _ = slicing.alias_classes(ops)
    assert (find("q") == find("p")) and (fresh("q") == fresh("p")) and find("p") == find("p")
    assert slicing.graph_alias_classes(cfg) is slicing.graph_alias_classes(cfg)
    assert fated_parameters(cfg) == _fated_parameters(cfg) == frozenset({"q"})
    # Every loop test, and the relevant ones only where the caller names them.
    assert _loop_tests(cfg.graph, data) == ((4, "(-> s f"),)
    assert loop_tests(cfg.graph, data, None) == {"(-> s f"}
    assert loop_tests(cfg.graph, data, {3}) == set()
    assert loop_tests(cfg.graph, data, {4}) == {"(-> s f"}


def test_a_change_of_the_graph_drops_the_tables():
    cfg = _loop_with_a_test()
    before = slicing.all_ops(cfg)
    cfg.graph.add_node(8, data=Node("block", ops=[ir.Assign(L(9), "r", "q")]))
    cfg.graph.add_edge(7, 8, branch=None, label="")
    after = slicing.all_ops(cfg)
    assert after is not before and len(after) == len(before) + 1
    find, _ = slicing.graph_alias_classes(cfg)
    assert find("r") == find("p")
