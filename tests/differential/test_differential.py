"""Issue 3 "Proof": refcheck's verdicts equal an explicit enumeration of every path.

Random loop-free functions (acquisitions, releases, aliases, uses, null checks, branches on
parameters, forward gotos, THError, hand-overs, returns) must get exactly the (rule, line)
findings the oracle derives from semantics.md. Functions with loops and backward gotos can't be
enumerated; for them refcheck must just finish cleanly.

Where refcheck reads semantics.md differently from the oracle, the disagreement is reported to
the lead and settled (refcheck fixed, or semantics.md and the oracle changed): the comparison
below is exact, and the settled ones stay as REGRESSIONS.

Generation is derandomized, so a failure reproduces; the failing function is minimized before
it is shown. `python -m tests.differential --n 5000` runs the same comparison much longer.
"""

from __future__ import annotations

import tempfile

import clang.cindex as ci
import pytest
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st

from .compare import alone, check_batch, disagreement_class, shrink, unexpected_errors, write_unit
from .generate import CORE, FULL, LOOPS, SIZES, SWITCHES, UNWIND, batches
from .oracle import verdicts
from .program import (
    Acquire, Assign, Discard, Error, Function, If, Move, Release, Resize, Retain, Return, SizeCheck, Store, Switch,
    Use,
    emit_function, place_labels,
)

# Shrinking is ours (one parse per round over a single function), not hypothesis's, which
# would re-check whole batches at every step; quiet, because the minimized function in the
# assertion says more than the batch hypothesis would print.
SETTINGS = settings(max_examples=25, derandomize=True, deadline=None, database=None,
                    phases=(Phase.explicit, Phase.generate), verbosity=Verbosity.quiet,
                    suppress_health_check=list(HealthCheck))

PROFILES = [CORE, FULL, UNWIND, SIZES, SWITCHES]

# Disagreements found by this test during the first session, each settled (refcheck fixed, or
# semantics.md adopting refcheck's reading): their minimal examples stay as regressions that
# must agree exactly. name -> (function name, body, what once differed).
REGRESSIONS = {
    "correlation kept across a join": (
        "makeThing", [If(0, (), (If(1, (Return("NULL"),)),)),
                      If(1, (If(0, (Return("NULL"),)), Discard()))],
        "the newClone is unreachable (c1 true returns in the first if when c0 is false and in "
        "the second when c0 is true); refcheck once joined the two states and reported RC001"),
    "release after a hand-over is RC006": (
        "makeThing", [Acquire("t0"), Store("t0"), Release("t0")],
        "g_keep = t0 hands the reference over, so releasing t0 afterwards releases what this "
        "function no longer owns (semantics.md decision 9)"),
    "comparison with a NULL is a null test": (
        "makeThing", [Acquire("t3"), If(("t3", "t0"), (Release("t3"),))],
        "t0 holds NULL, so `t3 != t0` is a null test of t3 and on its equal edge t3 is NULL"),
    "repeated pointer comparison is correlated": (
        "makeThing", [Acquire("t0", contiguous=True), If(("t0", "p"), (Release("t0"),)),
                      If(("t0", "p"), (), (Release("t0"),))],
        "`t0 != p` tested twice with neither assigned takes the same edge: t0 is freed once "
        "(t0 from newContiguous(p), which may be p: a fresh newClone would decide the test)"),
    "equal pointers are NULL together": (
        "makeThing", [Acquire("t3", "t3", contiguous=True), If(("t3", "p"), (Return("NULL"),)),
                      If(("t2", "p"), (If("t2", (Return("NULL"),)),))],
        "on the equal edge of `t3 != p` (opaque: newContiguous may return its argument) t3 is p, "
        "so when `t2 != p` then finds p NULL, t3 is NULL too and nothing leaks at the last return; "
        "refcheck once kept t3 maybe-NULL there and reported RC001"),
    "a setter called again overwrites its slot": (
        "makeThing", [Store("p", "sink"), Store("t3", "sink"), Retain()],
        "THCThreadLocal_set(g_local, t3) replaces the p the first call kept, so p owes no stored "
        "copy and the retain is ours: RC001 at the return (refcheck once kept p's debt: sink "
        "stores had no location)"),
    "a store's debt ends with its location": (
        "makeThing", [Store("p"), Assign("t1", "NULL"), Store("t1"), Retain()],
        "g_keep = t1 overwrites the stored p, so no stored copy is left for the retain to pay "
        "for (decision 4): RC001 at the return"),
    "a tested temporary dying on an abort edge keeps no object alive": (
        "makeThing", [Acquire("t1", "t3", checked=Return("NULL")), Assign("t1", "t3"), Error(exit=True)],
        "`if ((t1 = newClone(t3)) == NULL)`'s non-NULL edge ends at abort(); the condition's "
        "temporary once stayed bound there (to die unreported), so `t1 = t3` lost no last "
        "reference: RC007 at the assignment is still owed"),
    "a result tested straight dies on its edges": (
        "makeThing", [Discard(tested=Error(exit=True)), Discard(tested=Error())],
        "`if (newClone(p) != NULL) abort();` and the same with THError (errors=abort): each "
        "non-NULL edge can only abort, the NULL edge holds nothing: clean"),
    "a paid location overwritten gives its reference back": (
        "makeThing", [Store("p"), Retain(), Store("t2"), Release("p")],
        "g_keep = p; retain(p) pays the stored copy; g_keep = t2 then drops the location's "
        "reference while p still holds the object, so it is ours and the free is clean "
        "(decision 4, Py_CLEAR's shape); the oracle once kept the reference in the location (RC006)"),
    "a paid sink slot overwritten gives its reference back": (
        "makeThing", [Store("p", "sink"), Retain(), Store("t3", "sink")],
        "THCThreadLocal_set(g_local, p) owes a reference (RC009), retain(p) pays it, and the "
        "setter called again with t3 replaces p in the slot while p still holds it: the "
        "reference is ours, RC001 at the return (the oracle once kept it in the slot)"),
    "storing again where it already is owes nothing": (
        "makeThing", [Retain(), Store("p"), Store("p"), Retain(), Retain(), Release("p")],
        "the second g_keep = p stores where p already is with its reference: no new debt, so the "
        "two retains are ours and one is left at the return (RC001); the oracle once made a debt"),
    "a consume after a double release keeps the take-back's line": (
        "makeThing", [Acquire("t1"), Store("t1"), Release("t1"), Move("t1")],
        "free(t1) takes g_keep's reference back and move(t1) releases it again (RC002); g_keep "
        "still holds it at the return, so the RC006 is the free's, not the move's (refcheck once "
        "moved it to the move's line)"),
    "switches over one enum parameter agree": (
        "makeThing", [Switch(((0, (Retain(),)), (1, ()))), Switch(((0, (Release("p"),)), (1, ()), (2, ())))],
        "k is never assigned: the second switch takes k's case of the first (K0 retains and then "
        "frees, K2 falls past the first and takes the second's empty case): clean"),
}


def _function(name: str, body: list) -> Function:
    body = place_labels(tuple(body)) + (Return("NULL"),)
    return Function(name, "ptr", body)


def _check_case(case: str):
    name, body, _ = REGRESSIONS[case]
    with tempfile.TemporaryDirectory() as d:
        result = check_batch([_function(name, body)], d)
    return result.disagreements[0] if result.disagreements else None


@pytest.mark.parametrize("case", list(REGRESSIONS))
def test_settled_disagreement_stays_settled(case):
    d = _check_case(case)
    assert d is None, f"{case}:\n{d.describe()}"


def _first_disagreement(functions, unwind: bool) -> str | None:
    with tempfile.TemporaryDirectory() as d:
        result = check_batch(functions, d, unwind=unwind)
        if result.errors:  # loop-free code is small: not even the bound may be hit
            return "refcheck reported tool errors on loop-free code:\n" + "\n".join(
                f"  {e.line}: {e.message}" for e in result.errors)
        if not result.disagreements:
            return None
        classes = {disagreement_class(x) for x in result.disagreements}
        small = alone(shrink(result.disagreements[0], d), d)
        return (f"{len(result.disagreements)} of {len(functions)} functions disagree "
                f"(classes {sorted(classes, key=str)}); the first, minimized:\n"
                f"{small.describe()}")


def _compare(profile):
    @SETTINGS
    @given(batches(profile, 20, 40))
    def check(functions):
        problem = _first_disagreement(functions, profile.unwind)
        assert problem is None, problem

    check()


# Size facts (semantics.md, same size) on the shapes random generation meets too rarely to pin:
# name -> (body, whether the size check's THError can fire, so that t2's clone leaks in unwind mode).
SIZE_CASES = {
    "checked right after resizeAs": ([Resize("t0", "p"), SizeCheck("t0", "p")], False),
    "the operands the other way round": ([Resize("t0", "p"), SizeCheck("p", "t0")], False),
    "a chain of resizes": ([Resize("t0", "p"), Resize("t1", "t0"), SizeCheck("p", "t1")], False),
    "an alias of the resized tensor": ([Assign("t1", "p"), Resize("t0", "t1"), SizeCheck("t0", "p")], False),
    "a call in between": ([Resize("t0", "p"), Use("t1", False), SizeCheck("t0", "p")], True),
    "the target resized again": ([Resize("t0", "p"), Resize("t0", "t1"), SizeCheck("t0", "p")], True),
    "the target resized through an alias": (
        [Resize("t0", "p"), Assign("t1", "t0"), Resize("t1", "t3"), SizeCheck("t0", "p")], True),
    "the target reassigned": ([Resize("t0", "p"), Assign("t0", "t1"), SizeCheck("t0", "p")], True),
    "a check repeated": ([SizeCheck("t0", "p"), SizeCheck("p", "t0")], True),
}


@pytest.mark.parametrize("case", list(SIZE_CASES))
def test_size_facts_agree_with_the_oracle(case):
    body, fires = SIZE_CASES[case]
    fn = _function("makeThing", [Acquire("t2"), *body, Release("t2")])
    _, layout = emit_function(fn, 3)
    leaks = {v for v in verdicts(fn, layout, unwind=True) if v[0] == "RC001"}
    assert bool(leaks) == fires, leaks
    with tempfile.TemporaryDirectory() as d:
        result = check_batch([fn], d, unwind=True)
    assert not result.disagreements, result.disagreements[0].describe()


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_loop_free_functions_get_the_oracles_verdicts(profile):
    _compare(profile)


@SETTINGS
@given(batches(LOOPS, 20, 30))
def test_functions_with_loops_and_backward_gotos_are_checked_cleanly(functions):
    with tempfile.TemporaryDirectory() as d:
        result = check_batch(functions, d, compare=False)
    errors = unexpected_errors(result.errors)
    assert not errors, "\n".join(f"{e.line}: {e.message}" for e in errors)
    assert result.functions == len(functions)


@SETTINGS
@given(st.sampled_from([LOOPS, SWITCHES]).flatmap(lambda p: batches(p, 30, 30)))
def test_generated_code_is_valid_c(functions):
    """Without this, a generator bug would show up as refcheck disagreements about nonsense."""
    with tempfile.TemporaryDirectory() as d:
        path, _ = write_unit(functions, d)
        tu = ci.Index.create().parse(path, args=["-I", d])
        bad = [str(x) for x in tu.diagnostics if x.severity >= ci.Diagnostic.Error]
    assert not bad, bad
