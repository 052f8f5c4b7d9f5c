"""`bitsets.backward` solves several problems packed into one int per node: against the
textbook fixpoint of each problem alone, on random graphs (loops, unreachable parts, nodes
without successors), with refcheck's own graph and with networkx's."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from refcheck.analysis.bitsets import backward
from refcheck.ir.digraph import DiGraph


def _reference(g, gen: dict, keep: dict) -> dict:
    live = {n: 0 for n in g.nodes}
    changed = True
    while changed:
        changed = False
        for n in g.nodes:
            out = 0
            for s in g.successors(n):
                out |= live[s]
            new = gen[n] | (out & keep[n])
            if new != live[n]:
                live[n], changed = new, True
    return live


def _problem(rng: random.Random, nodes: list, width: int, complement: bool) -> tuple[dict, dict]:
    gen = {n: rng.getrandbits(width) & rng.getrandbits(width) for n in nodes}
    # Keeps as the callers make them: a complement of kills (negative), or every bit (-1).
    keep = {n: ~(rng.getrandbits(width) & rng.getrandbits(width)) if complement else -1 for n in nodes}
    return gen, keep


@pytest.mark.parametrize("make", [DiGraph, nx.DiGraph])
@pytest.mark.parametrize("seed", range(40))
def test_packed_problems_match_each_problem_alone(make, seed):
    rng = random.Random(seed)
    g = make()
    nodes = list(range(rng.randint(1, 40)))
    g.add_nodes_from(nodes)
    for _ in range(rng.randint(0, 80)):
        g.add_edge(rng.choice(nodes), rng.choice(nodes))
    count = rng.randint(1, 4)
    # Widths include 0 (a problem with no names at all) and ones past a machine word.
    problems = [_problem(rng, nodes, rng.choice((0, 1, 5, 31, 70)), rng.random() < 0.7) for _ in range(count)]
    got = backward(g, tuple(p[0] for p in problems), tuple(p[1] for p in problems))
    assert got == [_reference(g, gen, keep) for gen, keep in problems]
