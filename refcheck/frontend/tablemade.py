"""What a GHashTable constructor frees, and a variable's assignments from such constructors.

Shared by the three readings of tables made without destroy functions: a local's
(`bare_tables`), a struct field's (`fieldtables`) and a wrapper's result (`bare_wrappers`).
"""

from __future__ import annotations

from refcheck.frontend.clangutil import K, kind_of, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import is_null_constant


def constructed(b, call) -> tuple | None:
    """(frees keys, frees values) of a `table_new` call, else None."""
    positions = b.conv.pattern_value("table_new", b.callee_of(call)[1] or "")
    if positions is None:
        return None
    args = children_of(call)[1:]

    def frees(role: str) -> bool:
        i = positions.get(role)
        return i is not None and (i >= len(args) or not is_null_constant(args[i]))

    return frees("key"), frees("value")


def note_assigned(b, v, value, made: dict, other: set, made_by) -> None:
    """Note `v = value`: a constructor `made_by` reads (what its destroy arguments free joins
    v's), NULL (nothing), or anything else (v is not only ever such a table)."""
    value = strip(value)
    if is_null_constant(value):
        return
    frees = made_by(b, value) if kind_of(value) == K.CALL_EXPR else None
    if frees is None:
        other.add(v)
        return
    keys, values = made.get(v, (False, False))
    made[v] = (keys or frees[0], values or frees[1])
