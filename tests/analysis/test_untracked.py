"""Pointers that take no part in ownership are not tracked (analysis/slicing.untracked_values,
semantics.md precision 15): which variables qualify, and what leaving them untracked changes
(only paths that went through a dereference of one while NULL) and saves (states)."""

from __future__ import annotations


import pytest

from cunit import fixture_parses
from refcheck import ir
from refcheck.analysis.explore import explore
from refcheck.analysis.slicing import relevant_branches, untracked_values
from refcheck.ir.cfg import Node
from refcheck.conventions import Conventions
from refcheck.frontend.builder import build_cfg
from refcheck.rules import RULES
from tests.analysis.test_states import L, make

# The one fixture function whose findings leaving a pointer untracked changes (on purpose).
# Complete only with untracking: parse_asx_entry's shape (glib_borrowed_result_args.c) takes
# 24,010 states with it and over 1,000,000 without, so there is nothing to compare.
ONLY_UNTRACKED = {"fixture_parse_entry", "fixture_views_leak", "fixture_views_clean"}
CHANGED = {"fixture_untracked_null_deref_goes_on"}
# Preset fixtures whose shape needs the preset: under the default conventions explored here the
# eighteen cached properties are views of unknown results, not acquisitions, and the nullness join
# (`analysis/nulljoin.py`) joins acquisitions only; tests/test_fixtures.py checks them under glib.
PRESET_ONLY = {"fixture_glib_many_nullable", "fixture_glib_many_nullable_leak"}


def _cfg(ops: list, cond=None, ret: str | None = None, params=()):
    """entry -> a block of `ops` -> (a branch on `cond` ->) a return of `ret`."""
    nodes = [Node("entry", L(1)), Node("exit", L(99)), Node("block", ops=ops)]
    edges = [(0, 2)]
    if cond is not None:
        nodes.append(Node("branch", L(3), cond=cond))
        edges += [(2, 3), (3, 4, True), (3, 4, False)]
    nodes.append(Node("return", L(4), value=ret))
    edges.append((len(nodes) - 2, len(nodes) - 1) if cond is None else (3, 4))
    return make(nodes, list(dict.fromkeys(edges)), params=params)


def _load(dst: str, key: str = "x->data") -> ir.Load:
    return ir.Load(L(2), dst, key, frozenset({"x"}), key)


NULL_D = ir.Assign(L(2), "d", None, null=True)


@pytest.mark.parametrize("why, ops, cond, ret", [
    ("released", [_load("d"), ir.Release(L(2), ("d",), "THFree")], None, None),
    ("retained", [_load("d"), ir.Retain(L(2), "d", "THFloatTensor_retain")], None, None),
    ("address taken", [_load("d"), ir.Escape(L(2), "d")], None, None),
    ("reallocated", [_load("d"), ir.Realloc(L(2), "e", "d", "THRealloc")], None, None),
    ("may be returned by an acquirer",
     [_load("d"), ir.Acquire(L(2), "e", "THFloatTensor_newContiguous", source="d")], None, None),
    ("stored", [_load("d"), ir.Store(L(2), "d", "g_keep")], None, None),
    ("in a stored address with another variable",
     [_load("d"), ir.Store(L(2), None, "d[i]", frozenset({"d", "i"}))], None, None),
    ("resized", [_load("d"), ir.SameSize(L(2), "d", "x")], None, None),
    ("counted", [_load("d"), ir.Count(L(2), "n", "d")], None, None),
    ("returned", [_load("d")], None, "d"),
    ("null-tested", [_load("d")], ir.NullTest("d"), None),
    ("compared", [_load("d"), _load("e", "y")], ir.SameObject("d", "e"), None),
    ("size-tested", [_load("d")], ir.SizeTest("d", "x", False, True, None), None),
    ("loaded from a location stored to", [ir.Store(L(2), None, "x->data"), _load("d")], None, None),
    ("assigned to a released variable",
     [_load("d"), ir.Assign(L(2), "e", "d"), ir.Release(L(2), ("e",), "THFree")], None, None),
    ("assigned a released variable's value",
     [ir.Acquire(L(2), "e", "THAlloc"), ir.Assign(L(2), "d", "e")], None, None),
    ("loading what a released variable loads",
     [_load("d"), _load("e"), ir.Release(L(2), ("e",), "THFree")], None, None),
])
def test_a_pointer_that_reaches_an_ownership_op_is_tracked(why, ops, cond, ret):
    assert "d" not in untracked_values(_cfg(ops, cond, ret, params=[("x", True)])), why


def test_null_loaded_read_through_and_copied_pointers_are_untracked():
    ops = [NULL_D, _load("d"), ir.Use(L(2), "d", deref=True), ir.Assign(L(2), "e", "d"),
           ir.Call(L(2), "sink", ("e",)), ir.Store(L(2), None, "*d", frozenset({"d"})),
           ir.Assign(L(2), "$1", None), ir.Assign(L(2), "f", "$1")]
    # Parameters keep their objects (a release of one is RC006), temporaries are never kept.
    assert untracked_values(_cfg(ops, params=[("x", True)])) == {"d", "e", "f"}


def _fixture_functions(errors: str):
    for _, _, parsed in fixture_parses(errors):
        for fn in parsed.functions:
            yield fn.spelling, build_cfg(fn, Conventions(errors=errors))


def _findings(res) -> list:
    return [(f.rule, f.location.line, f.origin.line if f.origin else None) for f in res.findings]


@pytest.mark.parametrize("errors", ["abort", "unwind"])
def test_untracking_changes_only_paths_through_a_null_dereference(errors):
    conv = Conventions(errors=errors)
    checked = untracked = 0
    for name, cfg in _fixture_functions(errors):
        if name in PRESET_ONLY:
            continue
        on = explore(cfg, conv, RULES.values())
        assert not on.incomplete, name
        if name in ONLY_UNTRACKED:
            continue
        off = explore(cfg, conv, RULES.values(), untrack=False)
        assert not off.incomplete, name
        if name in CHANGED:
            assert _findings(off) == [] and [r for r, _, _ in _findings(on)] == ["RC001"], name
        else:  # the paths cut at a NULL dereference are all that untracking adds
            assert _findings(on) == _findings(off) and on.states <= off.states, name
        checked += 1
        untracked += bool(untracked_values(cfg))
    assert checked > 20 and (untracked > 3 or errors == "unwind"), (checked, untracked)


def test_the_apply_shape_is_explored_once_per_counter_state():
    (cfg,) = [c for n, c in _fixture_functions("abort") if n == "fixture_untracked_apply_shape"]
    conv = Conventions()
    assert {cfg.names[v] for v in untracked_values(cfg)} == {"x_data"}
    on = explore(cfg, conv, RULES.values())
    off = explore(cfg, conv, RULES.values(), untrack=False)
    assert on.findings == off.findings == []
    assert on.states < off.states


def _untracked_names(name: str) -> set[str]:
    (cfg,) = [c for n, c in _fixture_functions("abort") if n == name]
    regions: dict = {}
    untracked = untracked_values(cfg, relevant_branches(cfg, regions), regions)
    return {cfg.names.get(v, v) for v in untracked if not v.startswith("$")}


def test_a_null_test_that_decides_nothing_tracks_nothing():
    """xspf's shape (fixtures/state_bound_views.c): `if (x != NULL) fixture_read (x);` decides
    nothing, and a null test of `uri` (it decides the clone) does not track the other pointers
    loading the same getter's result."""
    assert _untracked_names("fixture_views_leak") >= {"title", "image", "artist", "album", "mime"}
    assert "uri" not in _untracked_names("fixture_views_leak")


@pytest.mark.parametrize("name, var", [
    ("fixture_views_flag", "t"),  # the arm sets a flag a later test reads
    ("fixture_tracked_null_deref_ends_the_path", "d"),  # dereferenced: precision 14 reads it
])
def test_a_null_test_that_decides_or_a_dereference_reads_still_tracks(name, var):
    assert var not in _untracked_names(name)


def test_the_views_shape_finishes_only_with_idle_tests_untracked():
    (cfg,) = [c for n, c in _fixture_functions("abort") if n == "fixture_views_leak"]
    conv = Conventions()
    on = explore(cfg, conv, RULES.values())
    assert not on.incomplete and [f.rule for f in on.findings] == ["RC001"]
    assert on.states < 20_000


def test_a_chained_null_initialisation_joins_nothing():
    """`title = language = author = NULL;` (fixtures/state_bound_chained_null.c): the chain's
    value is the null pointer, so a null test of `author` tracks neither `title` nor `language`;
    lowered as `language = author` it joined them into `author`'s class."""
    (cfg,) = [c for n, c in _fixture_functions("abort") if n == "fixture_chained_null_leak"]
    nulls = {cfg.names.get(op.dst, op.dst) for _, d in cfg.graph.nodes(data="data")
             for op in d.ops if type(op) is ir.Assign and op.null}
    assert {"title", "language", "author"} <= nulls
    untracked = _untracked_names("fixture_chained_null_leak")
    assert {"title", "language"} <= untracked and "author" not in untracked


def test_a_chain_that_copies_an_object_still_aliases_it():
    (cfg,) = [c for n, c in _fixture_functions("abort") if n == "fixture_chained_owned_clean"]
    copies = {(cfg.names.get(op.dst), cfg.names.get(op.src)) for _, d in cfg.graph.nodes(data="data")
              for op in d.ops if type(op) is ir.Assign and op.src is not None}
    assert ("a", "b") in copies
