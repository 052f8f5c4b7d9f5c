"""Transfer's memory ops: loads, stores, escapes and reallocations, and what a store does to the
location it writes (the object it held before; loading it gives back what was stored)."""

from __future__ import annotations

from dataclasses import replace

from refcheck import ir
from refcheck.analysis import sizes
from refcheck.analysis.state import (MAX_OWNED, Kind, Nullness, Obj, ObjId, Origin, State, made, restores,
                                     singleton_site)
from refcheck.conventions.summary import Effect
from refcheck.rules.events import Event, EventKind, Gone, Via

NULL, NONNULL, MAYBE = Nullness.NULL, Nullness.NONNULL, Nullness.MAYBE
# Origins of references the function never owned: handing one to a sink is RC009.
# Not a field load: allocator contexts are not counted, and a field handed on (a clone sharing
# `self->allocatorContext`) is the object's own to share (docs/semantics.md, RC009).
_SINK_NEEDS_OWNED = (Origin.PARAM, Origin.RESULT, Origin.RETAIN)


class Locations:
    """Transfer's mixin: the memory ops, and the location side of a store (a field or a slot)."""

    def store_into(self, st: State, op: ir.Store, oid: ObjId | None) -> None:
        """`op.target` now holds `oid` (None: a value nobody tracks): the object it held before
        loses the copy, or takes the location's reference back (Py_CLEAR), or is lent back."""
        stored = st.facts.stored
        before = stored.get(op.target)
        if before is not None and before != oid and before in st.objs:
            b = st.objs[before]
            if b.debt:
                st.objs[before] = replace(b, debt=b.debt - 1)  # that copy is gone
            elif b.paid and st.holders(before) and not b.gone:
                # Taken out of the location as it is cleared (Py_CLEAR's `tmp = f; f = NULL;
                # Py_DECREF(tmp)`): the reference the location held is now ours. Not an object
                # released for good meanwhile (a realloc of the field's block, or a release
                # that took the location's reference back): that was the location's.
                st.objs[before] = replace(b, paid=b.paid - 1, owned=min(MAX_OWNED, b.owned + 1), gone=Gone.NO)
            elif restores(oid, op.target) and b.shared and not b.owned and b.gone is Gone.NO:
                # The location's own earlier value put back (`old = s->f; s->f = obj; ...;
                # s->f = old;`): obj was only lent to it, its reference is ours again.
                st.objs[before] = replace(b, owned=1)
        self.take_out(st, ObjId(Kind.FIELD, op.target), oid)
        self.forget(st, ObjId(Kind.FIELD, op.target))
        # Until the location or its address changes, loading it gives back what was stored.
        if oid is None and self.conv.infer_setters and (op.untracked or op.var is not None) \
                and op.target and not op.sink and op.through is None:
            # A value nothing here counts (`self->type = &Foo_Type`, a local whose address a
            # converter filled) stored where stores hold references: the location owes one, so
            # that `Py_INCREF (self->type)` after it pays the location's, as after a tracked
            # value's store (`self->f = x; Py_INCREF (x);`).
            oid = ObjId(Kind.FIELD, op.target)
            st.objs[oid] = Obj(0, Gone.NO, Nullness.MAYBE, Origin.FIELD, op.loc, op.var or op.target,
                               self.cfg.entry, deps=op.deps, debt=1)
        if oid is not None:
            stored[op.target] = oid
            self.stored_deps[op.target] = op.deps
            if op.place and op.owning:
                self.stored_places[op.target] = (op.place, op.loc)
        else:
            stored.pop(op.target, None)
        if before is not None and before != oid and before in st.objs:
            # The fact pinned it: held by nobody now, it is gone (else a loop handing each
            # turn's object to one call keeps every turn's, past the generations bound).
            self.collect(st, before)

    def take_out(self, st: State, fid: ObjId, oid: ObjId | None) -> None:
        """The value `fid` loaded from a location that stores hold references in (CPython), the
        location overwritten while a variable of the user's still holds it and nothing released
        it: the location's reference went with the value (`old = g; g = new; return old;`)."""
        b = st.objs.get(fid)
        if b is None or fid == oid or not self.conv.infer_setters or b.owned or b.gone or b.taken:
            return
        if any(not v.startswith("$") for v in st.holders(fid)):
            st.objs[fid] = replace(b, taken=True)

    def op_load(self, st: State, op: ir.Load, node: int, index: int, events: list) -> None:
        # In a primitive (a Lua `retain` method retaining its userdata's object) a call's result
        # is what the function manipulates the count of, as its parameters are: not tracked.
        if op.dst in self.untracked or (op.call and self.primitive):
            self.bind(st, op.dst, None, op.loc, False, events)
            return
        stored = st.facts.stored.get(op.key) if op.key else None
        # One only a parameter's slot keeps (`in_slot`, for its nullness) is loaded as before: a
        # location's value, not a reference this function handed over.
        if stored is not None and stored in st.objs and (st.holders(stored) or not self.in_slot(st, stored, st.objs[stored])):
            self.bind(st, op.dst, stored, op.loc, False, events)
            return
        oid = ObjId(Kind.FIELD, op.key) if op.key else self.fresh(st, Kind.LOAD, (node, index))
        if oid not in st.objs:
            if op.call:
                # Its arguments' variables as deps: one assigned once something was done to it,
                # the next call of the same text gives another object (`invalidate`).
                st.objs[oid] = made(self.made, 0, Gone.NO, MAYBE, Origin.RESULT, op.loc, op.call, node, op.deps)
            else:
                # A location whose truth this path decided (`if (*error)`, or a store of its truth,
                # frontend.errorslots) loads a pointer of that nullness.
                known = st.facts.conds.get(op.key) if op.key in self.correlated else None
                null = MAYBE if known is None else NONNULL if known else NULL
                st.objs[oid] = made(self.made, 0, Gone.NO, null, Origin.FIELD, op.loc, op.what, node, op.deps)
        self.bind(st, op.dst, oid, op.loc, False, events)

    def op_store(self, st: State, op: ir.Store, node: int, index: int, events: list) -> None:
        sizes.on_store(st, op)
        if op.target in self.correlated or (op.through is not None and op.target):
            # The location's own truth, tested (or an out-parameter's slot): what this store wrote.
            if op.truth is None and not op.null:
                st.facts.conds.pop(op.target, None)
            else:
                st.facts.conds[op.target] = bool(op.truth)
        oid = st.env.get(op.var) if op.var is not None else None
        if op.overwrites and oid is not None:
            self.overwrite_held(st, op, oid, node, events)
        if oid is not None:
            self.escape(st, oid)
        if (op.through is not None or op.member) and self.summarizer is not None:
            self.summarizer.at_store(node, st, op.through, oid, op.target, op.member)
        if op.element and oid is not None and self.summarizer is not None:
            self.summarizer.in_containers.add(oid)
            self.summarizer.at_contained(st, oid)
        if op.sink and oid is not None and self.summarizer is not None:
            self.summarizer.at_given(st, oid)
        if op.sink and oid is not None and oid.kind is Kind.PARAM and self.summarizer is not None:
            self.summarizer.handed.add(oid.site)  # a parameter handed to a call that keeps it
            if not op.assumed:
                self.summarizer.confirmed.add(oid.site)  # by a record no cycle assumes
            else:
                self.summarizer.leaning.setdefault(oid.site, set()).add(op.leans_on or op.sink)
        if oid is not None and op.floating and not self.floating(st.objs[oid]):
            if oid.kind is Kind.PARAM:  # a floating one the caller handed us would be sunk here
                st.objs[oid] = replace(st.objs[oid], floated=True)
            oid = None  # a sink of floating references takes its own reference of any other
        if oid is not None:
            o = st.objs[oid]
            # A retained reference already handed on (stored) is no longer ours to give either.
            # A singleton (Py_None) is nobody's here either: a sink needs a retain first (issue 31).
            if op.sink and not o.owned and (o.origin in _SINK_NEEDS_OWNED or singleton_site(oid) is not None) \
                    and o.null != NULL and not o.gone and not self.forwards and not op.paired:
                self.event(EventKind.SUNK_BORROWED, Via.USE, op.loc, st, oid, events, text=op.sink)
                if op.assumed and oid.kind is Kind.PARAM and self.summarizer is not None:
                    self.summarizer.overgiven.add(oid.site)  # a cycle's assumption given twice
            # One debt per location holding it: storing it again where it already is owes nothing.
            again = bool(op.target) and st.facts.stored.get(op.target) == oid
            if o.owned <= 1 and ((o.kept and not self.conv.infer_setters) or op.alias) and not op.sink and op.through is None:
                # A keeper holds its own reference, or a cleanup variable keeps ours to its scope's end:
                # this copy is a borrowed alias, no hand-over (`*out = x` still is); a cleanup
                # variable retained first (python-sdbus's `Py_INCREF (timer_fd); self->timer_fd =
                # timer_fd;` before its cleanup's release) hands that retained one over. Not where stores
                # hold references (`infer_setters`: CPython's `self->last = node` after PyDict_SetItem).
                # Not a reference retained beyond our one (glib-networking's `g_hash_table_insert
                # (complete, g_bytes_ref (der), g_bytes_ref (der))` after a helper kept `der`):
                # that one is for the location. An alias of a reference we do not own (a weak pointer,
                # a weak-ref'd object: frontend.weak) owes none either.
                pass
            # An owned reference stored: its new holder keeps the object alive past our releases.
            elif o.owned:
                # The location holds that reference (`*pkey = Py_NewRef(key)`, `Py_INCREF(x);
                # self->f = x;`): cleared while a variable here still holds the object
                # (`Py_CLEAR(self->f)`, `Py_XSETREF(self->f, NULL)`), it is ours again (precision
                # 4, 9). Not a sink's slot: its keeper decides (precision 11).
                paid = o.paid + 1 if op.target and not op.sink else o.paid
                st.objs[oid] = replace(o, owned=o.owned - 1, shared=True, paid=min(MAX_OWNED, paid))
            else:
                st.objs[oid] = replace(o, debt=o.debt if again else min(MAX_OWNED, o.debt + 1))
        if op.target:
            self.store_into(st, op, oid)

    def overwrite_held(self, st: State, op: ir.Store, oid: ObjId, node: int, events: list) -> None:
        """An owned reference stored over a location that may hold one from an earlier call,
        which this path never read nor wrote (frontend.overwrites): that reference is lost."""
        o = st.objs[oid]
        if o.owned <= 0 or o.null == NULL or op.target in st.facts.stored \
                or ObjId(Kind.FIELD, op.target) in st.objs:
            return
        held = Obj(1, Gone.NO, MAYBE, Origin.HELD, op.loc, op.place, node)
        events.append(Event(EventKind.OVERWRITTEN, Via.ASSIGN, op.loc, held, None, self.is_new))

    def op_escape(self, st: State, op: ir.Escape, node: int, index: int, events: list) -> None:
        if op.var in st.env:
            self.escape(st, st.env[op.var])  # `&v` handed on: whoever got it may keep v's value
        oid = st.env.pop(op.var, None)
        kept = {k: st.facts.conds[k] for k in op.spared if k in st.facts.conds} if op.spared else None
        self.invalidate(st, op.var)
        if kept:  # fields the callee cannot write (frontend.constfields)
            st.facts.conds.update(kept)
        # `tmp = sig; parse(&tmp);` may move tmp along (or overwrite it) but the object stays
        # sig's: only an escaping sole holder may hand its reference over. A holder no later op
        # reads (a macro's statement-expression temporary, `__inst` of G_TYPE_CHECK_INSTANCE_TYPE,
        # or a block's local whose scope ended) can never release it: it does not count.
        if oid is not None and not self.held_after(st, oid, node, index):
            st.objs[oid] = replace(st.objs[oid], owned=0, gone=Gone.NO)
            self.collect(st, oid)

    def held_after(self, st: State, oid: ObjId, node: int, index: int) -> bool:
        """Whether a variable some later op reads holds `oid` (with no liveness: any holder)."""
        held = [v for v, o in st.env.items() if o == oid]
        if self.live is None or not held:
            return bool(held)
        return any(self.live.read_after(self.cfg.graph, node, index, v) for v in held)

    def joins_held_list(self, st: State, src: ObjId, callee: str) -> bool:
        """GLib code: a list insertion (a reallocation storing a data argument) on a non-NULL
        link this function holds no reference to, loaded from memory or lent by a call
        (g_list_find): not a parameter (a wrapper's list is its caller's) nor a NULL head."""
        o = st.objs.get(src)
        if o is None or o.owned or o.gone or o.null is not NONNULL or src.kind is Kind.PARAM:
            return False
        if not self.conv.infer_steals or self.conv.infer_setters or o.origin not in (Origin.FIELD, Origin.RESULT):
            return False
        return any(e is Effect.STORE for _, e in self.conv.summary(callee).arguments)

    def op_realloc(self, st: State, op: ir.Realloc, node: int, index: int, events: list) -> None:
        src = st.env.get(op.src) if op.src is not None else None
        if op.src is not None and src is None:
            # A block nobody here counts (its variable escaped: `lookup (table, key, &list)`
            # filled it with the table's own list): the result is as unknown as the argument.
            self.bind(st, op.dst, None, op.loc, False, events)
            return
        if src is not None and self.joins_held_list(st, src, op.callee):
            # A link of a list another holder keeps (`item = g_list_next (item)` along
            # `priv->lru_start`) given a new element: `g_list_insert_sorted (item, data, cmp)` links
            # it into that list, whose head its holder keeps; the result is no list of ours.
            self.bind(st, op.dst, None, op.loc, False, events)
            return
        if src is not None and not op.may_fail:
            self.drop_ref(st, src, op.loc)
            if self.summarizer is not None:
                # The caller's `*p` reallocated (`*stat = g_list_insert_sorted (*stat, node, cmp)`,
                # phodav's prop_add) is given up as a release gives it up: with the fill after
                # it, an in-out parameter (`Effect.RENEW`), not a second list beside the first.
                self.summarizer.at_given(st, src)
        self.acquire(st, op.dst, op.loc, op.callee, node, index)
        if src is not None and op.may_fail:
            dst = st.env[op.dst]
            st.objs[dst] = replace(st.objs[dst], link=src)
