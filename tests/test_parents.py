"""The assignments and calls `frontend.parents` makes its (holder, held) pairs from: listed once
per body through the build's listings of children, the same cursors the binding's walk gives."""

from __future__ import annotations

from cunit import fixture_parses

from refcheck.frontend import parents
from refcheck.frontend.binding import cursor_key
from refcheck.frontend.clangutil import K, binop, kind_of, reset_kids


def _where(c):
    e = c.extent
    return kind_of(c).value, e.start.offset, e.end.offset, str(e.start.file)


def test_the_sites_are_the_walks_assignments_and_calls():
    compared = 0
    for unit, _, parsed in fixture_parses():
        for fn in parsed.functions:
            walked = sorted(_where(c) for c in fn.walk_preorder()
                            if kind_of(c) == K.CALL_EXPR or kind_of(c) == K.BINARY_OPERATOR and binop(c) == "=")
            reset_kids(fn)
            try:
                sites = parents._sites(fn)
            finally:
                reset_kids()
            assert sorted(_where(c) for c in sites) == walked, (unit.name, fn.spelling)
            assert len({cursor_key(c) for c in sites}) == len(sites)
            compared += bool(sites)
    assert compared > 200
