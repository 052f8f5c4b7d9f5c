"""refcheck.ir.digraph against networkx, whose DiGraph it replaced: the same nodes, edges and
attributes in the same iteration orders after the same operations, and the same descendants and
immediate dominators, on random graphs (self-loops, cycles, removals and unreachable nodes)."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from refcheck.ir import digraph


def _pair(seed: int):
    rng = random.Random(seed)
    ours, theirs = digraph.DiGraph(), nx.DiGraph()
    n = rng.randint(1, 25)
    for g in (ours, theirs):
        g.add_node(0, data="entry")
    for _ in range(rng.randint(0, 3 * n)):
        u, v = rng.randrange(n), rng.randrange(n)
        attr = rng.choice([{}, {"branch": True}, {"branch": False, "label": "x"}])
        for g in (ours, theirs):
            g.add_edge(u, v, **attr)
    gone = rng.sample(range(n), rng.randint(0, n // 3))
    for g in (ours, theirs):
        g.remove_nodes_from(gone + [n + 5])  # a node not in the graph is ignored
        if 0 not in g:
            g.add_node(0, data="entry")
    return ours, theirs


@pytest.mark.parametrize("seed", range(300))
def test_same_graph_as_networkx(seed):
    ours, theirs = _pair(seed)
    assert list(ours.nodes) == list(theirs.nodes)
    assert list(ours.nodes(data="data")) == list(theirs.nodes(data="data"))
    assert list(ours.edges) == list(theirs.edges)
    assert [(n, dict(a)) for n, a in ours.adjacency()] == [(n, dict(a)) for n, a in theirs.adjacency()]
    assert ours.number_of_nodes() == theirs.number_of_nodes()
    assert ours.number_of_edges() == theirs.number_of_edges()
    for n in theirs:
        assert list(ours.successors(n)) == list(theirs.successors(n))
        assert list(ours.predecessors(n)) == list(theirs.predecessors(n))
        assert (ours.in_degree(n), ours.out_degree(n)) == (theirs.in_degree(n), theirs.out_degree(n))
        assert ours.nodes[n] == theirs.nodes[n]
        for m in theirs.successors(n):
            assert ours[n][m] == theirs[n][m] == ours.edges[n, m]
    assert digraph.descendants(ours, 0) == nx.descendants(theirs, 0)
    want = nx.immediate_dominators(theirs, 0)
    want.setdefault(0, 0)  # networkx versions differ on whether the start is in the result
    assert digraph.immediate_dominators(ours, 0) == want


def test_attributes_are_updated_in_place():
    g = digraph.DiGraph()
    g.add_edge(1, 2, branch=True)
    g[1][2]["shown"] = False
    g.add_edge(1, 2, label="again")
    assert g.edges[1, 2] == {"branch": True, "shown": False, "label": "again"}
    assert list(g.predecessors(2)) == [1] and g.number_of_edges() == 1


def _fixed_point(seed: set, edges: dict) -> set:
    """The loop `reaching` replaced in overwrites, linkfields and slicing: passes to a fixed point."""
    out = set(seed)
    changed = True
    while changed:
        changed = False
        for k, targets in edges.items():
            if k not in out and set(targets) & out:
                out.add(k)
                changed = True
    return out


@pytest.mark.parametrize("seed", range(200))
def test_reaching_is_the_fixed_point_and_networkx_ancestors(seed):
    rng = random.Random(seed)
    keys = range(rng.randint(0, 20))
    edges = {k: {rng.randrange(25) for _ in range(rng.randint(0, 3))} for k in keys if rng.random() < 0.8}
    start = {rng.randrange(25) for _ in range(rng.randint(0, 4))}
    got = digraph.reaching(set(start), edges)
    assert got == _fixed_point(start, edges)
    g = nx.DiGraph([(k, t) for k, ts in edges.items() for t in ts])
    g.add_nodes_from(start)
    assert got == start.union(*(nx.ancestors(g, s) for s in start))
