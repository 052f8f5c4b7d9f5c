"""The nullness forgetting's shortcuts (analysis/nullness: `tests_nullness`, `quiet_edges`) must
explore exactly as forgetting at every node does: the same states at the same nodes, in the same
order, and the same findings."""

from __future__ import annotations

import pytest

from cunit import UNTIMED, fixture_parses
from refcheck import ir
from refcheck.analysis import nullness
from refcheck.analysis.explore import explore
from refcheck.analysis.liveness import Pruner
from refcheck.conventions import Conventions
from refcheck.frontend.builder import build_cfg
from refcheck.ir.cfg import Node
from refcheck.rules import RULES
from tests.analysis.test_states import CONV, L, make


def _seen(cfg, conv, quiet: bool):
    out = []
    res = explore(cfg, conv, RULES.values(), seconds=UNTIMED, quiet=quiet,
                  observe=lambda n, st: out.append((n, st.portable_core(), sorted(st.facts.describe({})))))
    return out, res


def _alike(cfg, conv) -> int:
    (a, ra), (b, rb) = _seen(cfg, conv, True), _seen(cfg, conv, False)
    assert a == b
    assert (ra.findings, ra.states, ra.incomplete, ra.summary) == (rb.findings, rb.states, rb.incomplete, rb.summary)
    return ra.states


def _tested_then_loop():
    # t = new(); if (t) { u = t; } ; loop { use t; k++ } ; if (u) free(u); return;
    # The test of t at 3 makes t's nullness known; the loop's blocks change nothing a forget
    # reads (quiet), while the assignment at 4 and the release at 9 are not quiet.
    k = frozenset({"k"})
    nodes = [Node("entry", L(1)), Node("exit", L(99)),
             Node("block", ops=[ir.Acquire(L(2), "t", "THFloatTensor_new")]),      # 2
             Node("branch", L(3), cond=ir.NullTest("t"), text="t"),                  # 3
             Node("block", ops=[ir.Assign(L(4), "u", "t")]),                         # 4
             Node("block"),                                                          # 5 join
             Node("branch", L(6), cond=ir.Fact("k < n", k), text="k < n"),           # 6 loop head
             Node("block", ops=[ir.Use(L(7), "t"), ir.Const(L(7), "k", 1)]),         # 7 body
             Node("branch", L(8), cond=ir.NullTest("u"), text="u"),                  # 8
             Node("block", ops=[ir.Release(L(9), ("u",), "THFloatTensor_free")]),    # 9
             Node("return", L(10))]                                                  # 10
    edges = [(0, 2), (2, 3), (3, 4, True), (3, 5, False), (4, 5), (5, 6), (6, 7, True), (7, 6),
             (6, 8, False), (8, 9, True), (8, 10, False), (9, 10), (10, 1)]
    return make(nodes, edges)


def test_quiet_edges_are_those_after_nodes_that_change_nothing_forget_reads():
    cfg = _tested_then_loop()
    live = nullness.NullLiveness(cfg, None).live
    quiet = nullness.quiet_edges(cfg, live)
    assert (7, 6) in quiet and (6, 7) in quiet  # the loop: a Use without dereference, a constant
    assert (3, 4) not in quiet and (3, 5) not in quiet  # the null test learns t's nullness
    assert (4, 5) not in quiet  # t's nullness, read at 4 (u = t), is not read at 5
    assert (2, 3) in quiet  # t = new(): a fresh object, into a variable nobody reads the nullness of there
    assert (9, 10) not in quiet  # a release
    assert all(live[p] <= live[s] for p, s in quiet)


def _rebinding(store: bool):
    # t = new(); if (t) ; [*i-indexed store of t] ; u = t; t = x; i = 0; if (u) ; if (t) ; return;
    nodes = [Node("entry", L(1)), Node("exit", L(99)),
             Node("block", ops=[ir.Acquire(L(2), "t", "THFloatTensor_new"), ir.Acquire(L(2), "x", "THFloatTensor_new")]),
             Node("branch", L(3), cond=ir.NullTest("t"), text="t"),                                      # 3
             Node("block", ops=[ir.Store(L(4), "x", target="a[i]", deps=frozenset({"i"}))] if store else []),  # 4
             Node("block", ops=[ir.Assign(L(5), "u", "t"), ir.Assign(L(5), "t", "x")]),                 # 5
             Node("block", ops=[ir.Assign(L(6), "i", None)]),                                            # 6
             Node("branch", L(7), cond=ir.NullTest("u"), text="u"),                                      # 7
             Node("branch", L(8), cond=ir.NullTest("t"), text="t"),                                      # 8
             Node("return", L(9))]
    edges = [(0, 2), (2, 3), (3, 4, True), (3, 4, False), (4, 5), (5, 6), (6, 7), (7, 8, True), (7, 8, False),
             (8, 9, True), (8, 9, False), (9, 1)]
    return make(nodes, edges)


def test_a_node_rebinding_a_read_variable_or_a_stores_dependency_is_not_quiet():
    for store in (False, True):
        cfg = _rebinding(store)
        live = nullness.NullLiveness(cfg, None).live
        quiet = nullness.quiet_edges(cfg, live)
        assert "t" in live[5] and "t" in live[6] and (5, 6) not in quiet  # t = x: t was read at 5's entry
        assert ((6, 7) in quiet) is not store  # i = 0: the store's location depends on i
        _alike(cfg, CONV)


def test_skipping_the_quiet_edges_explores_as_forgetting_everywhere():
    cfg = _tested_then_loop()
    assert nullness.tests_nullness(cfg)
    assert _alike(cfg, CONV) > 8


def test_a_graph_without_a_null_test_skips_the_null_liveness():
    cfg = make([Node("entry", L(1)), Node("exit", L(9)),
                Node("block", ops=[ir.Acquire(L(2), "t", "THFloatTensor_new"), ir.Use(L(3), "t", deref=True)]),
                Node("return", L(4))], [(0, 2), (2, 3), (3, 1)])
    assert not nullness.tests_nullness(cfg)
    pruner = Pruner(cfg, {})
    assert pruner.null is None and pruner.quiet == frozenset()
    res = explore(cfg, CONV, RULES.values())
    assert [f.rule for f in res.findings] == ["RC001"]  # the leak is still found


@pytest.mark.parametrize("errors", ["abort", "unwind"])
def test_every_fixture_function_explores_alike(errors):
    conv = Conventions(errors=errors)
    checked = with_tests = 0
    for _, _, parsed in fixture_parses():
        for fn in parsed.functions:
            cfg = build_cfg(fn, conv)
            _alike(cfg, conv)
            checked += 1
            with_tests += nullness.tests_nullness(cfg)
    assert checked > 100 and with_tests > 20, (checked, with_tests)


def test_an_objects_forgettable_flag_is_what_forget_asks():
    """`Obj.forgettable`, computed once per object: a known nullness, no realloc link, not
    released or stored, and not an owned NULL."""
    import itertools

    from refcheck.analysis.state import Obj
    from refcheck.rules.events import Gone, Nullness, Origin

    for owned, gone, null, link in itertools.product((0, 1), Gone, Nullness, (None, "x")):
        o = Obj(owned, gone, null, Origin.ACQUIRE, L(1), "t", 1, link=link)
        want = (null is not Nullness.MAYBE and link is None and gone is Gone.NO
                and not (null is Nullness.NULL and owned))
        assert o.forgettable == want


def test_fated_parameters_are_those_the_function_may_give_up():
    """f(a, b, c, n): a reaches a release through a local, b is stored, c is only read and n is
    no pointer: only a's and b's fate (NULL included) is kept for the summary (`state.param_fate`);
    c's NULL is forgotten like any other object's."""
    cfg = make([Node("entry", L(1)), Node("exit", L(9)),
                Node("block", ops=[ir.Assign(L(2), "x", "a"), ir.Release(L(3), ("x",), "THFloatTensor_free"),
                                   ir.Store(L(4), "b", target="g_keep"), ir.Use(L(5), "c")]),
                Node("return", L(6))],
               [(0, 2), (2, 3), (3, 1)], params=[("a", True), ("b", True), ("c", True), ("n", False)])
    assert nullness.fated_parameters(cfg) == frozenset({"a", "b"})
