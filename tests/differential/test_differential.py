"""Issue 3 "Proof": refcheck's verdicts equal an explicit enumeration of every path.

Random loop-free functions (acquisitions, releases, aliases, uses, null checks, branches on
parameters, forward gotos, THError, returns) must get exactly the (rule, line) findings the
oracle derives from semantics.md. Functions with loops and backward gotos can't be enumerated;
for them refcheck must just finish cleanly.

Generation is derandomized, so a failure reproduces; the failing function is minimized before
it is shown. `python -m tests.differential --n 2000` runs the same comparison much longer.
"""

from __future__ import annotations

import tempfile

import clang.cindex as ci
import pytest
from hypothesis import HealthCheck, Phase, given, settings

from .compare import alone, check_batch, shrink, unexpected_errors, write_unit
from .generate import CORE, FULL, LOOPS, UNWIND, batches

# Shrinking is ours (one parse per round over a single function), not hypothesis's, which
# would re-check whole batches at every step.
SETTINGS = settings(max_examples=8, derandomize=True, deadline=None, database=None,
                    phases=(Phase.explicit, Phase.generate),
                    suppress_health_check=list(HealthCheck))

PROFILES = [CORE, FULL, UNWIND]


def _first_disagreement(functions, unwind: bool) -> str | None:
    with tempfile.TemporaryDirectory() as d:
        result = check_batch(functions, d, unwind=unwind)
        errors = result.errors  # loop-free code is small: not even the bound may be hit
        if errors:
            return "refcheck reported tool errors on loop-free code:\n" + "\n".join(
                f"  {e.line}: {e.message}" for e in errors)
        if not result.disagreements:
            return None
        classes = {x.signature() for x in result.disagreements}
        small = alone(shrink(result.disagreements[0], d), d)
        return (f"{len(result.disagreements)} of {len(functions)} functions disagree "
                f"({len(classes)} classes); the first, minimized:\n{small.describe()}")


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_loop_free_functions_get_the_oracles_verdicts(profile):
    @SETTINGS
    @given(batches(profile, 20, 40))
    def check(functions):
        problem = _first_disagreement(functions, profile.unwind)
        assert problem is None, problem

    check()


@SETTINGS
@given(batches(LOOPS, 20, 30))
def test_functions_with_loops_and_backward_gotos_are_checked_cleanly(functions):
    with tempfile.TemporaryDirectory() as d:
        result = check_batch(functions, d, compare=False)
    errors = unexpected_errors(result.errors)
    assert not errors, "\n".join(f"{e.line}: {e.message}" for e in errors)
    assert result.functions == len(functions)


@SETTINGS
@given(batches(LOOPS, 30, 30))
def test_generated_code_is_valid_c(functions):
    """Without this, a generator bug would show up as refcheck disagreements about nonsense."""
    with tempfile.TemporaryDirectory() as d:
        path, _ = write_unit(functions, d)
        tu = ci.Index.create().parse(path, args=["-I", d, "-Wall", "-Wno-unused-label",
                                                 "-Wno-unused-variable",
                                                 "-Wno-unused-but-set-variable"])
        bad = [str(x) for x in tu.diagnostics if x.severity >= ci.Diagnostic.Error]
    assert not bad, bad
