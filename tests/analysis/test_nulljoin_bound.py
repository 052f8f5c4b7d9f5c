"""The measurement behind "NULL-or-owned joins" (tests/analysis/nulljoin_bound.py, docs/history/performance.md
eleventh session): which states its key would merge, on fixtures/null_or_owned.c, and that the
shapes it is about are reported, or not, as they should be by the exploration as it is."""

from __future__ import annotations

from cunit import FIXTURES, INCLUDE, parse_unit
from refcheck.analysis.explore import explore
from refcheck.conventions import Conventions
from refcheck.frontend.builder import build_cfg
from refcheck.rules import RULES
from tests.analysis.nulljoin_bound import count

CONV = Conventions()


def _cfgs() -> dict:
    parsed = parse_unit(FIXTURES / "null_or_owned.c", ["-I", str(INCLUDE)])
    cfgs = [build_cfg(fn, CONV) for fn in parsed.functions]
    return {c.name: c for c in cfgs}


def test_null_or_owned_key_merges_states_whose_facts_agree_only():
    cfgs = _cfgs()
    # Two counters, each NULL or owned under an opaque test: states that agree on every fact
    # and differ only in which counters were allocated share the NULL-or-owned key.
    states, exact, joined, forgotten = count(cfgs["fixture_counter_second_not_freed"], CONV, None)
    assert joined < exact <= states and forgotten == joined
    # Acquired and released under one remembered test: the test's outcome is a fact, so the
    # NULL state and the owned one stay apart under the key too (joining them, facts met, is
    # what reported torch7's geev falsely).
    states, exact, joined, _ = count(cfgs["fixture_acquired_and_released_under_one_test"], CONV, None)
    assert joined == exact


def test_apply_counter_states_differ_in_the_deciding_constant():
    # TH_TENSOR_APPLY's shape: the counter's NULL and owned states differ in `contiguous` too,
    # so the key with exact facts merges none of them; only forgetting that constant would.
    states, exact, joined, forgotten = count(_cfgs()["fixture_counter_null_or_owned"], CONV, "contiguous")
    assert joined == exact and forgotten < joined


def test_null_or_owned_fixture_findings():
    cfgs = _cfgs()
    found = {name: [(f.rule, f.location.line) for f in explore(cfg, CONV, RULES.values()).findings]
             for name, cfg in cfgs.items()}
    assert found["fixture_counter_null_or_owned"] == []
    assert found["fixture_acquired_and_released_under_one_test"] == []
    assert [r for r, _ in found["fixture_counter_second_not_freed"]] == ["RC001"]
    assert [r for r, _ in found["fixture_acquired_and_released_under_other_test"]] == ["RC001"]
