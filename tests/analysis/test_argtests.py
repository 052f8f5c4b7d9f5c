"""Results that are the argument itself where a test of it holds (`analysis.argtests`)."""

from __future__ import annotations

from types import SimpleNamespace

from refcheck.analysis.argtests import ArgumentTests

KEY = "call:PyObject_TypeCheck( 3 fn:PyObject_TypeCheck A#1 &global:matrix_tp"


def _tests(returns: set) -> tuple:
    t = ArgumentTests()
    t.init_argument_tests()
    t.index = {"dim#0": 0, "A#1": 1}
    t.params_by_index = {0: "dim#0", 1: "A#1"}
    t.argument_tests = {KEY: "A#1"}
    for kind, answer in returns:
        t.at_tests(SimpleNamespace(facts=SimpleNamespace(conds={KEY: answer} if answer is not None else {})), kind)
    return t.argument_when()


def test_the_argument_where_the_test_holds_a_new_object_elsewhere():
    template = "call:PyObject_TypeCheck( 3 fn:PyObject_TypeCheck @ &global:matrix_tp"
    assert _tests({(("argument", 1), True), (("owned",), None), (("owned",), False), (("null",), None)}) \
        == (1, template)
    # A recursive call's untracked result says nothing.
    assert _tests({(("argument", 1), True), (("owned",), None), (("other",), None)}) == (1, template)


def test_no_record_where_the_test_does_not_tell_them_apart():
    assert _tests({(("argument", 1), None), (("owned",), None)}) == ()  # the argument untested
    assert _tests({(("argument", 1), True), (("owned",), True)}) == ()  # owned where it holds too
    assert _tests({(("argument", 1), True)}) == ()  # nothing owned: ARGUMENT already says it
