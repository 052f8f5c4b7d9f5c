"""Views moved on (`Kind.STALE`): alike ones join one object, one something was done to stays apart."""

from dataclasses import replace

from refcheck.analysis.state import Facts, Kind, Obj, ObjId, State, stale_view
from refcheck.findings import Location
from refcheck.rules.events import Gone, Nullness, Origin

_KEY = 'result:get( node "href"'


def _view(line: int) -> Obj:
    return Obj(0, Gone.NO, Nullness.MAYBE, Origin.RESULT, Location("f.c", line, 1), "get", line,
               deps=frozenset(("node",)))


def _state(old: Obj) -> State:
    return State({"uri": ObjId(Kind.STALE, _KEY, 0)}, {ObjId(Kind.STALE, _KEY, 0): old}, Facts())


def test_alike_views_join_whatever_their_load_lines():
    moving = ObjId(Kind.FIELD, _KEY)
    assert stale_view(_state(_view(3)), moving, _view(9)) == ObjId(Kind.STALE, _KEY, 0)


def test_a_released_view_stays_apart():
    released = replace(_view(3), gone=Gone.RELEASED)
    assert stale_view(_state(released), ObjId(Kind.FIELD, _KEY), _view(9)) is None


def test_views_known_apart_in_nullness_stay_apart():
    tested = replace(_view(3), null=Nullness.NONNULL)
    assert stale_view(_state(tested), ObjId(Kind.FIELD, _KEY), _view(9)) is None


def test_another_text_is_not_joined():
    other = ObjId(Kind.FIELD, 'result:get( node "value"')
    assert stale_view(_state(_view(3)), other, _view(9)) is None
