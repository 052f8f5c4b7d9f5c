"""Stores over a reference a location may hold from an earlier call (issue 31's recall across
functions; the cpython preset's setters).

A function the runtime calls through a type's or module's table on a live object (a method, a
getset's setter, a number slot: any table function but `conventions.fresh_slots`') may run any
number of times. Where it stores a reference into a field of a parameter's record, of a global,
or into a global pointer (`self->auth_fn = value` in pysmbc's setter, ccb8980; `fault_alarm.file = file` in
faulthandler's `dump_traceback_later`, 71c9a63) without ever reading that location first, the
reference an earlier call stored there is lost: the store is flagged (`ir.Store.overwrites`) and
the analysis reports it where the value stored is an owned reference (RC007).

A read of the location anywhere before the store (`Py_XDECREF (self->f)`, a test, `Py_XSETREF`'s
temporary, `Py_CLEAR`), a call before it handed the record's pointer (other than the C API's:
the project's own `clear_fields (self)` may release the field), or for a global a call before
it of a unit function that reaches that global, is a location this function settles itself: not
flagged. Helpers no table names are not flagged either (`init_state (st)` fills fresh memory).
"""

from __future__ import annotations


from refcheck.frontend.binding import cursor_key, of_kinds
from refcheck.frontend.clangutil import K, expr_text, has_pointer_type, kind_of, referenced, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.perunit import PerUnit, own_definitions
from refcheck.frontend.slots import slots_of
from refcheck.ir.digraph import reaching

_MEMBERS = frozenset((K.MEMBER_REF_EXPR.value,))
_CALLS = frozenset((K.CALL_EXPR.value,))
_REFS = frozenset((K.DECL_REF_EXPR.value,))
# The targets a store may overwrite a reference in: a field, a global pointer.
_PLACES = (K.MEMBER_REF_EXPR, K.DECL_REF_EXPR)
# The C API's prefixes: a call of one never settles a project's field.
_API = ("Py", "_Py")
# The last unit whose functions were read (a weak reference) and, per global's key, the names of
# the unit's functions that reach it (mention it, or call one that does).
_UNIT: PerUnit[tuple[dict, dict]] = PerUnit()


def place_of(b, target) -> str:
    """The text of a field or global a pointer is stored into, where stores hold references
    (messages)."""
    member = strip(target) if b.conv.infer_setters else None
    if member is None or kind_of(member) not in _PLACES or not has_pointer_type(member):
        return ""
    return expr_text(member)


def overwrites(b, target) -> bool:
    """Whether the store `target = ...` may replace a reference of an earlier call this function
    never settled (module docstring)."""
    conv = b.conv
    if not conv.infer_setters or not conv.fresh_slots:
        return False
    member = strip(target)
    if member is None or kind_of(member) not in _PLACES or not has_pointer_type(member):
        return False
    if kind_of(member) == K.DECL_REF_EXPR:
        return _global_overwritten(b, member)
    base = _base(member)
    if base is None:
        return False
    if not _repeated(b):
        return False
    start = member.extent.start.offset
    field = referenced(member)
    for m in of_kinds(b.fn, _MEMBERS):
        if m != member and m.extent.start.offset <= start and referenced(m) == field and _base(m) == base:
            return False  # read or written before: this function settles the location itself
    return not _settled_by_call(b, base, start)


def _global_overwritten(b, ref) -> bool:
    """`g = v` of a global pointer (`static PyObject *callback`) in a function the runtime calls
    again, never read or written before here, nor settled by a call before."""
    decl = referenced(ref)
    if decl is None or kind_of(decl) != K.VAR_DECL or not _global(decl) or not _repeated(b):
        return False
    start = ref.extent.start.offset
    for r in of_kinds(b.fn, _REFS):
        if r != ref and r.extent.start.offset <= start and referenced(r) == decl:
            return False
    return not _settled_by_call(b, ("global", cursor_key(decl)), start)


def _repeated(b) -> bool:
    """Whether a table names the function, in a slot the runtime may call again on a live object."""
    slots = slots_of(b.fn, b.conv)
    return bool(slots) and not any(b.conv.matches("fresh_slots", s) for s in slots)


def _base(member):
    """(kind, key) of the variable a member chain starts at: a pointer parameter (`self->f`,
    `self->a.b`) or a global (`g.f`, `g->f`); None for anything else (a local, a call, and a
    member of another object reached through a pointer field: `self->last->next`)."""
    x = member
    for _ in range(8):
        kids = list(children_of(x))
        x = strip(kids[0]) if kids else None
        if x is None:
            return None
        if kind_of(x) != K.MEMBER_REF_EXPR:
            break
        if has_pointer_type(x):
            return None  # `x->f` of a pointer field: another object's field
    if x is None or kind_of(x) != K.DECL_REF_EXPR:
        return None
    decl = referenced(x)
    if decl is None:
        return None
    if kind_of(decl) == K.PARM_DECL and has_pointer_type(decl):
        return ("param", cursor_key(decl))
    if kind_of(decl) == K.VAR_DECL and _global(decl):
        return ("global", cursor_key(decl))
    return None


def _global(decl) -> bool:
    parent = decl.semantic_parent
    return parent is not None and kind_of(parent) == K.TRANSLATION_UNIT


def _settled_by_call(b, base, start: int) -> bool:
    """Whether a call before `start` may have settled the location: one handed the parameter
    (not the C API's), or one of the unit's functions that reaches the global."""
    reach = _reaching(b.fn.translation_unit, base[1]) if base[0] == "global" else frozenset()
    for call in of_kinds(b.fn, _CALLS):
        if call.extent.start.offset > start:
            continue
        name = call.spelling or ""
        if base[0] == "global":
            if name in reach:
                return True
            continue
        if name.startswith(_API):
            continue
        for a in call.get_arguments():
            a = strip(a)
            if a is not None and kind_of(a) == K.DECL_REF_EXPR and referenced(a) is not None \
                    and cursor_key(referenced(a)) == base[1]:
                return True
    return False


def _mentions_and_calls(tu) -> tuple[dict, dict]:
    """Per function of the unit: the globals it mentions, the names it calls."""
    mentions: dict = {}
    calls: dict = {}
    for fn in own_definitions(tu):
        mentions[fn.spelling] = {cursor_key(r) for x in of_kinds(fn, _REFS) if (r := referenced(x)) is not None
                                 and kind_of(r) == K.VAR_DECL}
        calls[fn.spelling] = {c.spelling for c in of_kinds(fn, _CALLS) if c.spelling}
    return mentions, calls


def _reaching(tu, key) -> frozenset:
    """The names of the unit's functions that mention the global `key` or call one that does."""
    mentions, calls = _UNIT.of(tu, lambda: _mentions_and_calls(tu))
    return frozenset(reaching({name for name, keys in mentions.items() if key in keys}, calls))
