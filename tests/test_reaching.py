"""The locals derived from a function's parameters (`frontend.setters.reaching_locals`) are
walked only for a graph holding the one store that reads them (`stores_through_locals`)."""

from __future__ import annotations

from cunit import FIXTURES, fixture_args, fixture_parses, parse_unit

from refcheck.analysis.summarize import Summarizer
from refcheck.conventions.presets import PRESETS
from refcheck.frontend import builder, setters
from refcheck.frontend.builder import build_cfg


def _setter_units():
    for unit, options, parsed in fixture_parses():
        conv = PRESETS[options.preset].conventions
        if conv.infer_setters:
            yield unit, conv, parsed


def test_the_setters_read_what_an_eager_walk_would_give(monkeypatch):
    """Every cpython fixture function: the same stored-only parameters with the walk skipped
    where no store reads it as with the walk done for every graph."""
    compared = 0
    for unit, conv, parsed in _setter_units():
        for fn in parsed.functions:
            lazy = build_cfg(fn, conv)
            with monkeypatch.context() as m:
                m.setattr(builder, "stores_through_locals", lambda graph, params: True)
                eager = build_cfg(fn, conv)
            assert lazy.reaching <= eager.reaching, (unit.name, fn.spelling)
            assert Summarizer(lazy, setters=True).setter == Summarizer(eager, setters=True).setter, \
                (unit.name, fn.spelling)
            compared += 1
    assert compared > 100


def test_walked_only_for_a_store_through_a_local(monkeypatch):
    walked = []
    real = setters.reaching_locals
    monkeypatch.setattr(builder, "reaching_locals", lambda fn, conv: walked.append(fn.spelling) or real(fn, conv))
    unit = FIXTURES / "cpython_table_inserts.c"
    parsed = parse_unit(unit, fixture_args(unit))
    conv = PRESETS["cpython"].conventions
    graphs = {fn.spelling: build_cfg(fn, conv) for fn in parsed.functions}
    assert "insert_stealing" in walked  # entry->identity = identity, entry derived from t
    assert graphs["insert_stealing"].reaching
    assert "insert_retaining" not in walked  # stores nothing itself
    assert len(walked) < len(graphs)
