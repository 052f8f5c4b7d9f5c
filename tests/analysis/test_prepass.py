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
        counts = check_unit(str(unit), settings).counts
        if not conv.infer_steals:  # the presets that infer steals and unkept parameters: never proved
            analysed += counts.get("analysed", 0)
    rows = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return rows, analysed


@pytest.mark.parametrize("errors", ["abort", "unwind"])
def test_no_disagreement_on_any_fixture_function(tmp_path, monkeypatch, errors):
    rows, analysed = _checked(tmp_path, monkeypatch, errors)
    wrong = [f"{r['function']}: {r['why']}" for r in rows if not r["agree"]]
    assert not wrong, "\n".join(wrong)
    # A share the pass must keep proving: a third of the functions analysed under the presets it
    # can prove anything in (116 of 330 in both modes when it was written).
    assert len(rows) >= analysed // 3, (len(rows), analysed)
