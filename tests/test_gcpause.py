"""The collector's pauses: each function's build and exploration run without collections, the
unit's parse is frozen out of the ones between functions, and a built graph is freed by
reference counting when it is dropped (a cycle would leave it for a collection to find, which is
the cost the pauses exist to avoid)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from refcheck.reuse import plan
from refcheck.conventions import Conventions
from refcheck.frontend.builder import build_cfg
from cunit import check, parse_unit
from refcheck.support.gcpause import frozen_heap, paused_collector

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
    res = check(unit, clang_args=["-I", str(FIXTURES / "include")])
    assert res.functions > 0 and not res.errors
    assert gc.isenabled() and gc.get_freeze_count() == 0


@pytest.mark.parametrize("name", ["basics.c", "loops.c", "switch_goto.c", "stmt_expr.c", "generic_ops.c"])
def test_a_dropped_graph_leaves_no_cycle_behind(name):
    parsed = parse_unit(FIXTURES / name, ["-I", str(FIXTURES / "include")])
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


def test_a_units_parse_is_freed_when_its_check_ends(monkeypatch):
    # The parse and the instance keys are frozen while the unit's functions are checked; a cycle
    # among them would keep libclang's translation unit alive until some later full collection
    # (it once did: the keys' token reader held the keys' own methods, 15 MB more per worker).
    import clang.cindex as ci

    from refcheck.reuse.instances import Instances

    monkeypatch.setattr(plan, "INSTANCE_KEYS_FROM", 1)  # make keys for this small unit too
    made = []
    real_init = Instances.__init__

    def counting_init(self, *args, **kwargs):
        made.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(Instances, "__init__", counting_init)
    unit = FIXTURES / "generic_ops.c"
    gc.collect()
    gc.disable()
    try:
        res = check(unit, clang_args=["-I", str(FIXTURES / "include")])
        alive = [type(o).__name__ for o in gc.get_objects() if isinstance(o, (Instances, ci.TranslationUnit))]
    finally:
        gc.enable()
    assert res.functions > 0 and made, "the unit made no instance keys: the test shows nothing"
    assert not alive, f"still alive after the check: {alive}"
