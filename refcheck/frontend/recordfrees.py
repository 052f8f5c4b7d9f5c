"""Fields the unit's own destroyers of a record never free (issue 32, glib31's libnice): a
parameter stored into such a field of a local record is lent, not handed over.

`priv_store_pending_check (agent, component, from, sockptr, ...)` fills a fresh `IncomingCheck`
(`icheck->local_socket = sockptr`) and queues it on the component. Where the unit destroys an
`IncomingCheck` (`g_free (old_icheck->username); g_slice_free (IncomingCheck, old_icheck);`, or an
`incoming_check_free` of its own) it never gives `local_socket` up: the record only points to a
socket the component owns, a back pointer. Read as a hand-over, every caller passing its borrowed
socket was RC009 and the caller's own paths that did not store it RC001. `fieldowners` reads the
destroy notify a record is handed beside; this reads the unit's destroyers of the record's type:
a library deallocator (`g_free`, `g_slice_free1`, `free`) given a pointer to the record that is
not a fresh allocation of the same function (a constructor's failure exit frees its record before
the fields are set). The record is left alone (the store hands over, as before) where the unit
hands a pointer to it to a releasing project function whose body is elsewhere (its destructor may
free any field), and the field counts as freed where a destroyer's function reads it in any way but
a test, a dereference, an overwrite, or an argument a call's record only borrows.
"""

from __future__ import annotations

import weakref

from refcheck.conventions.summary import Effect, Tracked
from refcheck.frontend.binding import cursor_key, file_named, of_kinds, outside_system, top_level
from refcheck.frontend.clangutil import K, binop, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.fieldowners import edges
from refcheck.frontend.unit import in_system_dir, in_system_header

_CALLS = frozenset((K.CALL_EXPR.value,))
_ASSIGNS = frozenset((K.BINARY_OPERATOR.value, K.VAR_DECL.value))
# What a destroyer does to an argument that gives it up.
_GIVEN = frozenset((Effect.RELEASE, Effect.CONSUME, Effect.SINK, Effect.STORE, Effect.KEEP, Effect.CLEAR,
                    Effect.REPLACE))
# Uses of a field's value that give nothing up: a test, a comparison.
_TESTS = frozenset(("==", "!=", "&&", "||"))
_READERS = frozenset((K.MEMBER_REF_EXPR, K.IF_STMT, K.WHILE_STMT, K.CONDITIONAL_OPERATOR))

# (weak unit, record USR -> destroyers' function cursors or None (a foreign destructor), field cache)
_UNIT: list = [None, None, None]


def unit_lent_field(b, target, rhs) -> bool:
    """`r->f = p`: p a parameter, r a local pointer to a record whose destroyers in this unit
    never free field f (module docstring)."""
    value, member = strip(rhs), strip(target)
    if kind_of(value) != K.DECL_REF_EXPR or kind_of(referenced(value)) != K.PARM_DECL:
        return False
    if kind_of(member) != K.MEMBER_REF_EXPR:
        return False
    base = strip(next(iter(children_of(member)), member))
    if kind_of(base) != K.DECL_REF_EXPR or kind_of(referenced(base)) != K.VAR_DECL:
        return False
    field = referenced(member)
    if field is None or kind_of(field) != K.FIELD_DECL:
        return False
    record, fields = _unit(b, member.translation_unit)
    key = (_record_usr(base.type), field.get_usr())
    if key not in fields:
        destroyers = record.get(key[0])
        fields[key] = bool(destroyers) and not any(_may_free(b, fn, key[1]) for fn in destroyers)
    return fields[key]


def _unit(b, tu) -> tuple[dict, dict]:
    ref = _UNIT[0]
    if ref is None or ref() is not tu:
        _UNIT[:] = [weakref.ref(tu), _destroyers(b, tu), {}]
    return _UNIT[1], _UNIT[2]


def _record_usr(t) -> str:
    """The USR of the record a pointer type points to ("" for anything else)."""
    t = t.get_canonical()
    if t.kind.name != "POINTER":
        return ""
    d = t.get_pointee().get_canonical().get_declaration()
    return d.get_usr() if kind_of(d) in (K.STRUCT_DECL, K.UNION_DECL) else ""


def _destroyers(b, tu) -> dict:
    """Record USR -> the functions of the unit that free one with a library deallocator; None for
    a record handed to a releasing project function the unit has no body of."""
    found: dict = {}
    tops = outside_system(top_level(tu.cursor)[0], lambda f: in_system_dir(file_named(f).name))
    for fn in tops:
        if kind_of(fn) != K.FUNCTION_DECL or not fn.is_definition():
            continue
        fresh = None
        for call in of_kinds(fn, _CALLS):
            args = list(call.get_arguments())
            decl, name = b.callee_of(call)
            effects = b.summary_of(decl, name).effects(len(args))
            for i, a in enumerate(args):
                if _effect_at(effects, args, i) is not Effect.RELEASE or not (usr := _record_usr(strip(a).type)):
                    continue
                if decl is not None and decl.get_definition() is not None:
                    continue  # a destroyer of the unit: its own body's frees are read
                if not _library(decl):
                    found[usr] = None  # its destructor is elsewhere and may free any field
                    continue
                fresh = _fresh_locals(b, fn) if fresh is None else fresh
                if referenced(strip(a)) not in fresh and found.get(usr, ()) is not None:
                    found.setdefault(usr, []).append(fn)
    return {usr: _helpers(b, usr, fns) if fns is not None else None for usr, fns in found.items()}


def _helpers(b, usr: str, fns: list) -> list | None:
    """The destroyers `fns` and the unit's functions they hand a pointer to the record to (a
    `clear` helper frees its fields), transitively; None where one goes to a project function
    whose body is elsewhere (a variadic argument, a format's `%p`, only read)."""
    out, seen = list(fns), {cursor_key(f) for f in fns}
    for fn in out:
        for call in of_kinds(fn, _CALLS):
            decl, _ = b.callee_of(call)
            args = list(call.get_arguments())
            if decl is None or _library(decl) or not any(_record_usr(strip(a).type) == usr for a in args):
                continue
            d = decl.get_definition()
            if d is None:
                declared = len([k for k in children_of(decl) if kind_of(k) == K.PARM_DECL])
                if any(_record_usr(strip(a).type) == usr for a in args[:declared]):
                    return None
            elif cursor_key(d) not in seen:
                seen.add(cursor_key(d))
                out.append(d)
    return out


def _library(decl) -> bool:
    return decl is not None and decl.location.file is not None and in_system_header(decl.location)


def _fresh_locals(b, fn) -> list:
    """The local variables of `fn` given an allocation's result (a failed constructor's record)."""
    out = []
    for c in of_kinds(fn, _ASSIGNS):
        kids = list(children_of(c))
        if kind_of(c) == K.BINARY_OPERATOR and (binop(c) != "=" or len(kids) != 2):
            continue
        var = referenced(strip(kids[0])) if kind_of(c) == K.BINARY_OPERATOR else c
        value = strip(kids[-1]) if kids else None
        if var is not None and value is not None and kind_of(value) == K.CALL_EXPR \
                and b.summary_of(*b.callee_of(value)).role in ("acquire", "reallocate"):
            out.append(var)
    return out


def _may_free(b, fn, field_usr: str) -> bool:
    """Whether `fn` reads the field in a way that may give its value up (module docstring)."""
    for parent, k in edges(fn):
        if kind_of(k) != K.MEMBER_REF_EXPR or referenced(k) is None or referenced(k).get_usr() != field_usr:
            continue
        pk = kind_of(parent)
        if pk in _READERS or (pk == K.UNARY_OPERATOR and unop(parent) == "!"):
            continue
        if pk == K.BINARY_OPERATOR:
            kids = list(children_of(parent))
            if binop(parent) in _TESTS or (binop(parent) == "=" and kids and strip(kids[0]) == k):
                continue
            return True
        if pk == K.CALL_EXPR and not _given_by(b, parent, k):
            continue
        return True
    return False


def _given_by(b, call, k) -> bool:
    args = list(call.get_arguments())
    hit = [i for i, a in enumerate(args) if strip(a) == k]
    if not hit:
        return True  # the callee itself (a function pointer member): not a value read
    decl, name = b.callee_of(call)
    if decl is None:
        return False  # a callback handed the field: it borrows, as callbacks do
    effects = b.summary_of(decl, name).effects(len(args))
    return any(_effect_at(effects, args, i) in _GIVEN for i in hit)


def _effect_at(effects: dict, args: list, i: int) -> Effect | None:
    """The effect on argument i, positions among the tracked ones (`Tracked`) read as the pointer
    arguments (`g_free`'s EVERY, a releaser's FIRST)."""
    if i in effects:
        return effects[i]
    pointers = [j for j, a in enumerate(args) if a.type.get_canonical().kind.name == "POINTER"]
    if i not in pointers:
        return None
    return effects.get(Tracked.EVERY) or (effects.get(Tracked.FIRST) if pointers[0] == i else None)
