"""The objects an op makes are made once per exploration (`state.made`): states passing the op
share one immutable object, equal to what each used to build, and the findings stay those of
a state built apart."""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.explore import explore
from refcheck.analysis.state import Obj, made
from refcheck.analysis.transfer import Transfer
from refcheck.ir.cfg import Node
from refcheck.rules import RULES
from refcheck.rules.events import Gone, Nullness, Origin

from tests.analysis.test_states import CONV, L, make


def test_made_shares_equal_objects_and_keeps_different_ones_apart():
    memo: dict = {}
    a = made(memo, 0, Gone.NO, Nullness.MAYBE, Origin.FIELD, L(3), "s->a", 4, frozenset({"s"}))
    b = made(memo, 0, Gone.NO, Nullness.MAYBE, Origin.FIELD, L(3), "s->a", 4, frozenset({"s"}))
    assert a is b
    assert a == Obj(0, Gone.NO, Nullness.MAYBE, Origin.FIELD, L(3), "s->a", 4, deps=frozenset({"s"}))
    # Any field apart makes another object: the node, the site, the name, the dependencies.
    others = [made(memo, 0, Gone.NO, Nullness.MAYBE, Origin.FIELD, L(3), "s->a", 5, frozenset({"s"})),
              made(memo, 0, Gone.NO, Nullness.MAYBE, Origin.FIELD, L(4), "s->a", 4, frozenset({"s"})),
              made(memo, 0, Gone.NO, Nullness.MAYBE, Origin.FIELD, L(3), "s->b", 4, frozenset({"s"})),
              made(memo, 0, Gone.NO, Nullness.MAYBE, Origin.FIELD, L(3), "s->a", 4, frozenset()),
              made(memo, 0, Gone.NO, Nullness.NULL, Origin.NULL, L(3), "NULL", 4)]
    assert all(o is not a and o != a for o in others)
    assert len(memo) == 6


def _loop_loading_and_acquiring():
    # for (;;) { p = s->a; t = THFloatTensor_new(); if (c) break; free(t); } return;  t leaks at the break
    return make([
        Node("entry", L(1)), Node("exit", L(9)),
        Node("block", ops=[ir.Load(L(2), "p", "s->a", frozenset({"s"}), "s->a"),
                           ir.Acquire(L(3), "t", "THFloatTensor_new")]),
        Node("branch", L(4), cond=ir.Opaque("c"), text="c"),
        Node("block", ops=[ir.Release(L(5), ("t",), "THFloatTensor_free")]),
        Node("return", L(6)),
    ], [(0, 2), (2, 3), (3, 5, True), (3, 4, False), (4, 2)], params=[("s", True)])


def test_states_passing_one_op_share_its_objects():
    cfg = _loop_loading_and_acquiring()
    seen: dict = {}

    def observe(node, st):
        for oid, o in st.objs.items():
            seen.setdefault(node, {}).setdefault(oid, []).append(o)

    # Neither pruned nor untracked: `p` is read by nothing, and would be forgotten at once.
    result = explore(cfg, CONV, RULES.values(), observe=observe, prune=False, untrack=False)
    at_branch = seen[3]
    loaded = [os for oid, os in at_branch.items() if os[0].origin is Origin.FIELD]
    acquired = [os for oid, os in at_branch.items() if os[0].origin is Origin.ACQUIRE]
    assert loaded and acquired
    # More than one state reaches the branch (the loop's first trip and the next ones) holding
    # an equal object: every one of them holds the very object the op made (the others are
    # that object changed since: the earlier trip's tensor freed).
    groups = loaded + acquired
    assert any(o == q and i != j for os in groups for i, o in enumerate(os) for j, q in enumerate(os))
    assert all(o is q for os in groups for o in os for q in os if o == q)
    assert [f.rule for f in result.findings] == ["RC001"]


def test_a_fresh_transfer_makes_its_own_objects():
    # The memo is the exploration's: a second one (the stolen parameters' run) starts empty.
    cfg = _loop_loading_and_acquiring()
    one, two = Transfer(cfg, CONV), Transfer(cfg, CONV)
    a, b = one.initial(), two.initial()
    one.step(2, a, [])
    two.step(2, b, [])
    fa = next(o for o in a.objs.values() if o.origin is Origin.FIELD)
    fb = next(o for o in b.objs.values() if o.origin is Origin.FIELD)
    assert fa == fb and fa is not fb
