"""What the members of a C++ RAII holder class do to the reference it holds, read from their
bodies (issue 31; the lowering of holder locals is frontend.raii's).

A class holds each pointer member its destructor releases, directly, through a local copy
(`temp = m_ob; m_ob = 0; Py_XDECREF (temp)`, Py_CLEAR) or through a member of its own
(`free ()`). The class's members are read from its definition and its bases'; an implicit
instantiation of a class template lists no members, so those are read from the template, and
the bodies of the members a call names are the instantiated ones (greenlet's `OwnedObject`).
Each constructor, member and static factory is read into an Effect:
- a constructor storing a parameter takes it, one storing nothing or NULL starts empty, one that
  also retains the stored value copies (the caller keeps its own); `flag ? retain (q) : q` takes
  or copies by its flag argument (cppy::ptr's `incref`); a base class's constructor in the
  initializer list stores what it stores;
- a member releasing the held value and then storing a parameter resets (`operator=`, `Attach`);
- one returning the held value after storing NULL hands it out (`Detach`, `release ()`);
- one returning the held value (or its test against NULL), storing nothing, reads it;
- a static member returning a holder constructed from its parameter is that construction.
Anything else reads as None: the caller keeps the plain lowering of the call.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import clang.cindex as ci

from refcheck.frontend.binding import cursor_key, definition
from refcheck.frontend.clangutil import (K, binop, constant, has_pointer_type, is_expression, kind_of,
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
    field: tuple  # the held member's identity (_field_id)
    release: str  # the function the destructor releases it with


@dataclass(frozen=True)
class Effect:
    act: Act
    arg: int | None = None  # the parameter stored (TAKE, COPY, RESET)
    flag: int | None = None  # TAKE: the parameter whose truth makes it a COPY (cppy::ptr's `incref`)


def _body(decl):
    d = definition(decl)
    if d is None:
        return None
    return next((k for k in children_of(d) if kind_of(k) == K.COMPOUND_STMT), None), d


def _pattern(cls):
    """The class template an implicit instantiation comes from (its members are the pattern's:
    libclang lists no children of an implicit instantiation), else None."""
    return ci.conf.lib.clang_getSpecializedCursorTemplate(cls) if cls is not None else None


def _field_id(f) -> tuple:
    """A member's identity, the same for a class template's pattern member and the member of
    each of its instantiations (`PyObjectPointer<T>::p` read in `OwnedObject`'s bodies)."""
    parent = f.semantic_parent
    owner = _pattern(parent) or parent
    return (cursor_key(owner) if owner is not None else None, f.spelling)


def _is_field(e, field: tuple) -> bool:
    """`e` reads the held member of the object itself (`p`, `this->p`), not another's (`o.p`).
    In a template's pattern `this->p` of a dependent base names no declaration: its name is read."""
    e = strip(e) if e is not None else None
    if e is None or kind_of(e) != K.MEMBER_REF_EXPR:
        return False
    ref = referenced(e)
    base = [strip(k) for k in children_of(e)]
    if base and kind_of(base[0]) != K.CXX_THIS_EXPR:
        return False
    if ref is None:
        tokens = list(e.get_tokens())
        return bool(base) and bool(tokens) and tokens[-1].spelling == field[1]
    return kind_of(ref) == K.FIELD_DECL and _field_id(ref) == field


def _role(b, call) -> tuple[str | None, str]:
    decl, name = b.callee_of(call)
    return b.summary_of(decl, name).role, name


def holders_of(b, decl) -> tuple[Holder, ...]:
    """The members a local `decl` of class type holds, each a holder (none: no holder)."""
    return holders_of_type(b, decl.type)


def holders_of_type(b, t) -> tuple[Holder, ...]:
    """The members a value of type `t` holds (holders_of)."""
    cls = t.get_canonical().get_declaration()
    if kind_of(cls) not in (K.CLASS_DECL, K.STRUCT_DECL):
        return ()
    cache = b.raii_cache
    key = ("class", cursor_key(cls))
    if key not in cache:
        cache[key] = _holders(b, definition(cls) or cls)
    return cache[key]


def _chain(cls, depth: int = 0) -> list:
    """The class and its bases, the most derived first, each read from its definition or, for an
    instantiation of a class template, from the template (greenlet's `NewReference` ->
    `OwnedReference<PyObject, NoOpChecker>` -> `PyObjectPointer<T, TC>`)."""
    if cls is None or depth > 4:
        return []
    cls = definition(cls) or cls
    if not list(children_of(cls)):
        pattern = _pattern(cls)
        cls = (definition(pattern) or pattern) if pattern is not None else cls
    found = [cls]
    for base in children_of(cls):
        if kind_of(base) == K.CXX_BASE_SPECIFIER:
            decl = base.type.get_canonical().get_declaration()
            if kind_of(decl) not in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE):
                decl = referenced(base)  # a dependent base (`PyObjectPointer<T, TC>`): its template
            found += _chain(decl, depth + 1)
    return found


def _holders(b, cls) -> tuple[Holder, ...]:
    chain = _chain(cls)
    fields = {_field_id(f): f for c in chain for f in children_of(c)
              if kind_of(f) == K.FIELD_DECL and has_pointer_type(f)}
    dtor = next((m for c in chain for m in children_of(c) if kind_of(m) == K.DESTRUCTOR), None)
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


def _copies(body, field: tuple) -> set:
    """Locals initialized from the held member (`PyObject *temp = m_ob;`, Py_CLEAR's `_py_tmp`)."""
    found = set()
    for c in body.walk_preorder():
        if kind_of(c) == K.VAR_DECL:
            init = [x for x in children_of(c) if is_expression(x)]
            if init and _is_field(init[-1], field):
                found.add(cursor_key(c))
    return found


def _is_held(e, field: tuple, copies: set) -> bool:
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
                    and _field_id(referenced(k)) == holder.field and i + 1 < len(kids):
                self.store(kids[i + 1])
            elif kind_of(defn) == K.CONSTRUCTOR and kind_of(k) == K.CALL_EXPR:
                self.base_init(k)
        if body is not None:
            self.walk(body)

    def base_init(self, call) -> None:
        """A base class's constructor in the initializer list (`: OwnedObject (it)`): what it
        stores, as this constructor's own parameters."""
        ctor = referenced(call)
        if ctor is None or kind_of(ctor) != K.CONSTRUCTOR:
            return
        effect = effect_of(self.b, self.holder, ctor)
        args = list(call.get_arguments())
        if effect is None or effect.flag is not None:
            self.other = True
        elif effect.act is Act.EMPTY:
            self.stored.append(NULL)
        elif effect.arg is not None and effect.arg < len(args):
            i = _param_index(args[effect.arg], self.params)
            self.stored.append(i if i is not None else (NULL if _is_null(args[effect.arg]) else "other"))
            self.retained |= effect.act is Act.COPY

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
        elif not _unused_arguments(c):
            self.other = True  # handed to a call: what it does is not read here

    def returns(self, c) -> None:
        e = next((x for x in children_of(c) if is_expression(x)), None)
        if e is None:
            return
        s = strip(e)
        if _is_held(s, self.holder.field, self.copies):
            self.returned.append("field")
        elif kind_of(s) == K.BINARY_OPERATOR and binop(s) in ("!=", "==") and any(
                _is_field(x, self.holder.field) for x in children_of(s)):
            self.returned.append("test")
        elif kind_of(s) == K.UNARY_OPERATOR and any(_is_field(x, self.holder.field) for x in children_of(s)):
            self.returned.append("test")
        else:
            self.returned.append("other")


def _unused_arguments(call) -> bool:
    """`call`'s callee has a body that uses none of its parameters (greenlet's `TC (p)` with
    `NoOpChecker`): the held value handed to it is only looked at."""
    callee = referenced(call)
    kids = list(children_of(call))
    if callee is None and kids:  # `TC (p)`: a function given as a template argument, `&NoOpChecker`
        callee = next((referenced(c) for c in kids[0].walk_preorder() if kind_of(c) == K.DECL_REF_EXPR
                       and referenced(c) is not None and kind_of(referenced(c)) == K.FUNCTION_DECL), None)
    if callee is None or kind_of(callee) not in (K.FUNCTION_DECL, K.CXX_METHOD):
        return False
    got = _body(callee)
    if got is None or got[0] is None:
        return False
    params = {cursor_key(p) for p in children_of(got[1]) if kind_of(p) == K.PARM_DECL}
    return not any(kind_of(c) == K.DECL_REF_EXPR and referenced(c) is not None
                   and cursor_key(referenced(c)) in params for c in got[0].walk_preorder())


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


def factory_effect(b, holder: Holder, fn) -> Effect | None:
    """A static member returning a holder it constructs from its parameter (greenlet's
    `consuming (p) { return OwnedReference<T, TC> (p); }`): that constructor's effect, as the
    factory's own parameters; None for any other body."""
    key = ("factory", holder.field, cursor_key(fn))
    if key not in b.raii_cache:
        b.raii_cache[key] = None  # a recursive factory is not followed
        b.raii_cache[key] = _factory(b, holder, fn)
    return b.raii_cache[key]


def _factory(b, holder: Holder, fn) -> Effect | None:
    got = _body(fn)
    if got is None or got[0] is None:
        return None
    body, defn = got
    params = [p for p in children_of(defn) if kind_of(p) == K.PARM_DECL]
    stmts = list(children_of(body))
    if len(stmts) != 1 or kind_of(stmts[0]) != K.RETURN_STMT:
        return None
    call = next((x for x in children_of(stmts[0]) if is_expression(x)), None)
    for _ in range(4):  # through the conversions and the functional cast around the construction
        call = strip(call) if call is not None else None
        if call is None or kind_of(call) == K.CALL_EXPR:
            break
        inner = [x for x in children_of(call) if is_expression(x)]
        call = inner[0] if len(inner) == 1 else None
    call = elided(call) if call is not None and kind_of(call) == K.CALL_EXPR else None
    call = construction(call)
    ctor = referenced(call) if call is not None else None
    if ctor is None or kind_of(ctor) != K.CONSTRUCTOR:
        return None
    effect = effect_of(b, holder, ctor)
    if effect is None or effect.flag is not None:
        return None
    if effect.act is Act.EMPTY:
        return effect
    args = list(call.get_arguments())
    i = _param_index(args[effect.arg], params) if effect.arg is not None and effect.arg < len(args) else None
    return Effect(effect.act, i) if i is not None else None


def call_under(e):
    """The call under implicit conversions (`Object o = x;`: the converting constructor), or None."""
    for _ in range(5):
        e = strip(e)
        if kind_of(e) == K.CALL_EXPR:
            return e
        kids = list(children_of(e))
        if len(kids) != 1:
            return None
        e = kids[0]
    return None


def construction(e):
    """`T (x)`, a functional cast: the constructor call under it; any other call: itself."""
    s = strip(e) if e is not None else None
    if s is not None and kind_of(s) == K.CXX_FUNCTIONAL_CAST_EXPR:
        inner = [x for x in children_of(s) if is_expression(x)]
        return call_under(inner[0]) if len(inner) == 1 else None
    return s


def elided(call):
    """Through the copy or move of a temporary (C++11's `OwnedObject o = OwnedObject::consuming
    (x);` and `return T::consuming (x);` copy the factory's result): the call making it."""
    for _ in range(3):
        ctor = referenced(call) if call is not None else None
        # An elidable copy names no constructor in libclang; a named one is a copy or a move.
        if call is None or (ctor is not None and (kind_of(ctor) != K.CONSTRUCTOR or not (
                ctor.is_copy_constructor() or ctor.is_move_constructor()))):
            return call
        args = list(call.get_arguments())
        inner = call_under(args[0]) if len(args) == 1 else None
        if inner is None or inner.type.get_canonical().get_declaration() != call.type.get_canonical().get_declaration():
            return call
        call = inner
    return call


def assigns_counted(b, holder: Holder, decl) -> bool:
    """The assignment's own body releases the held value and retains the one it copies
    (`Py_XINCREF (other.p); tmp = this->p; this->p = other.p; Py_XDECREF (tmp);`)."""
    key = ("assigns", holder.field, cursor_key(decl))
    if key not in b.raii_cache:
        got = _body(decl)
        ok = got is not None and got[0] is not None
        if ok:
            r = _Reading(b, holder, got[1], got[0])
            params = {cursor_key(p) for p in r.params}
            ok = r.released and any(_role(b, c)[0] == "retain" and _of_parameter(c, params, holder.field)
                                    for c in got[0].walk_preorder() if kind_of(c) == K.CALL_EXPR)
        b.raii_cache[key] = ok
    return b.raii_cache[key]


def _of_parameter(call, params: set, field: tuple) -> bool:
    """The call's first argument is the parameter's member (`other.p`) or the member just stored."""
    args = list(call.get_arguments())
    e = strip(args[0]) if args else None
    if e is None or kind_of(e) != K.MEMBER_REF_EXPR:
        return False
    if _is_field(e, field):
        return True
    base = [strip(k) for k in children_of(e)]
    return bool(base) and kind_of(base[0]) == K.DECL_REF_EXPR and referenced(base[0]) is not None \
        and cursor_key(referenced(base[0])) in params
