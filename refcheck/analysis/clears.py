"""Clears and kept-or-released parameters, read off a function's exploration (issue 32, glib28).

- CLEAR (`Effect.CLEAR`): a pointer parameter `p` through which the body releases the caller's
  `*p` on some path and leaves `*p` NULL at every return: `obj = *p; *p = NULL; if (obj) unref
  (obj)`, GLib's g_clear_error, a project's `dex_clear (gpointer data)` that casts its parameter
  to `T **` first (a local whose every assignment copies the parameter is the parameter).
- `released_or_kept`: the stolen-parameter rule of a function that returns nothing and releases
  a parameter on some paths, keeps it on the others (`Summarizer.stolen`).
- `given_as_documented`: the same rule for a parameter the project's gtk-doc documents
  `(transfer full)` (glib30), whatever the function returns.
"""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.state import Kind, ObjId, State
from refcheck.rules.events import Nullness


def slot_parameters(cfg, index: dict) -> dict[str, int]:
    """Location key -> parameter index of the stores through a pointer parameter or through a
    local whose every assignment copies one parameter (`DexObject **objptr = (DexObject **)
    data;`, never written otherwise). One pass over the ops; nothing where no store goes
    through a pointer (most functions)."""
    stores, sources = [], {}
    for _, d in cfg.graph.nodes(data="data"):
        for op in d.ops if d is not None else ():
            t = type(op)
            if t is ir.Store and op.target and op.through is not None:
                stores.append(op)
            elif t is ir.Assign and op.dst not in index:
                sources.setdefault(op.dst, set()).add(op.src if op.src in index and not op.null else None)
    if not stores:
        return {}
    aliases = dict(index)
    aliases.update({v: index[next(iter(s))] for v, s in sources.items() if len(s) == 1 and None not in s})
    return {op.target: aliases[op.through] for op in stores if op.through in aliases}


class Clears:
    """Per pointer parameter, whether the body gives up the caller's `*p` and leaves it NULL."""

    def __init__(self, cfg, index: dict):
        # Location key of `*p` (or `*alias`) -> parameter index: the stores through them.
        self.keys: dict[str, int] = slot_parameters(cfg, index) if index else {}
        self.released: set[int] = set()  # `*p`'s value on entry released on some path
        self.not_null: set[int] = set()  # `*p` not known NULL at some return
        self.stored: set[int] = set()  # `*p` holding a value the body stored there at some return

    def given(self, st: State, oid: ObjId) -> None:
        """An object released: the caller's `*p` where it is a view of a slot key this path has
        not stored into before (STALE: loaded, then `*p = NULL` written over it)."""
        if self.keys and oid.kind in (Kind.FIELD, Kind.STALE) and oid.site in self.keys \
                and (not st.facts.stored or st.facts.stored.get(oid.site) is None):
            self.released.add(self.keys[oid.site])

    def at_return(self, st: State) -> None:
        """What each slot holds at a returning end: NULL (`*p = NULL;` on this path) or not."""
        for key, i in self.keys.items():
            held = st.facts.stored.get(key) if st.facts.stored else None
            if held is not None:
                o = st.objs.get(held)
                if o is None or o.null != Nullness.NULL:
                    self.stored.add(i)
            elif st.facts.conds.get(key) is not False:
                self.not_null.add(i)

    def cleared(self, faulty: set) -> list[int]:
        """The parameters the record clears: `*p` released on some path, NULL at every return."""
        return sorted(self.released - self.not_null - self.stored - faulty)


def released_or_kept(fates: set) -> bool:
    """A parameter released (or taken) on some path and stored or handed to a keeper on another,
    of a function declared void (a status result tells its caller which path ran; CPython's
    stealing helpers stay as they were, netifaces' `add_to_family`): its body owns it on both,
    and its caller, told nothing, cannot hand it over on one path only (libdex's
    `dex_future_complete (future, NULL, rejected)` stores the error when pending and
    `g_clear_error`s it otherwise). A path that leaves it alone (beside a value, NULL there by
    the function's prose only) is then the function's own leak, reported in its body."""
    return bool(fates & {"released", "consumed"} and "sunk" in fates
                and fates <= {"released", "consumed", "sunk", "borrowed", "null"})


def given_as_documented(fates: set) -> bool:
    """Whether a parameter its gtk-doc documents `(transfer full)` is treated so by the body
    where the body says anything: given up (released or handed over: the caller's `& {...}`) on
    some path, never retained, and on the others left as it came, a path that keeps it nowhere
    being the function's own leak, reported there (grilo's grl_registry_add_config appends
    @config to a list its registry keeps and forgets it where it has no plugin id). Round 17
    found the annotation alone wrong too often (a parameter only read: libsecret's
    @attributes, gdbus-codegen's @invocation), so a body that never gives it up decides."""
    return fates <= {"released", "consumed", "sunk", "returned", "null", "borrowed"}
