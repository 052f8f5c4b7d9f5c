"""The per-graph computations done before exploring, against plain reference implementations on
every fixture function (both --errors modes) and on shapes the fixtures lack: the post-dominators
of `slicing` against networkx's immediate dominators of the reversed graph, and the bitset
liveness of `liveness.Liveness` and the bitset null liveness of `nullness.NullLiveness` against the
textbook set iterations."""

from __future__ import annotations


import networkx as nx
import pytest

from cunit import fixture_parses
from refcheck import ir
from refcheck.analysis import nullness
from refcheck.analysis.liveness import Liveness, _node_reads, _op_effect
from refcheck.analysis.slicing import relevant_branches
from refcheck.analysis.slicing import _postdominators
from refcheck.ir.cfg import Node
from refcheck.conventions import Conventions
from refcheck.frontend.builder import build_cfg
from tests.analysis.test_states import L, make

SINK = ("sink",)


def _graphs(errors: str):
    conv = Conventions(errors=errors)
    for _, _, parsed in fixture_parses():
        for fn in parsed.functions:
            yield build_cfg(fn, conv)


def _networkx_postdominators(g: nx.DiGraph) -> dict:
    rev = nx.DiGraph()
    rev.add_nodes_from(g.nodes)
    rev.add_edges_from((b, a) for a, b in g.edges)
    rev.add_edges_from((SINK, n) for n in g.nodes if g.out_degree(n) == 0)
    got = nx.immediate_dominators(rev, SINK)
    got.pop(SINK, None)  # networkx versions differ on whether the start is in the result
    return got


def _reference_liveness(cfg) -> tuple[dict, dict]:
    g = cfg.graph
    env = {n: set() for n in g.nodes}
    facts = {n: set() for n in g.nodes}
    changed = True
    while changed:
        changed = False
        for n in g.nodes:
            d = g.nodes[n]["data"]
            live_e = set().union(*(env[s] for s in g.successors(n)))
            live_f = set().union(*(facts[s] for s in g.successors(n)))
            seq = [_op_effect(op) for op in reversed(d.post)]
            seq.append(((), (), _node_reads(d)))
            seq += [_op_effect(op) for op in reversed(d.ops)]
            for kill_e, kill_f, reads in seq:
                live_e = (live_e - set(kill_e)) | set(reads)
                live_f = (live_f - set(kill_f)) | set(reads)
            if live_e != env[n] or live_f != facts[n]:
                env[n], facts[n] = live_e, live_f
                changed = True
    return env, facts


def _reference_null_liveness(cfg, relevant) -> dict:
    """NullLiveness as it was written before its bitsets: sets, a round-robin fixpoint."""
    g = cfg.graph
    data = dict(g.nodes(data="data"))
    ops = {n: (*d.ops, *d.post) for n, d in data.items()}
    given = {v for os_ in ops.values() for op in os_ if type(op) in (ir.Release, ir.Store)
             for v in (op.vars if type(op) is ir.Release else (op.var,))}
    at_return = tuple(v for v, is_ptr in cfg.params if is_ptr and v in given)
    deciding = nullness._deciding(g, data, relevant)
    read = {v for n, d in data.items()
            for v in (*(v for op in ops[n] for v in nullness._read_by(op)),
                      *nullness._node_reads(n, d, relevant, at_return, deciding)) if v is not None}
    while True:
        more = {op.src for os_ in ops.values() for op in os_
                if type(op) is ir.Assign and op.src is not None and op.dst in read} - read
        if not more:
            break
        read |= more
    live = {n: set() for n in g.nodes}
    changed = True
    while changed:
        changed = False
        for n, d in data.items():
            x = set().union(*(live[s] for s in g.successors(n)))
            steps = [(op, False) for op in reversed(d.post)] + [(None, True)] + [(op, False) for op in reversed(d.ops)]
            for op, is_node in steps:
                if is_node:
                    x |= set(nullness._node_reads(n, d, relevant, at_return, deciding))
                    continue
                x -= set(nullness._kills(op))
                x |= set(nullness._read_by(op))
                if type(op) is ir.Assign and op.src is not None and op.dst in read:
                    x.add(op.src)
            x.discard(None)
            if x != live[n]:
                live[n] = x
                changed = True
    return live


@pytest.mark.parametrize("errors", ["abort", "unwind"])
def test_null_liveness_matches_the_reference_on_every_fixture_function(errors):
    checked = 0
    for cfg in _graphs(errors):
        for relevant in (None, relevant_branches(cfg)):
            assert nullness.NullLiveness(cfg, relevant).live == _reference_null_liveness(cfg, relevant), cfg.name
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("errors", ["abort", "unwind"])
def test_postdominators_and_liveness_match_the_references_on_every_fixture_function(errors):
    checked = 0
    for cfg in _graphs(errors):
        g = cfg.graph
        assert _postdominators({n: list(s) for n, s in g.adjacency()}, SINK) == _networkx_postdominators(g), cfg.name
        live = Liveness(cfg)
        env, facts = _reference_liveness(cfg)
        assert live.env == env and live.facts == facts, cfg.name
        checked += 1
    assert checked > 100


def test_postdominators_leave_out_what_reaches_no_end():
    # 2 -> 3 -> 4 -> 3 (a loop with no way out), 2 -> 5 -> return 6; and 7 -> 8 -> 7 unreachable.
    nodes = [Node("entry", L(1)), Node("exit", L(99)), Node("branch", L(2), cond=ir.Opaque()),
             Node("block"), Node("block"), Node("block"), Node("return", L(6)), Node("block"), Node("block")]
    cfg = make(nodes, [(0, 2), (2, 3, True), (2, 5, False), (3, 4), (4, 3), (5, 6), (7, 8), (8, 7)])
    g = cfg.graph
    got = _postdominators({n: list(s) for n, s in g.adjacency()}, SINK)
    assert got == _networkx_postdominators(g)
    assert 3 not in got and 4 not in got and got[2] == 5 and got[5] == 6
