"""The collector's pauses: each function's build and exploration run without collections, the
unit's parse is frozen out of the ones between functions, and a built graph is freed by
reference counting when it is dropped (a cycle would leave it for a collection to find, which is
the cost the pauses exist to avoid)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from refcheck.conventions import Conventions
from refcheck.engine import Settings, check_unit
from refcheck.frontend.builder import build_cfg
from refcheck.frontend.unit import parse
from refcheck.gcpause import frozen_heap, paused_collector

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_pauses_nest_and_restore_the_collector():
    assert gc.isenabled()
    with paused_collector():
        assert not gc.isenabled()
        with paused_collector():
            assert not gc.isenabled()
        assert not gc.isenabled(), "an inner pause re-enabled the collector"
    assert gc.isenabled()
    with pytest.raises(ValueError), paused_collector():
        raise ValueError
    assert gc.isenabled()


def test_frozen_heap_freezes_what_is_alive_and_gives_it_back():
    before = gc.get_freeze_count()
    with pytest.raises(ValueError), frozen_heap():
        assert gc.get_freeze_count() > before
        raise ValueError
    assert gc.get_freeze_count() == 0


def test_a_check_leaves_the_collector_as_it_found_it():
    unit = FIXTURES / "generic_ops.c"
    res = check_unit(str(unit), Settings(clang_args=["-I", str(FIXTURES / "include")]))
    assert res.functions > 0 and not res.errors
    assert gc.isenabled() and gc.get_freeze_count() == 0


@pytest.mark.parametrize("name", ["basics.c", "loops.c", "switch_goto.c", "stmt_expr.c", "generic_ops.c"])
def test_a_dropped_graph_leaves_no_cycle_behind(name):
    parsed = parse(str(FIXTURES / name), ["-I", str(FIXTURES / "include")])
    assert parsed.functions
    build_cfg(parsed.functions[0], Conventions())  # networkx compiles its decorators on first use, in cycles
    gc.collect()
    gc.disable()
    try:
        for fn in parsed.functions:
            cfg = build_cfg(fn, Conventions())
            assert cfg.graph.number_of_nodes() > 1
            del cfg
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0, f"{found} objects of dropped graphs were only reachable through cycles"
