"""Fields the unit releases own what they hold (issue 32, glib46: msitools, gnome-keyring).

The glib preset lends a parameter a function only stores into memory (`fixtures/glib_setters_lend.c`:
an iterator's node, a back pointer), and hands it over where the same body released the field's
old value first (`frontend/replaced.py`). A setter with no release of its own stores into a field
that another function of the unit releases: msitools' `set_st_entry (st, n, str, ...)` writes
`st->strings[n].str = str`, which `msi_destroy_stringtable` frees with `msi_free
(st->strings[i].str)`; gnome-keyring's `take_session_key (self, key, mech)` writes `self->key =
key`, which the session's dispose drops with `g_object_unref (self->key)`. A field the unit hands
to a release holds a reference: the parameter stored into it is handed over, or that release
frees what the caller still owns. Lent, the callers' own `g_strdup`/`_new` results leaked (three
`[stores]`). The field is the member's declaration (its record and name), read where a releaser's
call (by the preset's names) takes that member expression, or its address, as its whole first
argument, or a `g_clear_*` macro takes its address. `recordfrees` is the converse: fields a record's destroyers
never free are lent.
"""

from __future__ import annotations

from refcheck.frontend.binding import of_kinds
from refcheck.frontend.clangutil import K, binop, has_pointer_type, kind_of, referenced, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.perunit import PerUnit, own_definitions

_ASSIGNS = frozenset((K.BINARY_OPERATOR.value,))
_MEMBERS = frozenset((K.MEMBER_REF_EXPR.value,))
_UNIT: PerUnit[frozenset] = PerUnit()


def owning_field_parameters(fn, conv) -> list:
    """The pointer parameters (declarations) whose every plain store in `fn` (`L = p;`, p never
    reassigned) is into a field, not a struct of the frame, that the unit releases somewhere."""
    stores: dict = {}  # parameter key -> [field USR or None]
    decls: dict = {}
    assigned = set()
    for c in of_kinds(fn, _ASSIGNS):
        kids = children_of(c)
        if binop(c) != "=" or len(kids) != 2:
            continue
        lhs, rhs = (strip(x) for x in kids)
        if kind_of(lhs) == K.DECL_REF_EXPR and kind_of(referenced(lhs)) == K.PARM_DECL:
            assigned.add(_key(referenced(lhs)))
        if kind_of(rhs) != K.DECL_REF_EXPR or not has_pointer_type(rhs):
            continue
        ref = referenced(rhs)
        if ref is None or kind_of(ref) != K.PARM_DECL:
            continue
        decls[_key(ref)] = ref
        stores.setdefault(_key(ref), []).append(_outer_field(lhs))
    if not stores:
        return []
    owned = released_fields(fn.translation_unit, conv)
    return [decls[k] for k, fields in stores.items()
            if k not in assigned and all(f is not None and f in owned for f in fields)]


def _key(decl) -> tuple:
    return decl.spelling, decl.location.offset


def _outer_field(lhs) -> str | None:
    """The USR of the field `X->f` / `X[i].f` / `X->a.f` writes, X memory a pointer reaches; None
    for a member of a struct variable of the frame (`s.f`, `s.a.f`) or anything else."""
    if kind_of(lhs) != K.MEMBER_REF_EXPR:
        return None
    field = referenced(lhs)
    base = strip(next(iter(children_of(lhs)), lhs))
    while kind_of(base) == K.MEMBER_REF_EXPR and base.type.get_canonical().kind.name == "RECORD":
        base = strip(next(iter(children_of(base)), base))  # `x->a.f`: the struct a is inside *x
    if kind_of(base) == K.DECL_REF_EXPR and base.type.get_canonical().kind.name == "RECORD":
        return None  # `s.f`: the frame's (or a global struct's) memory, the summary follows it
    return field.get_usr() if field is not None and kind_of(field) == K.FIELD_DECL else None


def released_fields(tu, conv) -> frozenset:
    """The USRs of the pointer fields some function of the unit releases: `g_free (x->f)`,
    `g_object_unref (x->a[i].f)`, `g_clear_object (&x->f)`, a cast around it (`G_OBJECT (x->f)`)."""
    def make():
        out = set()
        for fn in own_definitions(tu):
            toks = at = None
            for m in of_kinds(fn, _MEMBERS):
                field = referenced(m)
                if field is None or kind_of(field) != K.FIELD_DECL or not has_pointer_type(m):
                    continue
                if toks is None:
                    toks = list(fn.get_tokens())
                    at = {t.extent.start.offset: j for j, t in enumerate(toks)}
                if _released_at(toks, at, m, conv):
                    out.add(field.get_usr())
        return frozenset(out)
    return _UNIT.of(tu, make)


def _released_at(toks: list, at: dict, m, conv) -> bool:
    """Whether the tokens around member expression m spell `r (m)` / `r (&m)` / `r (CAST (m))`,
    r a releaser: m (its address) the whole first argument."""
    start, end = m.extent.start.offset, m.extent.end.offset
    i = at.get(start)
    if i is None:
        return False  # written in a macro's body: its own text is elsewhere
    j = next((j for j in range(i, len(toks)) if toks[j].extent.end.offset >= end), None)
    if j is None or j + 1 >= len(toks) or toks[j + 1].spelling not in (",", ")"):
        return False
    k = i - 1
    address = k >= 0 and toks[k].spelling == "&"
    if address:
        k -= 1
    if k >= 2 and toks[k].spelling == "(" and toks[k - 1].kind.name == "IDENTIFIER" \
            and toks[k - 2].spelling == "(" and j + 2 < len(toks) and toks[j + 1].spelling == ")":
        k -= 2  # `g_object_unref (G_OBJECT (x->f))`: a cast macro's argument
    if k < 1 or toks[k].spelling != "(":
        return False
    name = toks[k - 1].spelling
    # A `g_clear_*` macro takes the slot's address: `g_clear_error (x->f)` with f a `GError **`
    # clears what f points to (glib-networking's BIO read_error), not the field itself.
    if name.startswith("g_clear_"):
        return address
    return conv.classify(name) == "release"
