"""The oracle on hand-written programs whose verdicts semantics.md spells out.

If the oracle were wrong, the differential test would only prove two implementations agree on
a mistake; these pin it to the contract independently of refcheck.
"""

from __future__ import annotations

import pytest

from .oracle import verdicts
from .program import (
    Acquire, Assign, Discard, Error, Flag, Function, Goto, If, Move, NullCheck, Release, Retain, Return,
    Store, Switch, Use, emit_function, place_labels,
)

NEW = Acquire


def run(body, name="makeThing", returns="ptr", unwind=False):
    """The oracle's findings as (rule, text of the primary line), text made unique by the test."""
    body = place_labels(tuple(body))
    if returns != "void" and not isinstance(body[-1], Return):
        body += (Return("NULL" if returns == "ptr" else "0"),)
    fn = Function(name, returns, body)
    text, layout = emit_function(fn, 1)
    return {(v[0], text[v[1] - 1].strip()) for v in verdicts(fn, layout, unwind) if len(v) == 2}


def origins(body, returns="void"):
    """(rule, primary line, acquisition line) findings, lines counted from the signature."""
    fn = Function("makeThing", returns, tuple(body))
    _, layout = emit_function(fn, 1)
    return {v for v in verdicts(fn, layout) if len(v) == 3}


def test_leak_at_return_and_at_closing_brace():
    assert run([NEW("t0")]) == {("RC001", "return NULL;")}
    assert run([NEW("t0")], returns="void") == {("RC001", "}")}


def test_release_and_release_through_alias_are_clean():
    assert run([NEW("t0"), Release("t0")]) == set()
    assert run([NEW("t0"), Assign("t1", "t0"), Release("t1")]) == set()


def test_freeing_null_is_clean():
    assert run([Release("t0")], returns="void") == set()


def test_double_release_reported_at_second_release():
    got = run([NEW("t0"), Assign("t1", "t0"), Release("t0"), Release("t1")], returns="void")
    assert got == {("RC002", "THFloatTensor_free(t1);")}


@pytest.mark.parametrize("deref, text", [(True, "sink(t0->nDimension);"), (False, "sinkp(t0);")])
def test_use_after_release(deref, text):
    assert run([NEW("t0"), Release("t0"), Use("t0", deref)], returns="void") == {("RC003", text)}


def test_owned_return_from_non_new_is_rc004_not_rc001():
    assert run([NEW("t0"), Return("t0")]) == {("RC004", "return t0;")}
    assert run([NEW("t0"), Return("t0")], name="newThing") == set()


def test_borrowed_return_from_new():
    assert run([Return("p")], name="newThing") == {("RC005", "return p;")}
    assert run([Assign("t1", "p"), Return("t1")], name="newThing") == {("RC005", "return t1;")}
    assert run([Retain(), Return("p")], name="newThing") == set()
    assert run([Return("p")], name="makeThing") == set()


def test_retained_parameter_must_be_released():
    assert run([Retain()], returns="int") == {("RC001", "return 0;")}
    assert run([Retain(), Release("p")], returns="int") == set()
    # Two retains, one handed to the caller: the other is lost.
    assert run([Retain(), Retain(), Return("p")], name="newThing") == {("RC001", "return p;")}


def test_release_of_borrowed_parameter_or_its_alias():
    assert run([Release("p")], returns="void") == {("RC006", "THFloatTensor_free(p);")}
    assert run([Assign("t2", "p"), Release("t2")], returns="void") == {
        ("RC006", "THFloatTensor_free(t2);")}


def test_overwriting_the_last_owner():
    assert run([NEW("t0"), Assign("t0", "NULL")], returns="void") == {("RC007", "t0 = NULL;")}
    # Another variable still points at it: no RC007, and releasing it there is clean.
    assert run([NEW("t0"), Assign("t1", "t0"), Assign("t0", "NULL"), Release("t1")],
               returns="void") == set()
    # RC007 replaces the RC001 the lost reference would otherwise get at the exit.
    assert run([NEW("t0"), NEW("t1"), Assign("t0", "t1"), Release("t0")], returns="void") == {
        ("RC007", "t0 = t1;")}


def test_null_edge_of_a_null_test_has_nothing_to_release():
    got = run([NEW("t0"), NEW("t1"), NullCheck("t0", Return("NULL")), Release("t0"),
               Release("t1"), Return("t2")])
    assert got == {("RC001", "if (!t0) return NULL;")}


def test_null_test_of_an_alias_is_the_same_test():
    body = [NEW("t0"), Assign("t1", "t0"), NEW("t2"), NullCheck("t0", Return("t2")),
            NullCheck("t1", Return("NULL")), Release("t0"), Return("t2")]
    assert run(body, name="newThing") == set()


def test_same_condition_twice_takes_the_same_edge():
    # semantics.md: if (!contig) t = newContiguous(x); else t = x; ... if (!contig) free(t);
    body = [If(0, (NEW("t0"),), (Assign("t0", "p"),)), Use("t0", True), If(0, (Release("t0"),))]
    assert run(body, returns="void") == set()
    body = [If(0, (NEW("t0"),)), If(1, (Release("t0"),))]
    assert run(body, returns="void") == {("RC001", "}")}


def test_error_paths_need_no_cleanup():
    assert run([NEW("t0"), If(0, (Error(),)), Release("t0")], returns="void") == set()
    assert run([NEW("t0"), Error()], returns="void") == set()


def test_discarded_acquisition_leaks_at_the_call():
    assert run([Discard()], returns="void") == {("RC001", "THFloatTensor_newClone(p);")}


def test_forward_goto_skips_the_release():
    body = [NEW("t0"), If(1, (Goto(ahead=2),)), Release("t0"), Return("t1")]
    assert run(body) == {("RC001", "return t1;")}


def test_passing_a_released_parameter_to_an_acquisition_is_a_use():
    got = run([Release("p"), NEW("t0"), Release("t0")], returns="void")
    assert got == {("RC006", "THFloatTensor_free(p);"),
                   ("RC003", "t0 = THFloatTensor_newClone(p);")}


def test_unreachable_code_reports_nothing():
    assert run([Return("NULL"), NEW("t0"), Return("t0")]) == set()


def test_error_call_is_an_exit_in_unwind_mode():
    body = [NEW("t0"), If(0, (Error(),)), Release("t0")]
    assert run(body, returns="void", unwind=True) == {
        ("RC001", 'THError("differential: error path");')}


def test_storing_into_memory_hands_the_reference_over():
    assert run([NEW("t0"), Store("t0")], returns="void") == set()
    assert run([NEW("t0"), Store("p")], returns="void") == {("RC001", "}")}


def test_move_consumes_and_a_later_release_is_rc008():
    assert run([NEW("t0"), Move("t0")], returns="void") == set()
    assert run([NEW("t0"), Move("t0"), Release("t0")], returns="void") == {
        ("RC008", "THFloatTensor_free(t0);")}
    assert run([NEW("t0"), Move("t0"), Use("t0", True)], returns="void") == {
        ("RC003", "sink(t0->nDimension);")}


def test_a_variable_holding_null_is_null():
    body = [NEW("t0"), NullCheck("t1", Return("NULL")), Release("t0"), Return("t2")]
    assert run(body) == {("RC001", "if (!t1) return NULL;")}


def test_decision_1_retain_then_free_leaves_the_parameter_borrowed():
    assert run([Retain(), Release("p"), Use("p", True)], returns="void") == set()
    assert run([Retain(), Release("p"), Assign("t0", "p"), Release("t0")], returns="void") == {
        ("RC006", "THFloatTensor_free(t0);")}


def test_decision_2_a_released_borrowed_parameter_counts_as_released():
    assert run([Release("p"), Use("p", True)], returns="void") == {
        ("RC006", "THFloatTensor_free(p);"), ("RC003", "sink(p->nDimension);")}


def test_decision_3_returning_a_released_reference_is_a_use():
    assert run([NEW("t0"), Release("t0"), Return("t0")]) == {("RC003", "return t0;")}
    assert run([Release("p"), Return("p")], name="newThing") == {
        ("RC006", "THFloatTensor_free(p);"), ("RC003", "return p;")}


def test_decision_4_a_store_then_a_retain_hands_the_reference_over():
    assert run([Store("p"), Retain()], returns="void") == set()
    assert run([Store("p"), Retain(), Retain()], returns="void") == {("RC001", "}")}


def test_null_test_with_a_block_joins_the_two_edges():
    assert run([NEW("t0"), If("t0", (Release("t0"),), positive=True)], returns="void") == set()
    assert run([NEW("t0"), If("t0", (Release("t0"),))], returns="void") == {("RC001", "}")}
    body = [NEW("t0"), If("t0", (Return("NULL"),)), Return("t0")]
    assert run(body, name="newThing") == set()


def test_acquisition_tested_in_its_own_condition():
    body = [Acquire("t0", checked=Return("NULL")), Return("t0")]
    assert run(body, name="newThing") == set()
    body = [NEW("t1"), Acquire("t0", checked=Return("NULL")), Release("t1"), Return("t0")]
    assert run(body, name="newThing") == {
        ("RC001", "if ((t0 = THFloatTensor_newClone(p)) == NULL) return NULL;")}


def test_acquiring_from_a_released_pointer_is_a_use_and_overwriting_it_leaks():
    body = [NEW("t0"), Release("t0"), Acquire("t1", arg="t0"), Release("t1")]
    assert run(body, returns="void") == {("RC003", "t1 = THFloatTensor_newClone(t0);")}
    assert run([NEW("t0"), Acquire("t0", arg="t0"), Release("t0")], returns="void") == {
        ("RC007", "t0 = THFloatTensor_newClone(t0);")}


def test_acquisition_passed_straight_into_a_call_leaks_there():
    assert run([Discard(into_call=True)], returns="void") == {
        ("RC001", "sinkp(THFloatTensor_newClone(p));")}


def test_a_tested_result_dies_on_the_edges_of_its_test():
    # The NULL edge holds nothing; the other ends at the arm: an abort checks nothing, THError
    # neither with errors="abort", and with "unwind" it is an exit after the result died.
    assert run([Discard(tested=Error(exit=True))], returns="void", unwind=True) == set()
    assert run([Discard(tested=Error())], returns="void") == set()
    line = "if (THFloatTensor_newClone(p) != NULL) THError(\"differential: error path\");"
    assert run([Discard(tested=Error())], returns="void", unwind=True) == {("RC001", line)}
    assert run([NEW("t0"), Discard(tested=Error())], returns="void", unwind=True) == {("RC001", line), ("RC001", "}")}
    assert run([NEW("t0"), Discard(tested=Error(exit=True))], returns="void") == {("RC001", "}")}


def test_abort_needs_no_cleanup_even_in_unwind_mode():
    assert run([NEW("t0"), Error(exit=True)], returns="void", unwind=True) == set()


def test_leaks_are_told_apart_by_their_acquisition():
    # Lines: 1 signature, 2 brace, 3-4 declarations, 5-6 the acquisitions, 7-9 the if, 10 brace.
    body = [NEW("t0"), NEW("t1"), If(0, (Release("t1"),))]
    assert origins(body) == {("RC001", 10, 5), ("RC001", 10, 6)}
    # The parameter's retained reference (line 4) has no acquisition to name.
    assert origins([Retain(), NEW("t0"), Assign("t0", "NULL")]) == {("RC007", 6, 5)}


def test_decision_5_comparing_a_pointer_with_its_alias_is_decided():
    body = [NEW("t0"), Assign("t1", "t0"), If(("t0", "t1"), (Return("NULL"),)), Release("t0")]
    assert run(body) == set()


def test_comparing_two_objects_is_opaque_but_correlated():
    # newContiguous(p) may be p: the comparison is open (a newClone would decide it).
    contig = Acquire("t0", "p", contiguous=True)
    body = [contig, If(("t0", "p"), (Release("t0"),))]
    assert run(body, returns="void") == {("RC001", "}")}
    body = [contig, If(("t0", "p"), (Release("t0"),)), If(("t0", "p"), (), (Release("t0"),))]
    assert run(body, returns="void") == set()


def test_comparing_with_null_is_a_null_test():
    body = [NEW("t3"), If(("t3", "t0"), (Release("t3"),))]
    assert run(body, returns="void") == set()


def test_a_second_store_overwrites_the_debt_of_the_first():
    assert run([Store("p"), Store("t0"), Retain()], returns="void") == {("RC001", "}")}


def test_sink_is_a_handover_like_a_store():
    """A callee that keeps the reference (THCThreadLocal_set) ends our duty; a release after it
    is RC006 (decision 9), a second reference still leaks."""
    assert run([NEW("t0"), Store("t0", via="sink")], returns="void") == set()
    assert run([NEW("t0"), Store("t0", via="sink"), Release("t0")], returns="void") == {
        ("RC006", "THFloatTensor_free(t0);")}
    assert run([Retain(), Retain(), Store("p", via="sink")], returns="void") == {("RC001", "}")}


def test_status_check_raises_only_on_a_nonzero_status():
    """__THCudaCheck(cN, ...) is `if (cN) THError(...)`: with errors="unwind" the held clone
    leaks at the check; the success path goes on to the free; a repeated test of cN agrees."""
    check = Error(status=0)
    assert run([NEW("t0"), check, Release("t0")], returns="void") == set()
    assert run([NEW("t0"), check, Release("t0")], returns="void", unwind=True) == {
        ("RC001", "__THCudaCheck(c0, __FILE__, __LINE__);")}
    # if (c0) { free(t0); check(c0) } free(t0): the check raises whenever the branch was taken.
    assert run([NEW("t0"), If(0, (Release("t0"), check)), Release("t0")], returns="void") == set()


def test_fresh_acquisition_differs_from_older_objects():
    """newClone's result is a new object: `t0 != p` always holds (unless both are NULL), so the
    free under it always runs; with the test inverted the clone always leaks."""
    assert run([NEW("t0"), If(("t0", "p"), (Release("t0"),))], returns="void") == set()
    assert run([NEW("t0"), If(("t0", "p"), (), (Release("t0"),))], returns="void") == {("RC001", "}")}
    assert run([NEW("t0"), NEW("t1"), If(("t0", "t1"), (Release("t1"),)), Release("t0")],
               returns="void") == set()


def test_may_return_argument_keeps_the_comparison_open():
    """newContiguous(p) may be p (+1): `t0 != p` is opaque and the equal edge leaks; a fresh
    clone of it still differs from it, and from p."""
    contig = Acquire("t0", "p", contiguous=True)
    assert run([contig, If(("t0", "p"), (Release("t0"),))], returns="void") == {("RC001", "}")}
    assert run([contig, NEW("t1", "t0"), If(("t1", "t0"), (Release("t1"),)), Release("t0")],
               returns="void") == set()
    # newContiguous(t1) of a fresh t1 may be t1 itself: open again.
    assert run([NEW("t1"), Acquire("t0", "t1", contiguous=True), If(("t0", "t1"), (Release("t0"),)),
                Release("t1")], returns="void") == {("RC001", "}")}


def test_newcontiguous_of_its_own_result_is_the_same_object():
    """t0 = newContiguous(t0) again returns t0's object with +1: two frees balance it, one
    leaks, three double-release; a second newClone instead overwrites the first (RC007)."""
    again = [Acquire("t0", "p", contiguous=True), Acquire("t0", "t0", contiguous=True)]
    assert run([*again, Release("t0"), Release("t0")], returns="void") == set()
    assert run([*again, Release("t0")], returns="void") == {("RC001", "}")}
    assert run([*again, Release("t0"), Release("t0"), Release("t0")], returns="void") == {
        ("RC002", "THFloatTensor_free(t0);")}
    assert run([NEW("t0"), NEW("t0", "t0"), Release("t0")], returns="void") == {
        ("RC007", "t0 = THFloatTensor_newClone(t0);")}


def test_flag_remembers_a_null_test():
    """c0 = !t0; if (!t0) t0 = newClone(p); ... if (c0) free(t0);  frees exactly the clone."""
    body = [Flag(0, "t0"), If("t0", (NEW("t0"),)), If(0, (Release("t0"),))]
    assert run(body, returns="void") == set()
    inverted = [Flag(0, "t0", positive=True), If("t0", (NEW("t0"),)), If(0, (Release("t0"),))]
    assert run(inverted, returns="void") == {("RC001", "}")}


# Every way the oracle can be run must change what it says on some program: a mode that changes
# nothing proves nothing (an empty `Readings` once made `--reported` compare what the plain run does).
# name of a keyword of `verdicts` -> (a body, the value that changes its verdicts).
MODES = {
    "unwind": ([NEW("t0"), Error(), Release("t0")], True),
}


def test_every_mode_of_the_oracle_changes_its_verdicts():
    import inspect

    modes = [p for p in inspect.signature(verdicts).parameters if p not in ("fn", "layout")]
    assert sorted(modes) == sorted(MODES), "each mode of verdicts() needs a program it changes"
    for name, (body, value) in MODES.items():
        assert run(body) != run(body, **{name: value}), f"verdicts(..., {name}={value!r}) changes nothing"


def test_a_borrowed_object_stored_in_two_locations_owes_two_retains():
    """One debt per location holding it (decision 4): two retains pay for the copies in g_keep
    and in the thread-local slot (handing the slot a borrowed p is RC009 all the same); a third is
    ours and leaks; storing twice in one place owes one."""
    sunk = ("RC009", "THCThreadLocal_set(g_local, p);")
    two = [Store("p"), Store("p", via="sink"), Retain(), Retain()]
    assert run(two, returns="void") == {sunk}
    assert run(two + [Retain()], returns="void") == {sunk, ("RC001", "}")}
    assert run([Store("p"), Store("p"), Retain(), Retain()], returns="void") == {("RC001", "}")}


def test_a_release_takes_back_what_a_location_still_holds_until_the_return():
    """g_keep = t0; free(t0): the release takes g_keep's reference back (no longer decision 9's
    RC006 at once); RC006 at the release if g_keep still holds it when the function returns,
    nothing if g_keep was given something else first; an error exit with errors="abort" checks
    nothing; a sink's slot is never taken back."""
    assert run([NEW("t0"), Store("t0"), Release("t0")], returns="void") == {
        ("RC006", "THFloatTensor_free(t0);")}
    assert run([NEW("t0"), Store("t0"), Release("t0"), Store("p")], returns="void") == set()
    assert run([NEW("t0"), Store("t0"), Release("t0"), Error()], returns="void") == set()
    assert run([NEW("t0"), Store("t0", via="sink"), Release("t0")], returns="void") == {
        ("RC006", "THFloatTensor_free(t0);")}


def test_decision_4_a_paid_location_overwritten_gives_its_reference_back():
    paid = [Store("p"), Retain(), Store("t1")]  # g_keep = p; retain(p); g_keep = t1;
    assert run(paid + [Release("p")], returns="void") == set()
    assert run(paid, returns="void") == {("RC001", "}")}
    # Stored again where it already is, with its reference: no second debt, the retain is ours.
    assert run([Retain(), Store("p"), Store("p"), Retain()], returns="void") == {("RC001", "}")}


def test_decision_9_a_location_overwritten_gives_an_owned_reference_back():
    """t0 = new; g_keep = t0; g_keep = p;: the reference handed to g_keep is ours again once g_keep
    is overwritten while t0 still holds the object (CPython's Py_XSETREF(self->f, NULL) after
    Py_INCREF(x); Py_XSETREF(self->f, x)); one a release took back first is not given back."""
    handed = [NEW("t0"), Store("t0"), Store("p")]
    assert run(handed + [Release("t0")], returns="void") == set()
    assert run(handed, returns="void") == {("RC001", "}")}
    taken = [NEW("t0"), Store("t0"), Release("t0"), Store("p")]
    assert run(taken, returns="void") == set()
    assert run(taken + [Release("t0")], returns="void") == {("RC002", "THFloatTensor_free(t0);")}
    # A sink's slot is not a location the function clears: its keeper decides.
    assert run([NEW("t0"), Store("t0", via="sink"), Store("p", via="sink"), Release("t0")], returns="void") == {
        ("RC006", "THFloatTensor_free(t0);"), ("RC009", "THCThreadLocal_set(g_local, p);")}


def test_an_enum_switch_takes_one_case_and_agrees_with_later_switches():
    every = Switch(((0, ()), (1, ()), (2, (Release("t0"),))))
    assert run([NEW("t0"), every, Release("t0")], returns="void") == {("RC002", "THFloatTensor_free(t0);")}
    # Without K2's case its value falls past; K0 returned at the first switch, so the second
    # needs no K0 case: nothing falls past it.
    first = Switch(((0, (Release("t0"), Return(None))), (1, ())))
    second = Switch(((1, (Release("t0"),)), (2, (Release("t0"),))))
    assert run([NEW("t0"), first, second], returns="void") == set()
    assert run([NEW("t0"), first, Switch(((1, (Release("t0"),)),))], returns="void") == {("RC001", "}")}
