"""What a store does to the location it writes: the object it held before, and the fact that
loading the location gives back what was stored (Transfer.op_store's second half)."""

from __future__ import annotations

from dataclasses import replace

from refcheck import ir
from refcheck.analysis.state import MAX_OWNED, Kind, Nullness, Obj, ObjId, Origin, State, restores
from refcheck.rules.events import Gone


class Locations:
    """Transfer's mixin: the location side of a store (`op.target`, a field or a slot)."""

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
