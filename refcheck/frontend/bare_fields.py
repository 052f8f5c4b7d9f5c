"""A field only ever set to a table without destroy functions: what is inserted stays its owner's.

`frontend.bare_tables` reads a local table; a table kept in an instance's private struct is made
once (in `_init`) and used by the other methods: libsoup's `priv->conns = g_hash_table_new (NULL,
NULL)`, libgusb's `priv->dict_replug = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
NULL)` (its values are the caller's `g_autoptr` helper's). Trusted only for a field of a struct
defined in the unit's own file (a private struct: another unit cannot set it), every assignment of
which in the unit is a `table_new` call or NULL, and whose address no call but a releaser is
given (`g_clear_pointer (&priv->f, g_hash_table_unref)`): anything else may put another table there.
"""

from __future__ import annotations

from refcheck.frontend.binding import cursor_key, of_kinds, referenced
from refcheck.frontend.clangutil import K, binop, kind_of, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import is_null_constant
from refcheck.frontend.perunit import PerUnit, own_definitions

_KINDS = frozenset((K.CALL_EXPR.value, K.BINARY_OPERATOR.value, K.COMPOUND_ASSIGNMENT_OPERATOR.value))
# The last unit read (a weak reference) and its fields: key -> (frees keys, frees values).
_UNIT: PerUnit[dict] = PerUnit()
# The last unit read and its functions' keys -> what `helper_frees` found for them.
_HELPERS: PerUnit[dict] = PerUnit()


def field_frees(b, table, constructed) -> tuple | None:
    """(whether some constructor frees keys, whether some frees values) of the field `table`
    (`priv->conns`) names, where it is such a field (module docstring); else None.
    `constructed(b, call)` reads one constructor (`bare_tables._constructed`)."""
    field = _field(table)
    if field is None:
        return None
    tu = table.translation_unit
    return _UNIT.of(tu, lambda: _fields(b, tu, constructed)).get(cursor_key(field))


def _field(e):
    """The field declaration `e` (casts aside) reads, where it is a member of a struct defined in
    the unit's main file."""
    e = strip(e)
    if kind_of(e) != K.MEMBER_REF_EXPR:
        return None
    d = referenced(e)
    f = d.location.file if d is not None else None
    if f is None or f.name != e.translation_unit.spelling:
        return None
    return d


def _fields(b, tu, constructed) -> dict:
    made: dict = {}
    other: set = set()
    for fn in own_definitions(tu):
        for c in of_kinds(fn, _KINDS):
            k = kind_of(c)
            kids = children_of(c)
            if k == K.CALL_EXPR and not b.conv.matches("release", c.spelling or ""):
                # `&priv->f` handed to a call may be filled with anything; a releaser's (and
                # g_clear_pointer's expansion, which writes NULL through it) may not.
                other.update(f for x in c.get_arguments() if (f := _address(x)) is not None)
            elif k == K.COMPOUND_ASSIGNMENT_OPERATOR and kids and (f := _member(kids[0])) is not None:
                other.add(f)
            elif k == K.BINARY_OPERATOR and binop(c) == "=" and len(kids) == 2 \
                    and (f := _member(kids[0])) is not None:
                _assigned(b, f, kids[1], made, other, constructed)
    return {f: frees for f, frees in made.items() if f not in other}


def _member(e):
    """The key of the field declaration `e` (casts aside) names, else None."""
    e = strip(e)
    if kind_of(e) != K.MEMBER_REF_EXPR:
        return None
    d = referenced(e)
    return cursor_key(d) if d is not None else None


def _address(e):
    """The field key of `&x->f` (`e`, casts aside), else None."""
    e = strip(e)
    if kind_of(e) != K.UNARY_OPERATOR or unop(e) != "&":
        return None
    inner = next(iter(children_of(e)), None)
    return _member(inner) if inner is not None else None


def _assigned(b, f, value, made: dict, other: set, constructed) -> None:
    value = strip(value)
    if is_null_constant(value):
        return
    frees = constructed(b, value) if kind_of(value) == K.CALL_EXPR else None
    if frees is None:
        other.add(f)
        return
    keys, values = made.get(f, (False, False))
    made[f] = (keys or frees[0], values or frees[1])


def helper_frees(b, call, constructed) -> tuple | None:
    """(frees keys, frees values) where `call` is to a function of the unit every return of which
    hands back a table a `table_new` constructor made there (geocode-glib's
    `_geocode_glib_dup_hash_table`: `ret = g_hash_table_new (g_str_hash, g_str_equal); ...;
    return ret;`): its tables are bare as the constructor's are. Else None."""
    d = referenced(call)
    fn = d.get_definition() if d is not None else None
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
    for c in of_kinds(fn, _HELPER_KINDS):
        k = kind_of(c)
        kids = children_of(c)
        if k == K.RETURN_STMT:
            returned.extend(strip(x) for x in kids)
        elif k == K.VAR_DECL and (init := [x for x in kids if kind_of(x) != K.TYPE_REF]):
            _assigned(b, cursor_key(c), init[-1], made, other, constructed)
        elif k == K.BINARY_OPERATOR and binop(c) == "=" and len(kids) == 2 and (v := _local(kids[0])) is not None:
            _assigned(b, v, kids[1], made, other, constructed)
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


_HELPER_KINDS = frozenset((K.RETURN_STMT.value, K.VAR_DECL.value, K.BINARY_OPERATOR.value, K.UNARY_OPERATOR.value))


def _local(e):
    """The key of the local variable `e` (casts aside) names, else None."""
    e = strip(e)
    if kind_of(e) != K.DECL_REF_EXPR:
        return None
    d = referenced(e)
    return cursor_key(d) if d is not None and kind_of(d) == K.VAR_DECL else None
