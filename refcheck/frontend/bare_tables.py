"""Tables made without destroy functions: what is inserted into them stays its owner's.

GLib's containers keep the data they are given (the glib preset's `store` of
`g_hash_table_insert`'s key and value), which the table's destroy functions free when it goes:
a key_destroy_func is "a function to free the memory allocated for the key used when removing
the entry from the GHashTable, or NULL if you don't want to supply such a function" (GLib's
g_hash_table_new_full; a value_destroy_func the same for values). A table made with `g_hash_table_new`, or
`g_hash_table_new_full` with a NULL key (value) destroy function, frees none of its keys
(values): they are borrowed by it, and whoever held them still owes their release
(geocode-glib's `g_hash_table_insert (ht, "q", location); ...; g_hash_table_unref (ht);
g_free (location);`, appstream-glib's tests: the g_autoptr frees the inserted app).

Found per function, by syntax, once per build: a local every assignment of which is a call to a
`table_new` constructor (the conventions': constructor pattern -> the argument positions of its
key and value destroy functions) or NULL, and whose address is never taken. A `table_store`
call handed it first lends the key (position 1) where every constructor's key destroy function
is NULL, and the value (position 2) where every value destroy function is; a call with the key
alone (g_hash_table_add: the key is its own value) where both are.
"""

from __future__ import annotations

from refcheck.frontend.aliases import plain_local
from refcheck.frontend.bare_wrappers import helper_frees
from refcheck.frontend.clangutil import K, binop, kind_of, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.fieldtables import field_table
from refcheck.frontend.shallow import local_uses
from refcheck.frontend.tablemade import constructed, note_assigned


def lent_positions(b, name: str, args: list) -> frozenset:
    """The argument positions of this call that a table without destroy functions only borrows."""
    if not b.conv.table_new or not args or not b.conv.matches("table_store", name):
        return frozenset()
    v = plain_local(b, args[0])
    frees = _bare_tables(b).get(v) if v is not None else None
    if frees is None:
        # A field's table the unit only ever makes (`fieldtables`): its keys only. A tree's
        # values may be freed by hand where their table goes (librest's `children`).
        field = field_table(b, args[0]) if v is None and len(args) > 2 else None
        if field is None or field[0] or own_key(b, args[1], args[2]):
            return frozenset()
        return frozenset((1,))
    keys, values = frees
    out = set()
    if len(args) == 2 and not keys and not values:
        out.add(1)  # g_hash_table_add: the key is the value too
    elif len(args) > 2:
        out.update(i for i, frees_it in ((1, keys), (2, values)) if not frees_it)
    return frozenset(out)


def _bare_tables(b) -> dict:
    if b.bare_tables is None:
        b.bare_tables = _find(b)
    return b.bare_tables


def _find(b) -> dict:
    """local -> (whether some constructor frees its keys, whether some frees its values), for
    the locals only ever made by a `table_new` constructor or set to NULL."""
    made: dict = {}
    other: set = set()
    for what, v, parent, wrapper in local_uses(b):
        if what == "ref":
            _classify(b, v, parent, wrapper, made, other)
        elif parent:
            note_assigned(b, v, parent[-1], made, other, _made)
    return {v: frees for v, frees in made.items() if v not in other}


def _made(b, call) -> tuple | None:
    """(frees keys, frees values) of a `table_new` call or of the unit's own wrapper of one
    (`frontend.bare_wrappers`)."""
    return constructed(b, call) or helper_frees(b, call, constructed)


def _classify(b, v: str, parent, wrapper, made: dict, other: set) -> None:
    """One mention of v: assigned (a constructor or not), its address taken, or only used."""
    k = kind_of(parent)
    kids = children_of(parent)
    if k == K.BINARY_OPERATOR and binop(parent) == "=" and len(kids) == 2 and wrapper is kids[0]:
        note_assigned(b, v, kids[1], made, other, _made)
    elif k == K.UNARY_OPERATOR and unop(parent) == "&":
        other.add(v)  # g_steal_pointer (&t), an out-parameter: whatever it holds after
    elif k == K.COMPOUND_ASSIGNMENT_OPERATOR:
        other.add(v)


def own_key(b, key, value) -> bool:
    """Whether the key is the value's own variable or an address inside it (`&schema->type`,
    gnome-keyring's schema table): one object, which the value's store hands over."""
    x = strip(key)
    if kind_of(x) == K.UNARY_OPERATOR and unop(x) == "&" and children_of(x):
        x = strip(children_of(x)[0])
    while kind_of(x) == K.MEMBER_REF_EXPR and children_of(x):
        x = strip(children_of(x)[0])
    held = plain_local(b, value)
    return held is not None and plain_local(b, x) == held
