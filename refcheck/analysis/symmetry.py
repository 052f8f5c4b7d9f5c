"""States equal up to the numbering of stale views: one visited-map key for them.

A view that a moved cursor left behind (`Kind.STALE`: `uri = get (node)` on an earlier trip of
`for (node = ...; node; node = node->next)`) is numbered by the first free generation of its
site (`Transfer.fresh`). Which number a variable's view got depends only on the order the trips
assigned the variables: `title -> g#0, uri -> g#1` and `title -> g#1, uri -> g#0` are the same
state but for the names of two objects nothing can reload (the location moved on). Every
transfer treats generations alike (`fresh` takes the lowest free one, the bound counts them,
`stale_view` compares them by their fields), no finding names one, so a state that is a
renaming of a seen one explores the renaming of that one's paths: dropping it is exact.

The key renumbers each site's stale views in the order of their sorted holders. It is used
only at a node whose distinct cores pile up (`PILE`: the parsers of totem-pl-parser, fifteen
variables each holding NULL or a view from some trip); elsewhere the plain `State.core` keys
the map, so the explorations of every other function are untouched.
"""

from __future__ import annotations

from refcheck.analysis.state import Kind, ObjId, State

# Distinct cores at one node before its arrivals are keyed up to renaming (TH's busiest nodes
# hold tens; the parsers' loop heads hundreds).
PILE = 128


def renumbered_core(st: State) -> tuple | None:
    """`st.core()` with each site's stale views renumbered 0, 1, ... in the order of their
    holders; None where that is the plain core, or where the numbering cannot be made canonical
    cheaply (a fact or another object names a stale view, two stale views of one site share
    their holders): the caller keys on the plain core then."""
    stale = [oid for oid in st.objs if oid.kind is Kind.STALE]
    if not stale or _named_elsewhere(st):
        return None
    holders: dict = {oid: [] for oid in stale}
    for v, oid in st.env.items():
        if oid.kind is Kind.STALE:
            holders[oid].append(v)
    by_site: dict = {}
    for oid in stale:
        by_site.setdefault(oid.site, []).append((tuple(sorted(holders[oid])), oid))
    rename: dict = {}
    for site, group in by_site.items():
        group.sort(key=lambda hv: hv[0])
        if any(a[0] == b[0] for a, b in zip(group, group[1:])):
            return None
        for k, (_, oid) in enumerate(group):
            if oid.gen != k:
                rename[oid] = ObjId(Kind.STALE, site, k)
    if not rename:
        return None
    env = frozenset((v, rename.get(oid, oid)) for v, oid in st.env.items())
    objs = frozenset((rename.get(k, k), o.cid) for k, o in st.objs.items())
    return (env, objs)


def _named_elsewhere(st: State) -> bool:
    """A stale view named by a fact or by another object's fields (a realloc's old block, what an
    acquirer's result may be): renaming would have to follow those too."""
    if any(oid.kind is Kind.STALE for oid in st.facts.stored.values()):
        return True
    return any(o.link is not None or o.may_be for o in st.objs.values())
