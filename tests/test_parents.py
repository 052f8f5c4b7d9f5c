"""The assignments and calls `frontend.parents` makes its (holder, held) pairs from: listed once
per body by one walk that keeps two kinds (`binding.of_kinds`, compiled or pure), the same cursors
the binding's walk gives, each one the build has listed (so its children are the build's)."""

from __future__ import annotations

from cunit import fixture_parses

import pytest

from refcheck.frontend import binding, clangutil, native, parents
from refcheck.frontend.binding import cursor_key
from refcheck.frontend.clangutil import K, binop, kind_of, reset_kids


def _where(c):
    e = c.extent
    return kind_of(c).value, e.start.offset, e.end.offset, str(e.start.file)


@pytest.mark.parametrize("walk", ["compiled", "pure"])
def test_the_sites_are_the_walks_assignments_and_calls(walk, monkeypatch):
    if walk == "compiled" and native.CHOICE.module is None:
        pytest.skip("no compiled walk")
    if walk == "pure":
        monkeypatch.setattr(parents, "of_kinds", binding.PURE["of_kinds"])
    compared = 0
    for unit, _, parsed in fixture_parses():
        for fn in parsed.functions:
            walked = sorted(_where(c) for c in fn.walk_preorder()
                            if kind_of(c) == K.CALL_EXPR or kind_of(c) == K.BINARY_OPERATOR and binop(c) == "=")
            reset_kids(fn)
            try:
                sites = parents._sites(fn)
                # In C every one (a C++ lambda's body is listed under other keys, children_by_key).
                listed = all(cursor_key(c) in clangutil._KIDS for c in sites)
                assert listed or not unit.name.endswith(".c"), (unit.name, fn.spelling)
            finally:
                reset_kids()
            assert sorted(_where(c) for c in sites) == walked, (unit.name, fn.spelling)
            assert len({cursor_key(c) for c in sites}) == len(sites)
            compared += bool(sites)
    assert compared > 200
