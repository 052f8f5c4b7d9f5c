"""The abstract state: which variables hold which tracked objects, what we own, what we know.

Everything here is plain typed data. An object's identity (`ObjId`) says where it came from
(a parameter, an acquisition site, a loaded location, a known NULL) and which generation of that
site it is; what the function knows about it is an `Obj`. Branch facts live apart, in `Facts`,
one typed map per kind of fact, all forgotten together by `Facts.invalidate` when a variable
changes.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass, field
from operator import attrgetter
from typing import NamedTuple

from refcheck.ir import SINGLETON_KEY
from refcheck.rules.events import Gone, Nullness, Origin
from refcheck.findings import Location

MAX_OWNED = 3
MAX_GENERATIONS = 4


class Kind(enum.IntEnum):
    ACQUIRE = 0  # site: (node, op index) of the acquire
    FIELD = 1  # site: the structural key of the loaded expression
    STALE = 2  # a FIELD object whose location changed since it was loaded; site: the key
    LOAD = 3  # a load with no structural key; site: (node, op index)
    PARAM = 4  # site: the parameter's value name
    NULL = 5  # site: the variable a NULL was assigned to


_LETTER = {Kind.ACQUIRE: "a", Kind.FIELD: "f:", Kind.STALE: "g:", Kind.LOAD: "l", Kind.PARAM: "p:",
           Kind.NULL: "z:"}


class ObjId(NamedTuple):
    """A tracked object's identity. A NamedTuple: states hash and compare these all the time."""

    kind: Kind
    site: object  # str, or (node, op index)
    gen: int = -1  # generation for sites that can create several live objects (in a loop); -1: none

    def text(self) -> str:
        """A stable spelling; objects are reported at exits in the order of these."""
        site = f"{self.site[0]}.{self.site[1]}" if isinstance(self.site, tuple) else self.site
        return _LETTER[self.kind] + site + (f"#{self.gen}" if self.gen >= 0 else "")


def singleton_site(oid: ObjId) -> str | None:
    """The name of the conventions' singleton (`Py_None`, `&_Py_NoneStruct`) whose load oid is,
    else None: a global object nobody here owns a reference to."""
    if oid.kind is Kind.FIELD and isinstance(oid.site, str) and oid.site.startswith(SINGLETON_KEY):
        return oid.site[len(SINGLETON_KEY):]
    return None


class Bound(Exception):
    """Exploration gave up: the message says which bound was hit."""


@dataclass(frozen=True, slots=True)
class Obj:
    owned: int  # owned references this function holds
    gone: Gone  # what happened to the last owned reference
    null: Nullness
    origin: Origin
    site: Location  # where it was acquired (or first retained, for a borrowed object)
    name: str  # the acquiring callee, the parameter or the loaded expression
    node: int  # the CFG node of the site, where reported paths start
    # Where the last reference was released: for messages only, so not part of the state's
    # identity (else every arm of an else-if chain that frees would make a new state at each join).
    released_at: Location | None = field(default=None, compare=False)
    # Where the reference a location may still hold was given up (`released_at`, but never a second
    # release of a released object): where `dangling` reports a location left holding it.
    dropped_at: Location | None = field(default=None, compare=False)
    deps: frozenset = frozenset()  # for loaded objects: the variables the loaded expression uses
    # For a realloc result that may fail: the old block, released once this is known non-NULL.
    link: ObjId | None = None
    # References stored into memory without one being owned (`self->storage = storage;`): a later
    # retain of the object pays for the stored copy instead of giving us an owned reference.
    debt: int = 0
    # Stored copies whose reference a retain paid (`self->dict = d; Py_INCREF(d);`): the location
    # holds that reference; a read of it taken out as the location is cleared is ours to release.
    paid: int = 0
    # The result of an acquirer that may return its argument (newContiguous): the existing
    # objects it may be, the argument's first (then what that one may be, for a chain of such
    # calls), ending at a parameter or a fresh acquisition. Empty: unknown, it may be anything.
    may_be: tuple = ()
    # The result of such an acquirer under a failed test of its argument (`if (!isContiguous(x))
    # y = newContiguous(x)`): it cannot be the argument, nor any object live before the call.
    fresh: bool = False
    # The acquired object's family (`Conventions.family`, or the record type its acquirer returns).
    family: str | None = None
    # Another holder took its own reference (a setter that refs what it keeps: Effect.KEEP, or
    # a retained reference stored): our last release does not free it, later uses are fine.
    shared: bool = False
    # Retained through the location expression itself (`Py_XINCREF(entry->key)`), no variable
    # of the user's holding it: the reference a location kept by the caller holds (transfer.forget).
    by_location: bool = False
    # A callee kept its own reference (Effect.KEEP: `xb_builder_node_add_child (parent, bn)`):
    # the object lives on in its keeper, so a plain store of it afterwards is a borrowed alias.
    kept: bool = False
    # A parameter a floating sink took (a `ref_sink` retainer, a call that sinks floating
    # references): given a floating reference, the function took it over; given a full one, it
    # read it or took its own. The summary reads it as Effect.SINK_FLOATING (dconf_changeset_set).
    floated: bool = False
    # A fresh acquisition whose pointer left this frame (stored, its address taken, passed to a
    # call that may keep it): only then may a value loaded from memory be this object.
    escaped: bool = False
    # The reference its location held, taken out as the location was overwritten without a release
    # while a variable here held it (`old = g; g = new; return old;`, PyGreSQL's set_defhost):
    # ours to hand back. Not counted as owned: a value left unreleased is not reported.
    taken: bool = False
    # States are keyed on their objects; the generated hash would rebuild this tuple at every
    # lookup of the visited map (about a third of the exploration's time on torch7's max/min).
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    # Whether `nullness.forget` may set this object's nullness to MAYBE (what it knows is all it
    # could take): asked of every object of a state at most nodes, so answered once here.
    forgettable: bool = field(default=False, init=False, repr=False, compare=False)
    # What the visited map keys this object on (`State.core`): None for the object itself, or for
    # a view of memory (loaded, nothing of it owned, released or owed) everything but where it was
    # first loaded (`site`, `node`), which only a report's path and message read.
    # (An int: the view's `cid`, equal for equal views.)
    ident: int | None = field(default=None, init=False, repr=False, compare=False)
    # The visited map's key of this object, an int (`State.core`): equal exactly where the objects
    # are equal, or (views) their `ident`s are. Interned so that a core is made and compared in C:
    # pairs of (ObjId, Obj) called `Obj.__hash__` in Python for each of a state's objects (7 on
    # average, 58,000 cores on THTensor.c in unwind mode) and made each pair in a generator.
    cid: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        fields = (self.owned, self.gone, self.null, self.origin, self.site, self.name, self.node, self.deps,
                  self.link, self.debt, self.paid, self.may_be, self.fresh, self.family, self.shared,
                  self.by_location, self.kept, self.floated, self.escaped, self.taken)
        object.__setattr__(self, "_hash", hash(fields))
        null = self.null
        object.__setattr__(self, "forgettable", null is not Nullness.MAYBE and self.link is None
                           and self.gone is Gone.NO and not (null is Nullness.NULL and self.owned))
        view = self.origin in _VIEW_ORIGINS and not (self.owned or self.gone or self.debt or self.paid)
        if view:
            cid = _interned((_VIEW, *_view_fields(self)))
            object.__setattr__(self, "ident", cid)
        else:
            cid = _interned(fields)
        object.__setattr__(self, "cid", cid)

    def __hash__(self) -> int:
        return self._hash


_VIEW_ORIGINS = (Origin.FIELD, Origin.RESULT)


def made(memo: dict, owned: int, gone: Gone, null: Nullness, origin: Origin, site: Location, name: str,
         node: int, deps: frozenset = frozenset()) -> Obj:
    """The object of these fields, taken from `memo` where an earlier state made it. Objects are
    immutable: the states passing one op share what it makes (a load's object was a sixth of its
    transfer on torch7's THTensor.c, built field by field through the frozen `__init__`), and
    their visited-map keys then compare it by identity."""
    key = (owned, gone, null, origin, site, name, node, deps)
    o = memo.get(key)
    if o is None:
        o = memo[key] = Obj(owned, gone, null, origin, site, name, node, deps=deps)
    return o


# Objects' keys (`Obj.cid`), by their fields; emptied as each exploration starts (`fresh_cids`),
# numbered on without restarting: an object that outlived its exploration can never equal a newer
# one (it would only be kept apart, never joined wrongly).
_CIDS: dict = {}
_next_cid = itertools.count(1).__next__
# Tags a view's fields: a view and an object that is none never share a key.
_VIEW = object()


def _interned(key: tuple) -> int:
    cid = _CIDS.get(key)
    if cid is None:
        cid = _CIDS[key] = _next_cid()
    return cid


def fresh_cids() -> None:
    """Forget the keys of earlier explorations' objects (made once per object: 7,000 on THTensor.c)."""
    _CIDS.clear()


def _view_fields(o: "Obj") -> tuple:
    """A view's identity in the visited map: its fields but where it was first loaded. Two paths
    that load the same location first at different lines (`uri = get_prop (node, "href")` in one
    arm, `moreinfo = get_prop (node, "href")` in another) reach the same state for every transfer:
    a view is reported only once released or consumed, when it is no view any more; the state
    explored first stands for both, its own path intact (a finding on the one left out would
    differ only in the load its path starts at)."""
    return (o.null, o.origin, o.name, o.deps, o.link, o.may_be, o.fresh, o.family, o.shared, o.by_location,
            o.kept, o.floated, o.escaped, o.taken)


_new = object.__new__  # the copies' constructor (`Facts.copy`, `State.copy`)

# A condition's identity: a Fact's structural key, or the sorted pair of a pointer comparison.
CondKey = object


class Facts:
    """What is known about branches and values on this path, one typed map per kind."""

    __slots__ = ("conds", "consts", "excluded", "stored", "sizes")

    def __init__(self, conds=None, consts=None, excluded=None, stored=None, sizes=None):
        self.conds: dict = conds if conds is not None else {}  # CondKey -> the edge taken
        self.consts: dict[str, int] = consts if consts is not None else {}  # integer var -> its value
        # var -> switch case values it is known not to have (it took a default edge).
        self.excluded: dict[str, frozenset] = excluded if excluded is not None else {}
        # location key -> the object last stored there (loading it gives that object back).
        self.stored: dict[str, ObjId] = stored if stored is not None else {}
        # Size facts (`refcheck.analysis.sizes`): typed keys that say which variables they mention.
        self.sizes: dict = sizes if sizes is not None else {}

    def copy(self) -> "Facts":
        # Slots set directly and `dict.copy`: made for every successor and every variant kept
        # (95,000 on THTensor.c), `__init__`'s defaults and `dict(...)` were a third of its cost.
        out = _new(Facts)
        out.conds, out.consts, out.excluded = self.conds.copy(), self.consts.copy(), self.excluded.copy()
        out.stored, out.sizes = self.stored.copy(), self.sizes.copy()
        return out

    def __bool__(self) -> bool:
        return bool(self.conds or self.consts or self.excluded or self.stored or self.sizes)

    def invalidate(self, var: str, cond_vars: dict, stored_deps: dict) -> list:
        """`var` changed: forget every fact that mentions it. Returns the objects of the stored
        facts forgotten."""
        if self.conds:
            for k in [k for k in self.conds if var in cond_vars.get(k, ())]:
                del self.conds[k]
        self.consts.pop(var, None)
        self.excluded.pop(var, None)
        dropped = []
        if self.stored:
            for k in [k for k in self.stored if k == var or var in stored_deps.get(k, ())]:
                dropped.append(self.stored.pop(k))
        if self.sizes:
            for k in [k for k, v in self.sizes.items() if k.mentions(v, var)]:
                del self.sizes[k]
        return dropped

    def within(self, other: "Facts") -> bool:
        """Every fact here is also known in `other` (so `other`'s paths are covered by ours)."""
        # An empty map is within any: tested first, without the two views a comparison makes
        # (asked of every variant at every admitted state; most maps of a variant are empty).
        a, b = self, other
        return ((not a.conds or a.conds.items() <= b.conds.items())
                and (not a.consts or a.consts.items() <= b.consts.items())
                and (not a.excluded or a.excluded.items() <= b.excluded.items())
                and (not a.stored or a.stored.items() <= b.stored.items())
                and (not a.sizes or a.sizes.items() <= b.sizes.items()))

    def meet(self, other: "Facts") -> "Facts":
        """The facts both know."""
        def common(a: dict, b: dict) -> dict:
            return {k: x for k, x in a.items() if k in b and b[k] == x}
        return Facts(common(self.conds, other.conds), common(self.consts, other.consts),
                     common(self.excluded, other.excluded), common(self.stored, other.stored),
                     common(self.sizes, other.sizes))

    def describe(self, names: dict) -> list[str]:
        n = lambda v: names.get(v, v)  # noqa: E731
        out = [f"{'same' if v else 'differ'}: {n(k[0])} {n(k[1])}" if isinstance(k, tuple)
               else f"cond {k}: {'true' if v else 'false'}" for k, v in self.conds.items()]
        out += [f"{n(v)} == {k}" for v, k in self.consts.items()]
        out += [f"{n(v)} not in {{{', '.join(sorted(map(str, ks), key=lambda x: (len(x), x)))}}}" for v, ks in self.excluded.items()]
        out += [f"stored {k}: {o.text()}" for k, o in self.stored.items()]
        out += [k.describe(v, n) for k, v in self.sizes.items()]
        return sorted(out)


_CID = attrgetter("cid")


class State:
    __slots__ = ("env", "objs", "facts")

    def __init__(self, env: dict, objs: dict, facts: Facts):
        self.env: dict[str, ObjId] = env
        self.objs: dict[ObjId, Obj] = objs
        self.facts = facts

    def copy(self) -> "State":
        out = _new(State)
        out.env, out.objs, out.facts = self.env.copy(), self.objs.copy(), self.facts.copy()
        return out

    def core(self) -> tuple:
        """What ownership depends on: states equal here are explored once, their facts joined."""
        objs = self.objs
        return (frozenset(self.env.items()), frozenset(zip(objs, map(_CID, objs.values()))))

    def portable_core(self) -> tuple:
        """`core` as explorations compare it with each other's (tests): `cid`s are an exploration's own."""
        return (frozenset(self.env.items()),
                frozenset((k, o if o.ident is None else _view_fields(o)) for k, o in self.objs.items()))

    def holders(self, oid: ObjId) -> list[str]:
        return [v for v, o in self.env.items() if o == oid]


def param_fate(oid: ObjId, o: Obj) -> bool:
    """A parameter's object released, handed over or NULL: what the function did to the caller's
    reference (or that it could do nothing: NULL on this path), kept without a holder for the
    summary to read at the path's end (`g_clear_pointer (&param, unref); param = other;` gave the
    caller's reference up, and the summary must say so); or retained and that reference kept by
    another holder (`g_ptr_array_add (priv->children, g_object_ref (child))`: the `kept` fate)."""
    return oid.kind is Kind.PARAM and bool(o.gone or o.debt or o.null == Nullness.NULL or o.floated
                                           or (o.shared and o.owned == 0 and o.origin is Origin.RETAIN))


def stale_view(st: State, oid: ObjId, o: Obj) -> ObjId | None:
    """An earlier view of the same text moved on that nothing was done to either (equal but for
    where each was loaded): the one the view `oid` now moving on joins (`Transfer.forget`). Each
    iteration of `for (i = 0; p[i]; i++) if (...) title = p[i] + 6;` would otherwise keep its own,
    past the bound of live objects from one site (totem-pl-parser's parse_ram_uri). Joined, a
    release of one of them is taken for both."""
    for k in range(MAX_GENERATIONS):
        old = st.objs.get(ObjId(Kind.STALE, oid.site, k))
        if old is not None and old.ident == o.ident:
            return ObjId(Kind.STALE, oid.site, k)
    return None


def restores(oid: ObjId | None, target: str) -> bool:
    """`oid` is what the location `target` held before this function stored into it (a load
    of the same text, renamed STALE by that store)."""
    return oid is not None and oid.kind in (Kind.FIELD, Kind.STALE) and oid.site == target
