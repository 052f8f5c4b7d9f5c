"""A table the unit's own wrapper of a constructor without destroy functions hands back (issue 32).

`frontend.bare_tables` reads a local made by a `table_new` constructor; geocode-glib makes its
query table with a helper, `ht = _geocode_glib_dup_hash_table (params)`, whose body is `ret =
g_hash_table_new (g_str_hash, g_str_equal); ...; return ret;`: its tables free nothing, as the
constructor's do. Not read: a table kept in a field (`priv->conns = g_hash_table_new (NULL,
NULL)`), whose values other functions may free by hand (libsoup's finalize iterates `priv->conns`
and frees each state; a tree's destroy function walks its children's table), which a store's
lowering cannot see.
"""

from __future__ import annotations

from refcheck.frontend.binding import cursor_key, definition, of_kinds, referenced
from refcheck.frontend.clangutil import K, binop, kind_of, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.perunit import PerUnit
from refcheck.frontend.tablemade import note_assigned

# The last unit read and its functions' keys -> what `helper_frees` found for them.
_HELPERS: PerUnit[dict] = PerUnit()
_KINDS = frozenset((K.RETURN_STMT.value, K.VAR_DECL.value, K.BINARY_OPERATOR.value, K.UNARY_OPERATOR.value))


def helper_frees(b, call, constructed) -> tuple | None:
    """(frees keys, frees values) where `call` is to a function of the unit every return of which
    hands back a table a `table_new` constructor made there (geocode-glib's
    `_geocode_glib_dup_hash_table`: `ret = g_hash_table_new (g_str_hash, g_str_equal); ...;
    return ret;`): its tables are bare as the constructor's are. Else None."""
    d = referenced(call)
    fn = definition(d)
    if fn is None or kind_of(fn) != K.FUNCTION_DECL or fn.location.file is None \
            or fn.location.file.name != call.translation_unit.spelling:
        return None
    known = _HELPERS.of(call.translation_unit, dict)
    key = cursor_key(fn)
    if key not in known:
        known[key] = _helper(b, fn, constructed)
    return known[key]


def _helper(b, fn, constructed) -> tuple | None:
    made: dict = {}
    other: set = set()
    returned: list = []
    for c in of_kinds(fn, _KINDS):
        k = kind_of(c)
        kids = children_of(c)
        if k == K.RETURN_STMT:
            returned.extend(strip(x) for x in kids)
        elif k == K.VAR_DECL and (init := [x for x in kids if kind_of(x) != K.TYPE_REF]):
            note_assigned(b, cursor_key(c), init[-1], made, other, constructed)
        elif k == K.BINARY_OPERATOR and binop(c) == "=" and len(kids) == 2 and (v := _local(kids[0])) is not None:
            note_assigned(b, v, kids[1], made, other, constructed)
        elif k == K.UNARY_OPERATOR and unop(c) == "&" and kids and (v := _local(kids[0])) is not None:
            other.add(v)
    frees = []
    for r in returned:
        v = _local(r)
        got = made.get(v) if v is not None and v not in other else \
            (constructed(b, r) if kind_of(r) == K.CALL_EXPR else None)
        if got is None:
            return None
        frees.append(got)
    if not frees:
        return None
    return any(f[0] for f in frees), any(f[1] for f in frees)


def _local(e):
    """The key of the local variable `e` (casts aside) names, else None."""
    e = strip(e)
    if kind_of(e) != K.DECL_REF_EXPR:
        return None
    d = referenced(e)
    return cursor_key(d) if d is not None and kind_of(d) == K.VAR_DECL else None
