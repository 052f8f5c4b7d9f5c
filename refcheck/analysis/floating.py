"""Floating references (GVariant, GInitiallyUnowned) sunk through the location that holds them.

`self->items = g_variant_builder_end (&b); g_variant_ref_sink (self->items);` (libsecret, issue
32): the plain store hands the floating reference to the location, and `ref_sink` of the
location's value turns that one reference into a full one the location keeps ("If value is
floating, the floating reference is converted to a normal one", GLib's g_variant_ref_sink); it
adds no reference of the function's. A sink-floating call (`g_variant_builder_add_value`) already
sank what it was given and holds it in no location here: `ref_sink` after it is a new reference.
"""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.state import Kind, ObjId, State
from refcheck.conventions import Conventions
from refcheck.conventions.summary import Source

# Records that say whether a result may be floating.
DESCRIBED = (Source.CONFIGURED, Source.INFERRED)


def floating_callee(conv: Conventions, name: str) -> bool:
    """An acquirer whose owned result may be floating: a floating acquirer (g_variant_new_*), a
    body's returning one unsunk (its record's `floating`), or one no table nor body describes."""
    if conv.matches("ref_sink", name):
        return False
    s = conv.summary(name)
    return conv.matches("floating", name) or s.floating or s.source not in DESCRIBED


def sunk_in_place(conv: Conventions, data: dict, st: State, oid: ObjId) -> bool:
    """Whether `oid`, loaded from a location, is the floating reference a plain store put there:
    the object last stored at its key (a FIELD object's site), an acquisition this path no longer
    tracks (handed over, nobody else holding it), whose callee may return a floating one."""
    if oid.kind is not Kind.FIELD:
        return False
    held = st.facts.stored.get(oid.site)
    if held is None or held.kind is not Kind.ACQUIRE or held in st.objs:
        return False
    node, index = held.site
    ops = data[node].ops
    op = ops[index] if 0 <= index < len(ops) else None
    return type(op) is ir.Acquire and floating_callee(conv, op.callee)
