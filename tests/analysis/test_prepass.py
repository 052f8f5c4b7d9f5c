"""The first pass (`refcheck.analysis.prepass`) against the exploration it stands in for: every
fixture unit checked in both --errors modes with its preset, the check mode on (both run on every
function the pass proves), zero disagreements, and a reasonable share proved (so that the test
fails if the pass is turned off or proves nothing)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from fixture_expect import find_units, unit_sources
from refcheck.analysis import prepass
from refcheck.conventions.presets import PRESETS
from refcheck.driver.engine import Settings, check_unit
from tests.test_fixtures import FIXTURES, INCLUDE, REPO, _skip_without_headers


def _checked(tmp_path, monkeypatch, errors: str) -> list[dict]:
    log = tmp_path / f"prepass-{errors}.jsonl"
    monkeypatch.setattr(prepass, "CHECK", str(log))
    monkeypatch.setattr(prepass, "ENABLED", True)
    analysed = 0
    for unit in find_units(FIXTURES):
        try:
            _skip_without_headers(unit)
        except pytest.skip.Exception:
            continue
        options = unit_sources(unit, FIXTURES, [INCLUDE])[0].options
        conv = replace(PRESETS[options.preset].conventions, errors=errors,
                       may_raise_summaries=options.may_raise_summaries)
        settings = Settings(conventions=conv, clang_args=["-I", str(INCLUDE), *options.clang_args], root=str(REPO))
        analysed += check_unit(str(unit), settings).counts.get("analysed", 0)
    rows = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return rows, analysed


@pytest.mark.parametrize("errors", ["abort", "unwind"])
def test_no_disagreement_on_any_fixture_function(tmp_path, monkeypatch, errors):
    rows, analysed = _checked(tmp_path, monkeypatch, errors)
    wrong = [f"{r['function']}: {r['why']}" for r in rows if not r["agree"]]
    assert not wrong, "\n".join(wrong)
    # What the pass must keep proving, of fixtures that are mostly defects: 251 of 1,610 analysed
    # (abort) and 215 (unwind) when it was written; 206 of 1,639 (unwind) at the twentieth
    # session's start, 208 of 1,684 after it. New fixtures are mostly buggy functions, so the
    # share drifts down while the count holds: both are bounded.
    assert len(rows) >= 200 and len(rows) >= analysed // 10, (len(rows), analysed)
    if errors == "unwind":  # the tail cut compared with the whole exploration too
        assert any(r["cut"] for r in rows)


PROVED = {"fixture_prepass_three_counters", "fixture_prepass_checked_then_counter"}
BUGGY = {"fixture_prepass_counter_early_return": "an owned object at an end",
         "fixture_prepass_counter_twice": "released twice",
         "fixture_prepass_counter_read_late": "a use after release"}


@pytest.mark.parametrize("errors", ["abort", "unwind"])
def test_counters_proved_and_their_buggy_twins_left_to_the_exploration(errors):
    from cunit import parse_unit
    from refcheck.conventions import Conventions
    from refcheck.frontend.builder import build_cfg

    conv = Conventions(errors=errors)
    parsed = parse_unit(FIXTURES / "prepass_counters.c", ["-I", str(INCLUDE)])
    why = {fn.spelling: prepass.why_unknown(build_cfg(fn, conv), conv) for fn in parsed.functions}
    assert {name for name, w in why.items() if not w} == PROVED, why
    for name, reason in BUGGY.items():
        assert why[name] == reason, (name, why[name])


def test_the_switch_turns_the_pass_off(monkeypatch):
    from cunit import parse_unit
    from refcheck.analysis import analyze
    from refcheck.conventions import Conventions
    from refcheck.frontend.builder import build_cfg

    conv = Conventions()
    parsed = parse_unit(FIXTURES / "prepass_counters.c", ["-I", str(INCLUDE)])
    fn = next(f for f in parsed.functions if f.spelling == "fixture_prepass_three_counters")
    monkeypatch.setattr(prepass, "CHECK", "")
    on = analyze(build_cfg(fn, conv), conv)
    monkeypatch.setattr(prepass, "ENABLED", False)
    off = analyze(build_cfg(fn, conv), conv)
    assert on.proved and on.states == 0 and not on.findings
    assert not off.proved and off.states > 0 and (off.findings, off.summary) == (on.findings, on.summary)


def _why(unit: str, errors: str) -> dict:
    from cunit import parse_unit
    from refcheck.conventions import Conventions
    from refcheck.frontend.builder import build_cfg

    conv = Conventions(errors=errors)
    parsed = parse_unit(FIXTURES / unit, ["-I", str(INCLUDE)])
    return {fn.spelling: prepass.why_unknown(build_cfg(fn, conv), conv) for fn in parsed.functions}


# With errors=unwind, APPLY2's size check after its counters is an error edge that would lose
# them; proved where every path knows the sizes equal (`mustsizes`), else left to the exploration.
SIZES_PROVED = {
    "prepass_sizes.c": {"fixture_prepass_sizes_after_join", "fixture_prepass_sizes_own_buffer"},
    "unwind_sizes.c": {"fixture_sizes_resize_then_apply", "fixture_sizes_resize_then_branch"},
}
SIZES_BUGGY = {
    "prepass_sizes.c": {"fixture_prepass_sizes_one_arm", "fixture_prepass_sizes_out_store",
                        "fixture_prepass_sizes_loop"},
    "unwind_sizes.c": {"fixture_sizes_other_operand", "fixture_sizes_resized_between", "fixture_sizes_reassigned",
                       "fixture_sizes_field_store", "fixture_sizes_same_size_ignored",
                       "fixture_sizes_argcheck_other", "fixture_sizes_stale_count"},
}


@pytest.mark.parametrize("unit", sorted(SIZES_PROVED))
def test_size_checks_after_counters_proved_and_buggy_twins_left(unit):
    why = _why(unit, "unwind")
    proved = {name for name, w in why.items() if not w}
    assert SIZES_PROVED[unit] <= proved, why
    assert not proved & SIZES_BUGGY[unit], why


def test_size_facts_off_the_pass_proves_no_counter_shape(monkeypatch):
    """Without the must-analysis the size check's error edge keeps every one of them UNKNOWN (the
    test above cannot pass with `mustsizes` doing nothing)."""
    from refcheck.analysis import mustsizes

    monkeypatch.setattr(mustsizes, "has_size_tests", lambda data: False)
    why = _why("prepass_sizes.c", "unwind")
    assert all(why[name] == "an owned object at an end" for name in SIZES_PROVED["prepass_sizes.c"]), why


def test_the_reason_log_names_why_and_what_the_exploration_cost(tmp_path, monkeypatch):
    import sys

    from cunit import parse_unit
    from refcheck.analysis import analyze
    from refcheck.conventions import Conventions
    from refcheck.frontend.builder import build_cfg

    sys.path.insert(0, str(REPO / "tools"))
    import prepass_why

    log = tmp_path / "why.jsonl"
    monkeypatch.setattr(prepass, "WHY", str(log))
    monkeypatch.setattr(prepass, "CHECK", "")
    conv = Conventions(errors="unwind")
    parsed = parse_unit(FIXTURES / "prepass_sizes.c", ["-I", str(INCLUDE)])
    results = {fn.spelling: analyze(build_cfg(fn, conv), conv) for fn in parsed.functions}
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert {r["function"] for r in lines} == set(results)
    for r in lines:
        assert (r["why"] == "") == results[r["function"]].proved
        assert r["why"] == "" or r["states"] == results[r["function"]].states > 0
    table = prepass_why.table(log.read_text().splitlines())
    assert table[0].startswith(f"{len(results)} analyses")
    assert any("PROVED (no finding)" in row and row.split()[0] == "2" for row in table[1:]), table


def test_the_tail_after_the_last_error_is_cut_only_where_nothing_is_reported_there():
    from cunit import parse_unit
    from refcheck.analysis.explore import explore
    from refcheck.conventions import Conventions
    from refcheck.frontend.builder import build_cfg
    from refcheck.rules import RULES

    conv = Conventions(errors="unwind")
    parsed = parse_unit(FIXTURES / "prepass_sizes.c", ["-I", str(INCLUDE)])
    cfgs = {fn.spelling: build_cfg(fn, conv) for fn in parsed.functions}
    cut = cfgs["fixture_prepass_sizes_tail_cut"]
    why = prepass.why_unknown(cut, conv)
    tail = prepass.unwinding_only(cut, conv, why)
    assert why == "an owned object at an end" and tail
    full, part = explore(cut, conv, RULES.values()), explore(cut, conv, RULES.values(), tail=tail)
    assert part.states < full.states and part.findings == full.findings and len(full.findings) == 1
    leak = next(build_cfg(fn, conv) for fn in parse_unit(FIXTURES / "prepass_tail.c", ["-I", str(INCLUDE)]).functions)
    assert not prepass.unwinding_only(leak, conv, prepass.why_unknown(leak, conv))
    assert len(explore(leak, conv, RULES.values()).findings) == 2  # the counter, and buf
    assert not prepass.unwinding_only(cut, Conventions(errors="abort"), why)
    # Error ends past the last release own nothing: the cut starts at the release, and stops
    # before an error end the buffer is still owned at (whose leak is still reported).
    for name, leaks in (("fixture_prepass_sizes_tail_after_release", 1),
                        ("fixture_prepass_sizes_tail_before_release", 2)):
        g = cfgs[name]
        why = prepass.why_unknown(g, conv)
        tail = prepass.unwinding_only(g, conv, why)
        assert why == "an owned object at an end" and bool(tail) == (leaks == 1), name
        full, part = explore(g, conv, RULES.values()), explore(g, conv, RULES.values(), tail=tail)
        assert part.states <= full.states and part.findings == full.findings, name
        assert len(full.findings) == leaks, (name, full.findings)
    after = cfgs["fixture_prepass_sizes_tail_after_release"]
    cut_after = prepass.unwinding_only(after, conv, prepass.why_unknown(after, conv))
    assert any(after.graph.nodes[n]["data"].kind == "error" for n in cut_after)  # the THError past the release
