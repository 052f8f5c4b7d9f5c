"""Past the join share, states that differ only in the nullness of objects are joined.

Property simulation (`explore.JOIN_SHARE`) joins the states of one ownership core at a node,
but an object's nullness is part of that core, so a function that tests many results for NULL
and keeps each (`g_autoptr(GVariant) id = g_dbus_proxy_get_cached_property (...); if (id !=
NULL) ...`, eighteen times in colord's cd_device_connect_cb: the cleanup at every exit reads
each) doubles its cores at every test and stops at the bound, not fully checked. There, the
states of a node that own the same things alike and differ only in whether an object is NULL
are joined into one where that object's nullness is MAYBE, as it was before its test.

MAYBE covers both: a later null test splits the state again, a release of a MAYBE object is a
release (of a NULL, none: nothing is reported either way), an object left owned at an exit is
reported as the not-NULL state would report it. So the join only adds paths, as the joins of
facts do. Only acquisitions are joined: a parameter's NULL is a fate the summary reads, and
joining views re-split them at every later test (libnice's priv_conn_check_tick_stream_nominate
went past the bound); nor objects a reallocation links or a stored fact names, nor anything below
the join share or at a node whose cores do not pile up (`symmetry.PILE`): a function that
finishes under the share is explored exactly as before.
"""

from __future__ import annotations

from dataclasses import replace

from refcheck.analysis.state import Kind, State
from refcheck.rules.events import Gone, Nullness

_MAYBE = Nullness.MAYBE


def _joinable(st: State) -> dict:
    """The objects whose nullness may be joined -> their nullness."""
    pinned = set(st.facts.stored.values()) if st.facts.stored else ()
    return {oid: o.null for oid, o in st.objs.items()
            if oid.kind is Kind.ACQUIRE and o.link is None and oid not in pinned}


def _masked(oid, o):
    """`o` as the join keys it: nullness MAYBE, and an acquisition found NULL (its reference
    dropped on the NULL edge, `Transfer`) owning the one reference it was acquired with, as
    before its test: `x = get (); if (x) use (x);` meets again as it left the call."""
    if o.null is _MAYBE:
        return o
    if o.null is Nullness.NULL and not o.owned and o.gone is Gone.NO:  # (joinable: acquisitions only)
        return replace(o, null=_MAYBE, owned=1)
    return replace(o, null=_MAYBE)


def _loose_core(st: State, joinable: dict) -> tuple:
    """`State.core` with the joinable objects' nullness left out."""
    objs = frozenset((k, o.cid)
                     for k, o in ((k, _masked(k, o) if k in joinable else o) for k, o in st.objs.items()))
    return (frozenset(st.env.items()), objs, "loose")


class NullJoins:
    """The nullness each loose core has been explored with, per node."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen: dict = {}  # (node, loose key) -> {ObjId: Nullness}

    def admit(self, node: int, st: State, extra) -> tuple:
        """(key, covered): the visited-map key of `st` at `node` (`extra`: what else keys it, the
        state machines') and whether the nullness explored under that key covers `st`'s; `st`'s
        nullness is joined with it (the caller joins the facts). The key is None where `st`
        knows the nullness of no object it could join: its exact core keys it."""
        joinable = _joinable(st)
        if all(n is _MAYBE for n in joinable.values()):
            return None, True  # nothing to join: the exact core keys it, as before the share
        key = (_loose_core(st, joinable), extra)
        old = self.seen.get((node, key))
        if old is None:
            self.seen[(node, key)] = joinable
            return key, False
        # An object one state's stored fact pinned is keyed unmasked there: equal keys mean it was
        # MAYBE already (`old` lacks it), as good as joined.
        if all(old.get(k, _MAYBE) is _MAYBE or old[k] == n for k, n in joinable.items()):
            if old != joinable:
                _set_masked(st, [k for k, n in joinable.items() if n != old.get(k, _MAYBE)])
            return key, True
        merged = {k: (n if old.get(k, _MAYBE) == n else _MAYBE) for k, n in joinable.items()}
        _set_masked(st, [k for k, n in joinable.items() if merged[k] != n])
        self.seen[(node, key)] = merged
        return key, False


def _set_masked(st: State, oids: list) -> None:
    # A copy: a step may hand one objects table to several successors.
    st.objs = objs = st.objs.copy()
    for k in oids:
        objs[k] = _masked(k, objs[k])
