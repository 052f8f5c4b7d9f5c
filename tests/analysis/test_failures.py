"""A helper's failure class read off its graph (`analysis.failures`): the result its failed
acquires return, whatever C's 0 would say; and the mixed fates read as a takeover."""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.failures import failure_class, taken_over
from refcheck.conventions.summary import When
from refcheck.ir.cfg import Node
from tests.analysis.test_states import L, make


def _helper(fail: int, ok: int, acquire: bool = True):
    # t = PyTuple_New (2) [or an opaque value]; if (!t) return FAIL; ...; return OK;
    first = ir.Acquire(L(2), "PyTuple_New(...)", "PyTuple_New") if acquire else ir.Assign(L(2), "PyTuple_New(...)", None)
    return make([
        Node("entry", L(1)), Node("exit", L(9)),
        Node("block", ops=[first, ir.Assign(L(2), "t", "PyTuple_New(...)")]),
        Node("branch", L(3), cond=ir.NullTest("t"), text="t"),
        Node("block"),
        Node("return", L(4), const=fail),
        Node("block", ops=[ir.Use(L(5), "t")]),
        Node("return", L(6), const=ok),
    ], [(0, 2), (2, 3), (3, 4, False), (4, 5), (5, 1), (3, 6, True), (6, 7), (7, 1)])


def test_the_result_after_a_failed_acquire_is_the_failure():
    assert failure_class(_helper(0, 1)) is When.ZERO  # a YAJL callback: 1 goes on, 0 aborts
    assert failure_class(_helper(-1, 0)) is When.NONZERO  # CPython's own convention


def test_no_failed_acquire_says_nothing():
    assert failure_class(_helper(0, 1, acquire=False)) is None
    assert failure_class(_helper(0, 0)) is When.ZERO  # the success return is no failure evidence


def test_mixed_fates_on_success_are_a_takeover_only_beside_a_borrowed_failure():
    assert taken_over({"released", "sunk"}, {"borrowed", "sunk"})
    # Kept on every failure return too (keep24: libsoup's soup_connection_connected unrefs or
    # hands over its parameter before every `return TRUE` and keeps it on `return FALSE`).
    assert taken_over({"released", "sunk"}, {"borrowed"})
    assert not taken_over({"released", "sunk"}, {"sunk"})  # given up on both: no borrowed failure
    assert not taken_over({"released", "borrowed"}, {"borrowed", "sunk"})  # kept on a success
    assert not taken_over({"released"}, {"borrowed", "released"})  # one fate: `split`'s own rule
