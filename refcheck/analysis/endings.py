"""How references end: a release, a return, an exit (a mixin of `transfer.Transfer`).

Each appends typed events for what it observed (a release of something borrowed, a reference
still owned at an exit) and updates the state; it never names a rule.
"""

from __future__ import annotations

from dataclasses import replace

from refcheck import ir
from refcheck.analysis.state import Kind, ObjId, State
from refcheck.findings import Location
from refcheck.rules.events import EventKind, Gone, Nullness, Origin, Via

NULL = Nullness.NULL
# Origins whose release without an owned reference is a release of something borrowed.
_COUNTED = (Origin.PARAM, Origin.ACQUIRE, Origin.RETAIN)
# References this function owned (acquired or retained), whatever it did with them since.
_OURS = (Origin.ACQUIRE, Origin.RETAIN)


# Borrowed values read from memory: a loaded field, a borrowing call's result.
_BORROWED_VIEWS = (Origin.FIELD, Origin.RESULT)


class Endings:
    """Releases, returns and exits; `Transfer` supplies the state's tables and `event`."""

    def release(self, st: State, oid: ObjId, op: ir.Release, events: list) -> None:
        held = st.facts.stored.get(oid.site) if oid.kind is Kind.FIELD and oid.site in self.out_slots else None
        through = held is not None and held in st.objs and st.objs[oid].origin is Origin.FIELD
        if through:
            # `g_free (*params); return FALSE;`: a parameter's slot this function filled, loaded
            # as a location's value (`op_load`: only the slot holds it), releases what it holds
            # (also under `?:`: gcr's `g_free (iv ? *iv : NULL)`).
            oid = held
        self.release_held(st, oid, op, events)
        if (through or any(v in self.slot_values for v in op.vars)) and st.objs[oid].gone:
            # Released through the slot itself (`g_strfreev (*array)`): the function took back
            # the reference it handed the slot, whose record reads it as holding nothing on that
            # result (`Summarizer.slot_state`: gone), no location left dangling by a release
            # elsewhere (`*out = obj` and obj's autoptr: `dangling` still reports that one).
            st.objs[oid] = replace(st.objs[oid], dropped_at=None)

    def release_held(self, st: State, oid: ObjId, op: ir.Release, events: list) -> None:
        o = st.objs[oid]
        if o.null == NULL:
            return
        ended = Gone.CONSUMED if op.consume else Gone.RELEASED
        if o.owned > 0:
            if o.origin is Origin.ACQUIRE and self.wrong_family(o.family, op.callee, op.record):
                via = Via.CONSUME if op.consume else Via.RELEASE
                self.event(EventKind.RELEASED_WRONG_FAMILY, via, op.loc, st, oid, events, text=op.callee)
            owned = o.owned - 1
            # A retained parameter or field is still alive afterwards: someone else holds it.
            # So is a shared one (another holder kept its own reference).
            gone = ended if owned == 0 and o.origin is Origin.ACQUIRE and not o.shared else Gone.NO
            st.objs[oid] = replace(o, owned=owned, gone=gone, released_at=op.loc, dropped_at=op.loc)
            return
        via = Via.CONSUME if op.consume else Via.RELEASE
        if o.gone is Gone.CONSUMED:
            self.event(EventKind.RELEASED_AFTER_CONSUME, via, op.loc, st, oid, events)
        elif o.gone:
            self.event(EventKind.RELEASED_TWICE, via, op.loc, st, oid, events)
            if op.consume:  # reported, but it still takes the object over (dropped_at stays the first's)
                st.objs[oid] = replace(o, gone=Gone.CONSUMED, released_at=op.loc)
        elif o.origin in _OURS and o.shared and any(v == oid and t not in self.sink_slots for t, v in st.facts.stored.items()):
            # Handed over by a store into a location that still holds it (`priv->scanner = s;
            # ... destroy (s);`): the release takes the location's reference back. The location
            # must be cleared before the function returns (`dangling` at the return); clearing it
            # gives nothing back then (the reference it held is the one released).
            st.objs[oid] = replace(o, gone=ended, released_at=op.loc, dropped_at=op.loc, paid=max(0, o.paid - 1))
        elif o.origin is Origin.RESULT and not self.primitive:
            # A destructor (`torch_FloatTensor_free`) releases what its object held: its job.
            self.event(EventKind.RELEASED_BORROWED_RESULT, via, op.loc, st, oid, events)
            st.objs[oid] = replace(o, gone=ended, released_at=op.loc, dropped_at=op.loc)
        elif o.origin in _COUNTED:
            self.event(EventKind.RELEASED_BORROWED, via, op.loc, st, oid, events)
            # Whoever did own it may now be holding freed memory: later uses are uses after release.
            st.objs[oid] = replace(o, gone=ended, released_at=op.loc, dropped_at=op.loc)

    def free_locations(self, st: State, op: ir.Release) -> None:
        """An object released for good takes the locations inside it along (`file->bytes` after
        `g_slice_free (GvdbTable, file)`): what they held is no longer held anywhere (`dangling`)."""
        for v in op.vars if st.facts.stored else ():
            oid = st.env.get(v)
            if oid is not None and st.objs[oid].gone:
                for k in [k for k in st.facts.stored if v in self.stored_deps.get(k, ())]:
                    del st.facts.stored[k]

    def wrong_family(self, acquirer: str | None, releaser: str, record: str = "") -> bool:
        """Both families known and different (`THFloatTensor_new` freed by `THCudaTensor_free`).
        The struct the releaser's parameters point to (`record`) clears a mismatch its name's
        prefix makes, never makes one: `BIO_free (BIO *)` releases what `BIO_new_mem_buf` gave
        (both `struct bio_st`), where a base type's releaser (CPython's `Py_DECREF (PyObject *)`
        of a `bitarrayobject`) releases what a derived struct's acquirer gave."""
        a, r = acquirer, self.conv.family(releaser)
        if a is None or r is None or a == r:
            return False
        return not record or self.conv.family(releaser, record) != a

    def on_return(self, st: State, value: str | None, loc: Location, events: list) -> None:
        oid = st.env.get(value) if value is not None else None
        if oid is not None:
            o = st.objs[oid]
            if o.null != NULL:
                if o.owned > 0:
                    self.event(EventKind.RETURNED_OWNED, Via.RETURN, loc, st, oid, events)
                    st.objs[oid] = replace(o, owned=o.owned - 1)
                elif o.gone:
                    self.event(EventKind.USED_AFTER_RELEASE, Via.RETURN, loc, st, oid, events)
                elif o.taken:  # the reference its overwritten location held (locations.take_out)
                    self.event(EventKind.RETURNED_OWNED, Via.RETURN, loc, st, oid, events)
                    st.objs[oid] = replace(o, taken=False)
                else:
                    self.event(EventKind.RETURNED_BORROWED, Via.RETURN, loc, st, oid, events)
        self.dangling(st, events)
        self.on_exit(st, loc, Via.RETURN, events)

    def dangling(self, st: State, events: list) -> None:
        """A location given a reference and still holding it after the release took it back:
        the release was of a reference handed over (RC006 at the release)."""
        for oid in dict.fromkeys(st.facts.stored.values()):
            o = st.objs.get(oid)
            # shared: it was handed over by a store (a released object stored later is RC003's).
            if o is not None and o.origin in _OURS and o.shared and o.gone and o.owned == 0 \
                    and o.dropped_at is not None:
                via = Via.CONSUME if o.gone is Gone.CONSUMED else Via.RELEASE
                self.event(EventKind.RELEASED_BORROWED, via, o.dropped_at, st, oid, events)

    def on_exit(self, st: State, loc: Location, via: Via, events: list, text: str = "") -> None:
        for oid, o in sorted(st.objs.items(), key=lambda kv: kv[0].text()):
            # Still in a parameter's slot (`Py_INCREF(*op); return 0;`): one reference is the
            # slot's, which the caller reads back (an in-out parameter filled with a new reference).
            slot = oid.kind is Kind.FIELD and oid.site in self.slots and o.origin is Origin.RETAIN
            if o.owned > slot and o.null != NULL:
                self.event(EventKind.LOST, via, loc, st, oid, events, text=text)
        if self.conv.infer_setters and st.facts.stored and via in (Via.RETURN, Via.END):
            self.unpaid_in_new(st, loc, events)

    def unpaid_in_new(self, st: State, loc: Location, events: list) -> None:
        """A borrowed reference (a loaded field, a borrowing call's result) stored into a field of
        an object this function made and never retained: that object's destructor releases it
        once more than it was retained (zope.i18nmessageid 1147fbb, `new_msg->mapping =
        other->mapping`). Only a value still loadable where it came from (not moved out of a
        location overwritten since: a list's head handed to a new node), stored where stores hold
        references (the cpython preset; a link field is no store, frontend.linkfields)."""
        for key, oid in list(st.facts.stored.items()):
            o = st.objs.get(oid)
            if o is None or oid.kind is not Kind.FIELD or key == oid.site or o.origin not in _BORROWED_VIEWS \
                    or o.owned or o.paid or not o.debt or o.gone or o.null == NULL:
                continue
            place = self.stored_places.get(key)
            if place is not None and any(self.made_here(st, v) for v in self.stored_deps.get(key, ())):
                self.event(EventKind.SUNK_BORROWED, Via.RETURN, loc, st, oid, events,
                           text=f"'{place[0]}' (line {place[1].line})")

    @staticmethod
    def made_here(st: State, var: str) -> bool:
        """Whether `var` holds an object this function acquired and has not released."""
        b = st.objs.get(st.env.get(var)) if var in st.env else None
        return b is not None and b.origin is Origin.ACQUIRE and not b.gone
