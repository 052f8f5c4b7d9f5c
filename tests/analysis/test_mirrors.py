"""Mirrored nodes (analysis/explore._mirrors) skip the visited map where it would repeat their
predecessor's: the exploration must be the same, state for state, finding for finding (paths
included), as checking every arrival."""

from __future__ import annotations


import pytest

from cunit import UNTIMED, fixture_parses
from refcheck import ir
from refcheck.analysis.explore import FACT_VARIANTS, _mirrors, explore
from refcheck.analysis.transfer import Transfer
from refcheck.ir.cfg import Node
from refcheck.conventions import Conventions
from refcheck.frontend.builder import build_cfg
from refcheck.rules import RULES
from tests.analysis.test_states import CONV, L, make



def _both(cfg, conv):
    a = explore(cfg, conv, RULES.values(), seconds=UNTIMED)
    b = explore(cfg, conv, RULES.values(), seconds=UNTIMED, mirror=False)
    return a, b


def _seen(cfg, conv, mirror):
    out = []
    def observe(n, st):
        out.append((n, repr(sorted(st.env.items())), st.facts.describe({})))

    explore(cfg, conv, RULES.values(), seconds=UNTIMED, observe=observe, mirror=mirror)
    return out


def test_chains_and_opaque_branches_after_many_fact_variants_explore_alike():
    # Eighteen branches over distinct conditions, each tested twice (so remembered), each arm
    # empty, then a chain of empty blocks and an opaque branch: the joins at FACT_VARIANTS happen
    # above, and the mirrored nodes below must repeat them exactly.
    n_branches = FACT_VARIANTS + 2
    nodes = [Node("entry", L(1)), Node("exit", L(99)),
             Node("block", ops=[ir.Acquire(L(2), "t", "THFloatTensor_new")])]
    edges = [(0, 2)]
    prev = 2

    def diamond(cond, line):
        nonlocal prev
        b = len(nodes)  # the branch, its two empty arms, the join
        nodes.extend([Node("branch", L(line), cond=cond, text="c"), Node("block"), Node("block"), Node("block")])
        edges.extend([(prev, b), (b, b + 1, True), (b, b + 2, False), (b + 1, b + 3), (b + 2, b + 3)])
        prev = b + 3
        return b

    for _ in range(2):
        for i in range(n_branches):
            diamond(ir.Fact(f"c{i}", frozenset({"k"})), 3 + i)
    for _ in range(3):  # the chain
        nodes.append(Node("block"))
        edges.append((prev, len(nodes) - 1))
        prev = len(nodes) - 1
    opaque = diamond(ir.Opaque(), 40)
    nodes.append(Node("return", L(50), value="k"))  # reads k: the facts over it stay live
    edges.append((prev, len(nodes) - 1))
    cfg = make(nodes, edges)
    tr = Transfer(cfg, CONV, None)
    mirrors = _mirrors(cfg, tr, None)
    assert mirrors.get(opaque + 1) == opaque and mirrors.get(opaque + 2) == opaque
    assert sum(1 for s, p in mirrors.items() if tr.data[p].kind == "block") >= 3
    a, b = _both(cfg, CONV)
    assert a.findings == b.findings and a.states == b.states
    assert a.findings and a.states > 4 * FACT_VARIANTS  # the leak of t, through joined variants
    assert _seen(cfg, CONV, True) == _seen(cfg, CONV, False)


@pytest.mark.parametrize("errors", ["abort", "unwind"])
def test_every_fixture_function_explores_alike(errors):
    checked = mirrored = 0
    conv = Conventions(errors=errors)
    for _, _, parsed in fixture_parses():
        for fn in parsed.functions:
            cfg = build_cfg(fn, conv)
            a, b = _both(cfg, conv)
            assert (a.findings, a.states, a.incomplete) == (b.findings, b.states, b.incomplete), fn.spelling
            checked += 1
            mirrored += bool(_mirrors(cfg, Transfer(cfg, conv, None), None))
    assert checked > 100 and mirrored > 20, (checked, mirrored)


def test_only_nodes_that_cannot_change_or_refine_a_state_pass_it_on_unchanged():
    k = frozenset({"k"})
    nodes = [Node("entry", L(1)), Node("exit", L(99)),
             Node("branch", L(2), cond=ir.Opaque()),                                   # 2 yes
             Node("branch", L(3), cond=ir.Fact("once", k)),                            # 3 yes: tested once
             Node("branch", L(4), cond=ir.Fact("twice", k)),                           # 4 no: remembered
             Node("branch", L(5), cond=ir.Fact("twice", k)),                           # 5 no
             Node("branch", L(6), cond=ir.Fact("own", frozenset({"own"}), ("own", "!=", 0))),  # 6 no: decided
             Node("branch", L(7), cond=ir.NullTest("t")),                              # 7 no
             Node("branch", L(8), cond=ir.SameObject("t", "u")),                       # 8 no
             Node("block"),                                                            # 9 yes
             Node("block", ops=[ir.Use(L(10), "t")]),                                  # 10 no: an op
             Node("switch", L(11), value="own"),                                       # 11 no: tracked
             Node("switch", L(12)),                                                    # 12 yes: over nothing known
             Node("return", L(13))]
    edges = [(0, 2), (2, 3, True), (2, 3, False)] + [(i, i + 1) for i in range(3, 13)]
    cfg = make(nodes, edges)
    tr = Transfer(cfg, CONV, None)
    assert {n for n in cfg.graph.nodes if tr.passes_unchanged(n)} == {0, 2, 3, 9, 12}
    # A contracted branch (slicing) remembers nothing either.
    assert Transfer(cfg, CONV, set()).passes_unchanged(4)
