"""Fields a PyArg_ParseTuple-style call fills with a borrowed object.

`PyArg_ParseTuple (args, "O", &self->f)` writes a borrowed reference into the field, exactly as
`self->f = o;` with `o` borrowed would (Python/getargs.c: `O` "stores a Python object (without
any conversion) ... the C program thus receives the actual object that was passed. A new strong
reference to the object is not created"). The field then owes a reference, and the
`Py_INCREF (self->f)` that usually follows pays it, as it pays a plain store's. Without the store
the retain looked like a reference of our own, leaked at every exit (ijson's
`*_init (self, args)` methods). A global or static variable filled so (`PyArg_ParseTuple (args,
"O", &test_timings)`, yappi's `set_test_timings`) is such a location too (issue 31, cpystore)."""

from __future__ import annotations

from refcheck import ir
from refcheck.frontend.aliases import address_of_member
from refcheck.frontend.clangutil import expr_text
from refcheck.frontend.conditions import expr_vars, key_of
from refcheck.frontend.graph import GraphBuilder
from refcheck.frontend.statics import global_address
from refcheck.frontend.steals import parse_outputs


def lend_fields(b: GraphBuilder, loc, name: str, args: list) -> None:
    """After the call: each field it filled through a parse output holds the call's borrowed
    view, a store of a borrowed object into that location."""
    for i in sorted(parse_outputs(b, name, args)):
        member = address_of_member(args[i]) or global_address(args[i])
        key = key_of(b, member) if member is not None else None
        if not key:
            continue
        t = b.temp(f"{name}(...)")
        b.emit(ir.Load(loc, t, expr_text(member), frozenset(), "", call=name))
        b.emit(ir.Store(loc, t, key[0], frozenset(expr_vars(member, b))))
