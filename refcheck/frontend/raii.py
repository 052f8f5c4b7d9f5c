"""C++ RAII holders of references (issue 31: pyodbc's `Object`, PyTorch's THPObjectPtr).

A local of a class whose destructor releases a pointer member (`~Object() { Py_XDECREF(p); }`)
holds that reference: C++ runs the destructor at every exit of the local's scope, in reverse
declaration order, as C runs a cleanup attribute's function (frontend.cleanups). Such a local is
lowered as a variable holding the member's value, declared in its scope like a cleanup variable.

What each member does to the held pointer is read from its body, not from its name:
- a constructor storing a parameter takes it (`Object o(PyObject_Call(...))`), one storing
  nothing or NULL starts empty, one that also retains copies (the caller keeps its own);
- a member releasing the held value and then storing a parameter resets (`operator=`, `Attach`);
- one returning the held value after storing NULL hands it out (`Detach`);
- one returning the held value (or its test against NULL), storing nothing, reads it (`Get`,
  `operator PyObject*`, `IsValid`).
Any other member, and a class whose members are not all read, keeps today's lowering of a call.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import clang.cindex as ci

from refcheck import ir
from refcheck.frontend.binding import cursor_key
from refcheck.frontend.clangutil import (K, binop, constant, has_pointer_type, is_expression, kind_of, location,
                                        named_parameter, referenced, strip)
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import NULL


class Act(Enum):
    EMPTY = "empty"  # constructed holding NULL
    TAKE = "take"  # constructed holding its argument's reference
    COPY = "copy"  # constructed holding its argument, retained
    RESET = "reset"  # the old value released, the argument's reference stored
    DETACH = "detach"  # the held value handed out, NULL stored
    GET = "get"  # the held value read


@dataclass(frozen=True)
class Holder:
    field: str  # the held member's cursor key
    release: str  # the function the destructor releases it with


@dataclass(frozen=True)
class Effect:
    act: Act
    arg: int | None = None  # the parameter stored (TAKE, COPY, RESET)
    flag: int | None = None  # TAKE: the parameter whose truth makes it a COPY (cppy::ptr's `incref`)


def _body(decl):
    d = decl.get_definition() if decl is not None else None
    if d is None:
        return None
    return next((k for k in children_of(d) if kind_of(k) == K.COMPOUND_STMT), None), d


def _is_field(e, field: str) -> bool:
    """`e` reads the held member of the object itself (`p`, `this->p`), not another's (`o.p`)."""
    e = strip(e) if e is not None else None
    if e is None or kind_of(e) != K.MEMBER_REF_EXPR:
        return False
    ref = referenced(e)
    if ref is None or cursor_key(ref) != field:
        return False
    base = [strip(k) for k in children_of(e)]
    return not base or kind_of(base[0]) == K.CXX_THIS_EXPR


def _role(b, call) -> tuple[str | None, str]:
    decl, name = b.callee_of(call)
    return b.summary_of(decl, name).role, name


def holders_of(b, decl) -> tuple[Holder, ...]:
    """The members a local `decl` of class type holds, each a holder (none: no holder)."""
    t = decl.type.get_canonical()
    cls = t.get_declaration()
    if kind_of(cls) not in (K.CLASS_DECL, K.STRUCT_DECL):
        return ()
    cache = b.raii_cache
    key = ("class", cursor_key(cls))
    if key not in cache:
        cache[key] = _holders(b, cls.get_definition() or cls)
    return cache[key]


def _holders(b, cls) -> tuple[Holder, ...]:
    fields = {cursor_key(f): f for f in children_of(cls) if kind_of(f) == K.FIELD_DECL and has_pointer_type(f)}
    dtor = next((m for m in children_of(cls) if kind_of(m) == K.DESTRUCTOR), None)
    if not fields or dtor is None:
        return ()
    body = _body(dtor)
    if body is None or body[0] is None:
        return ()
    # Every member its destructor releases, itself or through a member (`free ()`): a stream
    # wrapper releases its stream and its buffers; which one a local holds is the one its
    # constructor's effect is read for (constructed).
    found = []
    for key in fields:
        name = _released_with(b, Holder(key, ""), body[0], 0)
        if name is not None:
            found.append(Holder(key, name))
    return tuple(found)


def _copies(body, field: str) -> set:
    """Locals initialized from the held member (`PyObject *temp = m_ob;`, Py_CLEAR's `_py_tmp`)."""
    found = set()
    for c in body.walk_preorder():
        if kind_of(c) == K.VAR_DECL:
            init = [x for x in children_of(c) if is_expression(x)]
            if init and _is_field(init[-1], field):
                found.add(cursor_key(c))
    return found


def _is_held(e, field: str, copies: set) -> bool:
    """`e` is the held member or a local copy of it."""
    if _is_field(e, field):
        return True
    s = strip(e) if e is not None else None
    return s is not None and kind_of(s) == K.DECL_REF_EXPR and referenced(s) is not None \
        and cursor_key(referenced(s)) in copies


def _released_with(b, holder: Holder, body, depth: int) -> str | None:
    """The function `body` releases the held member with, directly, through a local copy
    (cppy::ptr's `temp = m_ob; m_ob = 0; Py_XDECREF (temp)`, Py_CLEAR) or in a member it calls."""
    copies = _copies(body, holder.field)
    for c in body.walk_preorder():
        if kind_of(c) != K.CALL_EXPR:
            continue
        args = list(c.get_arguments())
        if args and _is_held(args[0], holder.field, copies):
            role, name = _role(b, c)
            if role == "release":
                return name
        callee = referenced(c)
        if depth < 2 and callee is not None and kind_of(callee) == K.CXX_METHOD and not args:
            got = _body(callee)
            name = _released_with(b, holder, got[0], depth + 1) if got is not None and got[0] is not None else None
            if name is not None:
                return name
    return None


def effect_of(b, holder: Holder, method) -> Effect | None:
    """What `method` (a constructor or member of the holder's class) does to the held pointer."""
    key = ("member", holder.field, cursor_key(method))
    cache = b.raii_cache
    if key not in cache:
        cache[key] = _effect(b, holder, method)
    return cache[key]


def _param_index(e, params: list) -> int | None:
    ref = named_parameter(e) if e is not None else None
    keys = [cursor_key(p) for p in params]
    return keys.index(cursor_key(ref)) if ref is not None and cursor_key(ref) in keys else None


def _is_null(e) -> bool:
    e = strip(e)
    return kind_of(e) in (K.CXX_NULL_PTR_LITERAL_EXPR, K.GNU_NULL_EXPR) or constant(e) == 0


class _Reading:
    """The held pointer's stores, releases, retains and returns in one member's body."""

    def __init__(self, b, holder: Holder, defn, body):
        self.b, self.holder = b, holder
        self.params = [p for p in children_of(defn) if kind_of(p) == K.PARM_DECL]
        self.stored: list = []  # what was stored: a parameter index, NULL, or "other"
        self.released = self.retained = self.other = False
        self.returned: list = []  # "field", "test" or "other"
        self.copies: set = set()  # locals initialized from the field (`PyObject *t = p;`)
        self.flag: int | None = None  # the parameter a flagged store retains under (flagged)
        # A constructor's member initializers (`: p(q)`) come before its body.
        kids = list(children_of(defn))
        for i, k in enumerate(kids):
            if kind_of(k) == K.MEMBER_REF and referenced(k) is not None \
                    and cursor_key(referenced(k)) == holder.field and i + 1 < len(kids):
                self.store(kids[i + 1])
        if body is not None:
            self.walk(body)

    def store(self, e) -> None:
        i = _param_index(e, self.params)
        if i is None:
            i = self.flagged(e)
        self.stored.append(i if i is not None else (NULL if _is_null(e) else "other"))

    def flagged(self, e) -> int | None:
        """`flag ? retain (q) : q` of parameters (cppy::ptr's `incref ? xincref (ob) : ob`): the
        parameter q stored, retained where the flag parameter is true (self.flag)."""
        e = strip(e)
        if kind_of(e) != K.CONDITIONAL_OPERATOR:
            return None
        cond, yes, no = (list(children_of(e)) + [None, None, None])[:3]
        flag, plain = _param_index(cond, self.params), _param_index(no, self.params)
        yes = strip(yes) if yes is not None else None
        if flag is None or plain is None or yes is None or kind_of(yes) != K.CALL_EXPR:
            return None
        args = list(yes.get_arguments())
        if len(args) != 1 or _param_index(args[0], self.params) != plain or not _retains(self.b, yes):
            return None
        self.flag = flag
        return plain

    def walk(self, body) -> None:
        for c in body.walk_preorder():
            k = kind_of(c)
            if k == K.BINARY_OPERATOR and binop(c) == "=":
                lhs, rhs = list(children_of(c))[:2]
                if _is_field(lhs, self.holder.field):
                    self.store(rhs)
            elif k == K.VAR_DECL:
                init = [x for x in children_of(c) if is_expression(x)]
                if init and _is_field(init[-1], self.holder.field):
                    self.copies.add(cursor_key(c))
            elif k == K.CALL_EXPR:
                self.call(c)
            elif k == K.RETURN_STMT:
                self.returns(c)

    def call(self, c) -> None:
        args = list(c.get_arguments())
        held = any(_is_held(a, self.holder.field, self.copies) for a in args)
        if not held:
            stored = [i for i in self.stored if isinstance(i, int)]
            if args and stored and _param_index(args[0], self.params) in stored \
                    and _role(self.b, c)[0] == "retain":
                self.retained = True  # `: stream (stream) { Py_INCREF (stream); }`: the stored parameter
                return
            self.released |= _own_release(self.b, self.holder, c)
            return
        role, _ = _role(self.b, c)
        if role == "release":
            self.released = True
        elif role == "retain":
            self.retained = True
        else:
            self.other = True  # handed to a call: what it does is not read here

    def returns(self, c) -> None:
        e = next((x for x in children_of(c) if is_expression(x)), None)
        if e is None:
            return
        s = strip(e)
        if _is_field(s, self.holder.field) or (
                kind_of(s) == K.DECL_REF_EXPR and referenced(s) is not None
                and cursor_key(referenced(s)) in self.copies):
            self.returned.append("field")
        elif kind_of(s) == K.BINARY_OPERATOR and binop(s) in ("!=", "==") and any(
                _is_field(x, self.holder.field) for x in children_of(s)):
            self.returned.append("test")
        elif kind_of(s) == K.UNARY_OPERATOR and any(_is_field(x, self.holder.field) for x in children_of(s)):
            self.returned.append("test")
        else:
            self.returned.append("other")


def _retains(b, call) -> bool:
    """`call` retains its one argument and returns it: a retain, or a function whose body retains
    its parameter and returns it (cppy's `xincref`, a template the summaries have not learnt)."""
    if _role(b, call)[0] == "retain":
        return True
    callee = referenced(call)
    key = ("retains", cursor_key(callee) if callee is not None else None)
    if callee is None:
        return False
    if key not in b.raii_cache:
        got = _body(callee)
        b.raii_cache[key] = got is not None and got[0] is not None and _retains_parameter(b, *got)
    return b.raii_cache[key]


def _retains_parameter(b, body, defn) -> bool:
    params = [p for p in children_of(defn) if kind_of(p) == K.PARM_DECL]
    if len(params) != 1:
        return False
    retained = returned = False
    for c in body.walk_preorder():
        k = kind_of(c)
        if k == K.CALL_EXPR:
            args = list(c.get_arguments())
            if args and _param_index(args[0], params) == 0 and _role(b, c)[0] == "retain":
                retained = True
        elif k == K.RETURN_STMT:
            e = next((x for x in children_of(c) if is_expression(x)), None)
            if e is None or _param_index(e, params) != 0:
                return False
            returned = True
    return retained and returned


def _own_release(b, holder: Holder, c) -> bool:
    """`c` calls a member of the same object that releases the held value and stores nothing
    (THPPointer's `operator=` calls its `free ()`)."""
    callee = referenced(c)
    kids = list(children_of(c))
    if callee is None or kind_of(callee) != K.CXX_METHOD or not kids or kind_of(kids[0]) != K.MEMBER_REF_EXPR:
        return False
    base = [strip(k) for k in children_of(kids[0])]
    if base and kind_of(base[0]) != K.CXX_THIS_EXPR:
        return False
    key = ("releases", holder.field, cursor_key(callee))
    if key not in b.raii_cache:
        b.raii_cache[key] = False  # a recursive member is not followed
        got = _body(callee)
        r = _Reading(b, holder, got[1], got[0]) if got is not None and got[0] is not None else None
        b.raii_cache[key] = r is not None and r.released and not r.stored and not r.other
    return b.raii_cache[key]


def _effect(b, holder: Holder, method) -> Effect | None:
    got = _body(method)
    if got is None:
        return None
    body, defn = got
    r = _Reading(b, holder, defn, body)
    if r.other or "other" in r.stored or len(r.stored) > 1:
        return None
    stored = r.stored[0] if r.stored else None
    if kind_of(defn) == K.CONSTRUCTOR:
        if r.released or r.returned:
            return None
        if stored is None or stored == NULL:
            return None if r.retained else Effect(Act.EMPTY)
        if r.flag is not None:
            return None if r.retained else Effect(Act.TAKE, stored, r.flag)
        return Effect(Act.COPY if r.retained else Act.TAKE, stored)
    if r.retained or r.flag is not None:
        return None
    if isinstance(stored, int) and r.released:
        return Effect(Act.RESET, stored)
    if stored == NULL and not r.released and r.returned == ["field"]:
        return Effect(Act.DETACH)
    if stored is None and not r.released and r.returned and set(r.returned) <= {"field", "test"}:
        return Effect(Act.GET)
    return None


def constructed(b, decl, init):
    """(the holder, the constructor call, its effect) of a holder local's initializer, or None."""
    holders = holders_of(b, decl)
    if not holders:
        return None
    call = init
    if call is None:
        return None
    for _ in range(4):  # `Object o = x;`: the converting constructor under implicit conversions
        call = strip(call)
        if kind_of(call) == K.CALL_EXPR:
            break
        kids = list(children_of(call))
        if len(kids) != 1:
            return None
        call = kids[0]
    ctor = referenced(call)
    if kind_of(call) != K.CALL_EXPR or ctor is None or kind_of(ctor) != K.CONSTRUCTOR:
        return None
    for holder in holders:  # the member this constructor stores into (a stream wrapper's stream)
        effect = _flag_settled(effect_of(b, holder, ctor), call, ctor)
        if effect is not None:
            return holder, call, effect
    return None


def _flag_settled(effect: Effect | None, call, ctor) -> Effect | None:
    """A flagged TAKE as this call makes it: a COPY where its flag argument (or the parameter's
    default) is a nonzero constant, a TAKE where zero, None (a plain call) where not known."""
    if effect is None or effect.flag is None:
        return effect
    args = list(call.get_arguments())
    e = args[effect.flag] if effect.flag < len(args) else None
    value = constant(strip(e)) if e is not None else None
    if value is None:  # the argument left to its default (`bool incref = false`)
        params = [p for p in children_of(ctor) if kind_of(p) == K.PARM_DECL]
        if effect.flag < len(params) and (e is None or not list(children_of(e))):
            default = [x for x in children_of(params[effect.flag]) if is_expression(x)]
            value = constant(strip(default[-1])) if default else None
    if value is None:
        return None
    return Effect(Act.COPY if value else Act.TAKE, effect.arg)


def declare(b, d, v: str, init, loc) -> bool:
    """`T v(args);` of a holder class: v holds what its constructor stores, and its destructor's
    release runs at every exit of the scope, as a cleanup variable's does (frontend.cleanups)."""
    if init is None or d.type.get_canonical().kind != ci.TypeKind.RECORD:
        return False
    held = constructed(b, d, init)
    if held is None:
        return False
    holder, call, effect = held
    construct(b.exprs, loc, v, call, effect)
    b.full_expression_end(loc)
    b.holders[v] = holder
    b.scopes.declare(v, holder.release, shared=True)
    return True


def construct(exprs, loc, v: str, call, effect: Effect) -> None:
    """`T v(args)`: v holds the stored argument (a retained one for a copy), or NULL."""
    b = exprs.b
    args = list(call.get_arguments())
    values = [exprs.value(a) for a in args]
    held = values[effect.arg] if effect.arg is not None and effect.arg < len(values) else NULL
    if held is None or held == NULL:
        b.emit(ir.Assign(loc, v, None, null=held == NULL))
        return
    b.emit(ir.Assign(loc, v, held))
    if effect.act is Act.COPY:
        b.emit(ir.Retain(loc, v, "copy"))


def holder_object(b, call) -> str | None:
    """The holder local a member call is made on (`o.Get()`, `o = x`, `(PyObject *) o`), or None."""
    kids = list(children_of(call))
    if not kids:
        return None
    first = strip(kids[0])
    if kind_of(first) == K.MEMBER_REF_EXPR:
        inner = list(children_of(first))
        first = strip(inner[0]) if inner else None
    if first is None or kind_of(first) != K.DECL_REF_EXPR:
        return None
    ref = referenced(first)
    v = b.var(ref) if ref is not None else None
    return v if v in b.holders else None


def member_call(exprs, c, decl):
    """A member call on a holder local, lowered by its effect; False where it is not one."""
    b = exprs.b
    if not getattr(b, "holders", None) or decl is None or kind_of(decl) not in (K.CXX_METHOD, K.CONVERSION_FUNCTION):
        return False
    v = holder_object(b, c)
    if v is None:
        return False
    effect = effect_of(b, b.holders[v], decl)
    if effect is None:
        return False
    loc = location(c)
    args = list(c.get_arguments())
    if kind_of(decl) == K.CXX_METHOD and decl.spelling.startswith("operator") and args and \
            kind_of(strip(args[0])) == K.DECL_REF_EXPR and b.var(referenced(strip(args[0]))) == v:
        args = args[1:]  # an operator call lists its object first
    if effect.act is Act.GET:
        for a in args:
            exprs.value(a)
        return v
    if effect.act is Act.DETACH:
        t = b.temp("detached")
        b.emit(ir.Assign(loc, t, v))
        b.emit(ir.Assign(loc, v, None, null=True))
        return t
    if effect.act is Act.RESET and effect.arg is not None and effect.arg < len(args):
        values = [exprs.value(a) for a in args]
        b.emit(ir.Release(loc, (v,), b.holders[v].release))
        held = values[effect.arg]
        b.emit(ir.Assign(loc, v, held if held != NULL else None, null=held == NULL))
        return None
    return False
