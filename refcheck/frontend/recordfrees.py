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

from refcheck.conventions.summary import Effect, Source, Tracked
from refcheck.frontend.binding import cursor_key, definition, of_kinds
from refcheck.frontend.clangutil import K, binop, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.fieldowners import edges
from refcheck.frontend.perunit import PerUnit, own_definitions
from refcheck.frontend.unit import in_system_header

_CALLS = frozenset((K.CALL_EXPR.value,))
_ASSIGNS = frozenset((K.BINARY_OPERATOR.value, K.VAR_DECL.value))
_USES = frozenset((K.CALL_EXPR.value, K.UNARY_OPERATOR.value, K.BINARY_OPERATOR.value, K.VAR_DECL.value,
                   K.RETURN_STMT.value))
# What a destroyer does to an argument that gives it up.
_GIVEN = frozenset((Effect.RELEASE, Effect.CONSUME, Effect.SINK, Effect.STORE, Effect.KEEP, Effect.CLEAR,
                    Effect.REPLACE))
# Uses of a field's value that give nothing up: a test, a comparison.
_TESTS = frozenset(("==", "!=", "&&", "||"))
_READERS = frozenset((K.MEMBER_REF_EXPR, K.IF_STMT, K.WHILE_STMT, K.CONDITIONAL_OPERATOR))

# (record USR -> destroyers' function cursors or None (a foreign destructor), the fields given up
# anywhere (`_given`), (record, field) -> lent)
_UNIT: PerUnit[tuple[dict, frozenset, dict]] = PerUnit()
# (function key, parameter index) -> whether its body may give the parameter up (`_parameter_given`).
_PARAMS: dict = {}


def unit_lent_field(b, target, rhs) -> bool:
    """`r->f = p`: p a parameter, r a local pointer to a record whose destroyers in this unit
    never free field f (module docstring)."""
    value, member = strip(rhs), strip(target)
    if kind_of(value) != K.DECL_REF_EXPR or kind_of(referenced(value)) != K.PARM_DECL:
        return False
    pointee = value.type.get_canonical().get_pointee().kind.name
    if kind_of(member) != K.MEMBER_REF_EXPR or pointee in ("FUNCTIONPROTO", "FUNCTIONNOPROTO", "INVALID"):
        return False  # not an object pointer: a function pointer is code, not an object with an owner
    base = strip(next(iter(children_of(member)), member))
    if kind_of(base) != K.DECL_REF_EXPR or kind_of(referenced(base)) != K.VAR_DECL:
        return False
    field = referenced(member)
    if field is None or kind_of(field) != K.FIELD_DECL or _assigned(b.fn, referenced(value)):
        return False  # a parameter given another value holds an object of this function's own
    record, given, fields = _unit(b, member.translation_unit)
    key = (_record_usr(base.type), field.get_usr())
    if key not in fields:
        destroyers = record.get(key[0])
        fields[key] = bool(destroyers) and key[1] not in given \
            and not any(_may_free(b, fn, key[1]) for fn in destroyers)
    return fields[key]


def _assigned(fn, param) -> bool:
    """Whether the body of `fn` assigns the parameter `param`."""
    for c in of_kinds(fn, _ASSIGNS):
        kids = children_of(c)
        if kind_of(c) == K.BINARY_OPERATOR and binop(c) == "=" and len(kids) == 2 \
                and kind_of(strip(kids[0])) == K.DECL_REF_EXPR and referenced(strip(kids[0])) == param:
            return True
    return False


def _unit(b, tu) -> tuple[dict, frozenset, dict]:
    def make():
        tops = own_definitions(tu)
        _PARAMS.clear()  # keys hold a unit's pointers
        return _destroyers(b, tops), _given(b, tops), {}
    return _UNIT.of(tu, make)


def _given(b, tops: list) -> frozenset:
    """The USRs of the fields some function of the unit may give a value of up: handed to a call
    whose record gives it up (or to a callback, untyped), its address taken (a clear, a steal),
    copied into a variable or another location, returned."""
    out = set()
    for fn in tops:
        for c in of_kinds(fn, _USES):
            k = kind_of(c)
            if k == K.CALL_EXPR:
                out.update(field_usr(a) for a in c.get_arguments() if field_usr(a) and given_by(b, c, strip(a)))
            elif k == K.UNARY_OPERATOR and unop(c) == "&" or k in (K.VAR_DECL, K.RETURN_STMT):
                out.update(field_usr(a) for a in children_of(c)[-1:])
            elif k == K.BINARY_OPERATOR and binop(c) == "=" and len(kids := children_of(c)) == 2:
                out.add(field_usr(kids[1]))
    out.discard("")
    return frozenset(out)


def field_usr(e) -> str:
    """The field USR of a member expression `e` of pointer type ("" for anything else)."""
    m = strip(e)
    if kind_of(m) != K.MEMBER_REF_EXPR or m.type.get_canonical().kind.name != "POINTER":
        return ""
    f = referenced(m)
    return f.get_usr() if f is not None and kind_of(f) == K.FIELD_DECL else ""


def _record_usr(t) -> str:
    """The USR of the record a pointer type points to ("" for anything else)."""
    t = t.get_canonical()
    if t.kind.name != "POINTER":
        return ""
    d = t.get_pointee().get_canonical().get_declaration()
    return d.get_usr() if kind_of(d) in (K.STRUCT_DECL, K.UNION_DECL) else ""


def _destroyers(b, tops: list) -> dict:
    """Record USR -> the functions of the unit that free one with a library deallocator; None for
    a record handed to a releasing project function the unit has no body of."""
    found: dict = {}
    for fn in tops:
        fresh = None
        for call in of_kinds(fn, _CALLS):
            args = list(call.get_arguments())
            decl, name = b.callee_of(call)
            effects = b.summary_of(decl, name).effects(len(args))
            for i, a in enumerate(args):
                if _effect_at(effects, args, i) is not Effect.RELEASE or not (usr := _record_usr(strip(a).type)):
                    continue
                if decl is not None and definition(decl) is not None:
                    continue  # a destroyer of the unit: its own body's frees are read
                if not _library(decl):
                    found[usr] = None  # its destructor is elsewhere and may free any field
                    continue
                fresh = _fresh_locals(b, fn) if fresh is None else fresh
                freed = referenced(strip(a))
                if (freed is None or cursor_key(freed) not in fresh) and found.get(usr, ()) is not None:
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
            d = definition(decl)
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


def _fresh_locals(b, fn) -> set:
    """The keys of the local variables of `fn` given an allocation's result (a failed
    constructor's record)."""
    out = set()
    for c in of_kinds(fn, _ASSIGNS):
        kids = list(children_of(c))
        if kind_of(c) == K.BINARY_OPERATOR and (binop(c) != "=" or len(kids) != 2):
            continue
        var = referenced(strip(kids[0])) if kind_of(c) == K.BINARY_OPERATOR else c
        value = strip(kids[-1]) if kids else None
        if var is not None and value is not None and kind_of(value) == K.CALL_EXPR \
                and b.summary_of(*b.callee_of(value)).role in ("acquire", "reallocate"):
            out.add(cursor_key(var))
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
        if pk == K.CALL_EXPR and not given_by(b, parent, k):
            continue
        return True
    return False


def given_by(b, call, k, depth: int = 0) -> bool:
    """Whether `call` may give up the value of its argument `k`."""
    args = list(call.get_arguments())
    hit = [i for i, a in enumerate(args) if strip(a) == k]
    if not hit:
        return False  # the callee itself (a function pointer member): not a value read
    decl, name = b.callee_of(call)
    if decl is None or kind_of(decl) != K.FUNCTION_DECL:
        # A callback handed the field: a typed object (GLib's source object, `cb (data->agent,
        # ...)` of a `void (*) (NiceAgent *, gpointer)`) is lent to it; what it takes as an
        # untyped pointer (user data, a GDestroyNotify's argument) is its own to dispose of.
        return any(_untyped_parameter(call, i) for i in hit)
    summary = b.summary_of(decl, name)
    d = definition(decl)
    if summary.source is Source.DEFAULT and d is not None:
        # A function of the unit not summarised yet: what its body does with the parameter.
        return any(_parameter_given(b, d, i, depth + 1) for i in hit)
    effects = summary.effects(len(args))
    return any(_effect_at(effects, args, i) in _GIVEN for i in hit)


def _untyped_parameter(call, i: int) -> bool:
    """Whether the function pointer `call` calls takes its argument i as a `void *` (or its type
    is not known: a K&R declaration, a variadic position)."""
    callee = next(iter(children_of(call)), None)
    t = strip(callee).type.get_canonical() if callee is not None else None
    t = t.get_pointee() if t is not None and t.kind.name == "POINTER" else t
    if t is None or t.kind.name != "FUNCTIONPROTO":
        return True
    params = list(t.argument_types())
    return i >= len(params) or params[i].get_canonical().get_pointee().kind.name == "VOID"


def _parameter_given(b, fn, i: int, depth: int) -> bool:
    """Whether the body of `fn` may give up its parameter i: hands it to a call that may, copies,
    stores or returns it, takes its address; past a few calls deep, assumed so."""
    params = [k for k in children_of(fn) if kind_of(k) == K.PARM_DECL]
    if i >= len(params) or depth > 3:
        variadic = fn.type.kind.name == "FUNCTIONPROTO" and fn.type.is_function_variadic()
        return i < len(params) or not variadic
    key = (cursor_key(fn), i)
    if key not in _PARAMS:
        _PARAMS[key] = True  # a recursive call assumes the worst
        _PARAMS[key] = any(_gives(b, c, params[i], depth) for c in of_kinds(fn, _USES))
    return _PARAMS[key]


def _gives(b, c, param, depth: int) -> bool:
    """Whether use site `c` may give up the parameter `param`."""
    def named(e):
        x = strip(e)
        return kind_of(x) == K.DECL_REF_EXPR and referenced(x) == param
    k = kind_of(c)
    if k == K.CALL_EXPR:
        return any(named(a) and given_by(b, c, strip(a), depth) for a in c.get_arguments())
    if k == K.UNARY_OPERATOR:
        return unop(c) == "&" and any(named(a) for a in children_of(c))
    if k in (K.VAR_DECL, K.RETURN_STMT):
        return any(named(a) for a in children_of(c)[-1:])
    kids = children_of(c)
    return binop(c) == "=" and len(kids) == 2 and named(kids[1])


def _effect_at(effects: dict, args: list, i: int) -> Effect | None:
    """The effect on argument i, positions among the tracked ones (`Tracked`) read as the pointer
    arguments (`g_free`'s EVERY, a releaser's FIRST)."""
    if i in effects:
        return effects[i]
    pointers = [j for j, a in enumerate(args) if a.type.get_canonical().kind.name == "POINTER"]
    if i not in pointers:
        return None
    return effects.get(Tracked.EVERY) or (effects.get(Tracked.FIRST) if pointers[0] == i else None)
