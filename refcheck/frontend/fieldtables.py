"""Table fields made without a key (value) destroy function: what is inserted there as a key (a
value) stays its owner's (issue 32, glib46's gnome-keyring).

`bare_tables` reads the tables a local holds. A module or session keeps its table in a field:
gnome-keyring's `self->pv->objects = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
gkm_util_dispose_unref)` in its init, and `g_hash_table_insert (self->pv->objects, object,
g_object_ref (object))` in `add_object`: the value is the table's reference, the key the same
object's pointer, borrowed by the table (GLib's key_destroy_func, "NULL if you don't want to
supply such a function"). Read as a store of both, the one retain paid for the value and the key
took it again: the transaction's own `g_object_ref (object)` then read as spent (RC009), and the
callers that unref'd what they made after `add_object` as releasing a kept object.

Keys only (`bare_tables.lent_positions`): a table's values may be freed by hand where the
table goes (librest's node `children`, made with `g_hash_table_new (NULL, NULL)`, its values
unref'd one by one in `rest_xml_node_unref`). A field (its declaration) qualifies where every assignment of it in the unit is a `table_new`
constructor of the conventions or NULL, and its address is taken only by a `g_clear_*` call;
a field the unit never assigns is not known and left alone.
"""

from __future__ import annotations

from refcheck.frontend.binding import of_kinds
from refcheck.frontend.clangutil import K, binop, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.perunit import PerUnit, own_definitions
from refcheck.frontend.tablemade import constructed, note_assigned

_USES = frozenset((K.BINARY_OPERATOR.value, K.UNARY_OPERATOR.value, K.COMPOUND_ASSIGNMENT_OPERATOR.value))
_UNIT: PerUnit[dict] = PerUnit()


def field_table(b, table) -> tuple | None:
    """(frees keys, frees values) of the table the expression `table` reads, where it is a field
    the unit only ever sets to a constructor's table or NULL (module docstring); else None."""
    m = strip(table)
    if kind_of(m) != K.MEMBER_REF_EXPR:
        return None
    field = referenced(m)
    if field is None or kind_of(field) != K.FIELD_DECL:
        return None
    return _UNIT.of(m.translation_unit, lambda: _find(b, m.translation_unit)).get(field.get_usr())


def _find(b, tu) -> dict:
    """Field USR -> (frees keys, frees values) for the fields only ever made by a constructor."""
    made: dict = {}
    other: set = set()
    for fn in own_definitions(tu):
        toks = None
        for c in of_kinds(fn, _USES):
            kids = children_of(c)
            k = kind_of(c)
            if k == K.UNARY_OPERATOR and unop(c) == "&" and kids:
                usr = _field_usr(kids[0])
                toks = list(fn.get_tokens()) if usr and toks is None else toks
                if usr and not _cleared(fn, c, toks):
                    other.add(usr)
            elif kids and (usr := _field_usr(kids[0])):
                if k == K.BINARY_OPERATOR and binop(c) == "=" and len(kids) == 2:
                    note_assigned(b, usr, kids[1], made, other, constructed)
                elif k == K.COMPOUND_ASSIGNMENT_OPERATOR:
                    other.add(usr)
    return {usr: frees for usr, frees in made.items() if usr not in other}


def _field_usr(e) -> str:
    m = strip(e)
    if kind_of(m) != K.MEMBER_REF_EXPR:
        return ""
    f = referenced(m)
    return f.get_usr() if f is not None and kind_of(f) == K.FIELD_DECL else ""


def _cleared(fn, address, toks: list) -> bool:
    """Whether `&x->f` is spelled as the first argument of a `g_clear_*` macro or call
    (`g_clear_pointer (&x->f, g_hash_table_unref)`): the field emptied, not handed out. Read off
    the tokens: the macro's expansion names the address in its own statements, all of them at
    the macro's name."""
    at = {t.extent.start.offset: j for j, t in enumerate(toks)}
    i = at.get(address.extent.start.offset)
    if i is None:
        return False
    return toks[i].spelling.startswith("g_clear_") or \
        (i >= 2 and toks[i - 1].spelling == "(" and toks[i - 2].spelling.startswith("g_clear_"))
