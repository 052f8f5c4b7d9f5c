"""What the lowering of a call asks of its callee and arguments besides the record: the struct a
releaser releases, the local a REPLACE or CLEAR points at, back-pointers among the arguments, a
documented callback type's record and whether a result is a truth value (from `calls.py`).
"""

from __future__ import annotations

import clang.cindex as ci

from refcheck.conventions.summary import Effect, Source, Summary
from refcheck.frontend.aliases import interior_root, plain_local, pointed_local
from refcheck.frontend.argtypes import pointer_type_name
from refcheck.frontend.clangutil import BOOLEANS, K, kind_of
from refcheck.frontend.graph import GraphBuilder
from refcheck.frontend.parents import holds
from refcheck.frontend.userdata import KEPT


def record_pointee(c) -> str:
    """The name of the struct a pointer-typed expression points to, or ""."""
    return _record_of(c.type)


def _record_of(t) -> str:
    t = t.get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return ""
    p = t.get_pointee()
    if p.kind != ci.TypeKind.RECORD:
        return ""
    return p.spelling.replace("const ", "").replace("struct ", "").strip()


def released_record(decl) -> str:
    """The one struct every pointer parameter of the called releaser points to (`BIO_free (BIO
    *)`: bio_st), the family of what it releases; "" where they point to several or to
    something else too (`THCudaTensor_free (state, t)`, `luaT_free (L, void *)`: the name's
    prefix says it) or the callee is not known (a function pointer)."""
    if decl is None or kind_of(decl) != K.FUNCTION_DECL:
        return ""
    records = {_record_of(a.type) for a in decl.get_arguments()
               if a.type.get_canonical().kind == ci.TypeKind.POINTER}
    return next(iter(records)) if len(records) == 1 else ""


def replaced_local(b, args: list, effects: dict) -> tuple[int, str, int | None] | None:
    """(i, v, j) for the record's REPLACE position i whose argument points at the local v (`&v`, or
    what g_set_object's macro puns it through), with a next argument j to put there, or its CLEAR
    position i (j None: v is left NULL); else None (memory, `&priv->x`: REPLACE's next argument is
    kept by its own reference, KEEP; CLEAR's old value is no local's)."""
    for i, e in effects.items():
        if e is Effect.REPLACE and isinstance(i, int) and i + 1 < len(args) \
                or e is Effect.CLEAR and isinstance(i, int) and i < len(args):
            v = pointed_local(b, args[i])
            return (i, v, i + 1 if e is Effect.REPLACE else None) if v is not None else None
    return None


def back_pointers(b: GraphBuilder, args: list, effects: dict) -> set[int]:
    """Kept positions whose value is a local x that another argument points inside of
    (`init_side (client, &client->client_side)`), or inside an object x holds (frontend.parents):
    the callee stores x there, a back-pointer that cannot own x (the cycle would never be freed),
    so the call borrows x. Not where that argument points inside x itself and is a container's
    element too (`g_hash_table_insert (t, &(attr->type), attr)`, gnome-keyring's tables): a key
    kept beside its own value, not the place x is stored into (`fixtures/glib_key_in_value.c`)."""
    out = set()
    for i, e in effects.items():
        if e not in KEPT or not isinstance(i, int):
            continue
        x = plain_local(b, args[i]) if i < len(args) else None
        if x is not None and any(j != i and (r := interior_root(b, a)) is not None and holds(b, x, r)
                                 and not (r == x and effects.get(j) is Effect.STORE)
                                 for j, a in enumerate(args)):
            out.add(i)
    return out


def documented_callback(conv, c) -> Summary | None:
    """The record of a call through a function pointer of a callback type the project's gtk-doc
    documents taking parameters over (`conventions.callbacktypes`: `@media: (transfer full)`):
    those arguments are consumed, the rest borrowed; None for any other call."""
    positions = conv.documented_callbacks.get(pointer_type_name(c) or "") if conv.documented_callbacks else None
    if not positions:
        return None
    return Summary(arguments=tuple((i, Effect.CONSUME) for i in positions), source=Source.CONVENTIONS)


# Truth values (`BOOLEANS`): a non-zero result of these is 1 (TRUE), of any other integer -1 (CPython's error).
def is_boolean(c) -> bool:
    """The call's result type is a truth value (gboolean is a typedef of int: its spelling says)."""
    t = c.type
    return t.spelling in BOOLEANS or t.get_canonical().kind == ci.TypeKind.BOOL
