"""The objects an op makes are made once per exploration (`state.made`): states passing the op
share one immutable object, equal to what each used to build, and the findings stay those of
a state built apart."""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.explore import explore
from refcheck.analysis.state import Kind, Obj, made
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


def _two_paths_then_a_load_and_an_acquisition():
    # if (c) t = THFloatTensor_new();  p = s->a;  u = THFloatTensor_new();  return;
    # Two states (holding t or not) pass the load and the acquisition, each making its object.
    return make([
        Node("entry", L(1)), Node("exit", L(9)),
        Node("branch", L(2), cond=ir.Opaque("c"), text="c"),
        Node("block", ops=[ir.Acquire(L(3), "t", "THFloatTensor_new")]),
        Node("block", ops=[ir.Load(L(4), "p", "s->a", frozenset({"s"}), "s->a"),
                           ir.Acquire(L(5), "u", "THFloatTensor_new")]),
        Node("return", L(6)),
    ], [(0, 2), (2, 3, True), (2, 4, False), (3, 4), (4, 5)], params=[("s", True)])


def test_states_passing_one_op_share_its_objects():
    cfg = _two_paths_then_a_load_and_an_acquisition()
    seen: list = []

    def observe(node, st):
        if node == 5:
            seen.append(st.objs)

    # Neither pruned nor untracked: `p` is read by nothing, and would be forgotten at once.
    result = explore(cfg, CONV, RULES.values(), observe=observe, prune=False, untrack=False)
    assert len(seen) == 2
    made_at_4 = [oid for oid in seen[0] if oid in seen[1]
                 and (oid.kind is Kind.FIELD or (oid.kind is Kind.ACQUIRE and oid.site[0] == 4))]
    assert len(made_at_4) == 2  # the load's object and the acquisition's
    assert all(seen[0][oid] is seen[1][oid] for oid in made_at_4)
    assert sorted(f.rule for f in result.findings) == ["RC001", "RC001"]


def test_a_fresh_transfer_makes_its_own_objects():
    # The memo is the exploration's: a second one (the stolen parameters' run) starts empty.
    cfg = _two_paths_then_a_load_and_an_acquisition()
    one, two = Transfer(cfg, CONV), Transfer(cfg, CONV)
    a, b = one.initial(), two.initial()
    one.step(4, a, [])
    two.step(4, b, [])
    fa = next(o for o in a.objs.values() if o.origin is Origin.FIELD)
    fb = next(o for o in b.objs.values() if o.origin is Origin.FIELD)
    assert fa == fb and fa is not fb
