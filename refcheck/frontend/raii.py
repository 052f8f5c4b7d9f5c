"""C++ RAII holders of references (issue 31: pyodbc's `Object`, greenlet's `OwnedObject`,
kiwisolver's `cppy::ptr`, PyTorch's THPObjectPtr): the lowering of holder locals.

A local of a class whose destructor releases a pointer member (`~Object() { Py_XDECREF(p); }`)
holds that reference: C++ runs the destructor at every exit of the local's scope, in reverse
declaration order, as C runs a cleanup attribute's function (frontend.cleanups). Such a local is
lowered as a variable holding the member's value, declared in its scope like a cleanup variable;
each member call on it by the effect frontend.raiimembers reads from the member's body. A
member that reads as nothing known keeps today's lowering of a call.
"""

from __future__ import annotations

import clang.cindex as ci

from refcheck import ir
from refcheck.frontend.clangutil import K, constant, is_expression, kind_of, location, referenced, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import NULL
from refcheck.frontend.raiimembers import (Act, Effect, Holder, call_under, construction, effect_of, elided,
                                           factory_effect, holders_of, holders_of_type, assigns_counted)

def constructed(b, decl, init):
    """(the holder, the constructor call, its effect) of a holder local's initializer, or None."""
    holders = holders_of(b, decl)
    if not holders:
        return None
    call = init
    if call is None:
        return None
    call = elided(call_under(call))
    if call is None:
        return None
    ctor = referenced(call)
    if kind_of(call) != K.CALL_EXPR or ctor is None or kind_of(ctor) not in (K.CONSTRUCTOR, K.CXX_METHOD):
        return None
    for holder in holders:  # the member this constructor stores into (a stream wrapper's stream)
        if kind_of(ctor) == K.CXX_METHOD:  # `OwnedObject o = OwnedObject::consuming (x);`
            effect = factory_effect(b, holder, ctor) if ctor.is_static_method() else None
        else:
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
    loc = location(c)
    args = list(c.get_arguments())
    if kind_of(decl) == K.CXX_METHOD and decl.spelling.startswith("operator") and args and \
            kind_of(strip(args[0])) == K.DECL_REF_EXPR and b.var(referenced(strip(args[0]))) == v:
        args = args[1:]  # an operator call lists its object first
    if effect is None:
        effect, args = _assigned_factory(b, b.holders[v], decl, args)
    if effect is None:
        return False
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


def _assigned_factory(b, holder: Holder, decl, args: list) -> tuple:
    """`o = OwnedObject::consuming (x);`: the copy (or move) assignment of a factory's temporary
    holder is a reset to x (the copy retains, the temporary's destructor releases): (the RESET,
    the factory's arguments), else (None, args)."""
    if kind_of(decl) != K.CXX_METHOD or len(args) != 1 or not (
            decl.is_copy_assignment_operator_method() or decl.is_move_assignment_operator_method()):
        return None, args
    if not assigns_counted(b, holder, decl):  # a defaulted copy: two owners of one reference
        return None, args
    made = elided(call_under(args[0]))
    factory = referenced(made) if made is not None else None
    if factory is None or kind_of(factory) != K.CXX_METHOD or not factory.is_static_method():
        return None, args
    effect = factory_effect(b, holder, factory)
    if effect is None or effect.act is not Act.TAKE:
        return None, args
    return Effect(Act.RESET, effect.arg), list(made.get_arguments())


def unelided(returned):
    """`return T (x);` under C++11's copy of the temporary: the construction, else `returned`."""
    if returned is None or kind_of(returned) != K.CALL_EXPR:
        return returned
    made = elided(returned)
    return construction(made) if made is not None and made is not returned else returned


def factory_returned(b, fn, returned) -> list | None:
    """`return OwnedObject::consuming (x);` from a function returning that holder: [x], whose
    reference the factory's holder takes and the caller receives; None for any other return."""
    if fn is None or returned is None or kind_of(returned) != K.CALL_EXPR or kind_of(fn) == K.LAMBDA_EXPR:
        return None
    returned = elided(returned)
    factory = referenced(returned)
    if factory is None or kind_of(factory) != K.CXX_METHOD or not factory.is_static_method():
        return None
    # In a template's pattern a call given a dependent argument (greenlet's `consuming (Require
    # (PyObject_GetAttrString (this->p, name)))`) has a dependent type: the factory's says it.
    made = factory.result_type if returned.type.kind == ci.TypeKind.DEPENDENT else returned.type
    if fn.result_type.get_canonical().spelling != made.get_canonical().spelling:
        return None
    args = list(returned.get_arguments())
    if len(args) != 1:  # lower_constructed lowers the arguments given it: the one, here
        return None
    for holder in holders_of_type(b, made):
        effect = factory_effect(b, holder, factory)
        if effect is not None and effect.act is Act.TAKE and effect.arg is not None and effect.arg < len(args):
            return [args[effect.arg]]
    return None
