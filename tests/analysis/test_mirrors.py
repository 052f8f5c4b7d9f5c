"""Mirrored nodes (analysis/explore._mirrors) skip the visited map where it would repeat their
predecessor's: the exploration must be the same, state for state, finding for finding (paths
included), as checking every arrival."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixture_expect import find_units, unit_sources
from refcheck import ir
from refcheck.analysis.explore import FACT_VARIANTS, _mirrors, explore
from refcheck.analysis.transfer import Transfer
from refcheck.cfg import Node
from refcheck.conventions import Conventions
from refcheck.frontend.builder import build_cfg
from refcheck.frontend.unit import parse
from refcheck.rules import RULES
from tests.analysis.test_states import CONV, L, make

REPO = Path(__file__).resolve().parent.parent.parent
FIXTURES = REPO / "fixtures"
INCLUDE = FIXTURES / "include"


def _both(cfg, conv):
    a = explore(cfg, conv, RULES.values())
    b = explore(cfg, conv, RULES.values(), mirror=False)
    return a, b


def _seen(cfg, conv, mirror):
    out = []
    explore(cfg, conv, RULES.values(), observe=lambda n, st: out.append((n, repr(sorted(st.env.items())),
                                                                        st.facts.describe({}))), mirror=mirror)
    return out


def test_a_chain_of_empty_nodes_after_many_fact_variants_explores_alike():
    # Eighteen opaque branches over distinct conditions, each arm empty, then a chain of empty
    # blocks: the join at FACT_VARIANTS happens at the chain's head and must be mirrored below.
    n_branches = FACT_VARIANTS + 2
    nodes = [Node("entry", L(1)), Node("exit", L(99)),
             Node("block", ops=[ir.Acquire(L(2), "t", "THFloatTensor_new")])]
    edges = [(0, 2)]
    prev = 2
    for i in range(n_branches):
        b = len(nodes)  # the branch, its two empty arms, the join
        nodes += [Node("branch", L(3 + i), cond=ir.Fact(f"c{i}", ("k",)), text=f"c{i}"),
                  Node("block"), Node("block"), Node("block")]
        edges += [(prev, b), (b, b + 1, True), (b, b + 2, False), (b + 1, b + 3), (b + 2, b + 3)]
        prev = b + 3
    for _ in range(3):  # the chain
        nodes.append(Node("block"))
        edges.append((prev, len(nodes) - 1))
        prev = len(nodes) - 1
    nodes.append(Node("return", L(50), value="k"))  # reads k: the facts over it stay live
    edges.append((prev, len(nodes) - 1))
    cfg = make(nodes, edges)
    tr = Transfer(cfg, CONV, None)
    assert _mirrors(cfg, tr, None), "the chain is mirrored"
    a, b = _both(cfg, CONV)
    assert a.findings == b.findings and a.states == b.states
    assert a.findings and a.states > 4 * FACT_VARIANTS  # the leak of t, through joined variants
    assert _seen(cfg, CONV, True) == _seen(cfg, CONV, False)


@pytest.mark.parametrize("errors", ["abort", "unwind"])
def test_every_fixture_function_explores_alike(errors):
    checked = mirrored = 0
    for unit in find_units(FIXTURES):
        options = unit_sources(unit, FIXTURES, [INCLUDE])[0].options
        conv = Conventions(errors=errors)
        parsed = parse(str(unit), ["-I", str(INCLUDE), *options.clang_args])
        for fn in parsed.functions:
            cfg = build_cfg(fn, conv)
            a, b = _both(cfg, conv)
            assert (a.findings, a.states, a.incomplete) == (b.findings, b.states, b.incomplete), fn.spelling
            checked += 1
            mirrored += bool(_mirrors(cfg, Transfer(cfg, conv, None), None))
    assert checked > 100 and mirrored > 20, (checked, mirrored)
