"""Structs of a function's frame that own what is stored into them.

An inferred setter handed `&s`, a struct of this frame, stores into memory that dies with the
function: an alias, no hand-over (`Calls.call_effects`). Not where the function also hands `&s`
to a call whose record frees what its parameter points to (`Summary.frees_contents`): C's
intrusive containers kept on the stack, pyahocorasick's `List queue; list_append (&queue,
item); ... list_delete (&queue);`, whose list_delete frees every item left in it. The items
are the list's from the append on; one appended to a list the function never deletes still
leaks, as before. Found per function, by syntax, once per build.
"""

from __future__ import annotations

from dataclasses import dataclass

import clang.cindex as ci

from refcheck import ir
from refcheck.conventions.summary import Effect
from refcheck.frontend.aliases import plain_local
from refcheck.frontend.binding import arguments, kind_of, of_kinds, referenced
from refcheck.frontend.clangutil import K, strip, unop
from refcheck.frontend.clangutil import kids as children_of

_CALLS = frozenset((K.CALL_EXPR.value,))


def owning_locals(b) -> frozenset:
    """The local variables `v` whose address this function hands to a call that frees their
    contents."""
    if b.owning is None:
        b.owning = frozenset(_owning(b))
    return b.owning


def address_of_local(b, a) -> str | None:
    """The local variable v of an argument `&v`, else None."""
    inner = strip(a)
    if kind_of(inner) != K.UNARY_OPERATOR or unop(inner) != "&":
        return None
    target = strip(next(iter(children_of(inner)), None) or inner)
    return b.var(referenced(target)) if kind_of(target) == K.DECL_REF_EXPR else None


def filled_by_others(b, c) -> bool:
    """`s.f` of a local struct s whose address this function hands to a call (`&helper` as the
    user data of an async call whose callback fills `helper->sample`: GIO's `_sync` wrappers over
    a stack helper, colord's `cd_sensor_get_sample_sync` returning `helper.sample`): a pointer
    member this function did not write holds what the callee, or code it calls back, put there,
    of an ownership nothing here says: unknown, not a load of memory the function borrows."""
    base = next(iter(children_of(c)), None)
    base = strip(base) if base is not None else None
    if base is None or kind_of(base) != K.DECL_REF_EXPR:
        return False
    v = b.var(referenced(base))
    if v is None:
        return False
    if b.lent_structs is None:
        b.lent_structs = frozenset(_lent_structs(b))
    return v in b.lent_structs


def _lent_structs(b):
    # The calls alone (`of_kinds`, compiled where `native` chose it): a Python walk of every
    # cursor of the body cost more than the rest of this check, asked once per build.
    for c in of_kinds(b.fn, _CALLS):
        yield from (v for a in arguments(c) if (v := address_of_local(b, a)) is not None
                    and strip(a).type.get_pointee().get_canonical().kind == ci.TypeKind.RECORD)


def _owning(b):
    for c in of_kinds(b.fn, _CALLS):
        args = arguments(c)
        locals_ = {i: v for i, a in enumerate(args) if (v := address_of_local(b, a)) is not None}
        if not locals_:
            continue
        decl, name = b.callee_of(c)
        if not name:
            continue
        freed = b.summary_of(decl, name).frees_contents
        yield from (v for i, v in locals_.items() if i in freed)


@dataclass(frozen=True)
class Forwarded:
    """A parameter `p` (`PyObject **p`) handed on to a call that fills `*p`: the fill is a store
    through p, as `*p = v;` is, so this function's own record says it fills `*p` too
    (python-xxhash's `_parse_fastcall_args (..., buf_owner, ...)` handing its `buf_owner` to
    `_get_buffer_or_str (obj, buf, buf_owner)`). `key`: the location `*p`'s key (fact_key)."""

    var: str
    key: str


def forwarded_parameter(b, a) -> Forwarded | None:
    """The parameter p of an argument `p` whose type is a pointer to a pointer, else None."""
    inner = strip(a)
    if kind_of(inner) != K.DECL_REF_EXPR:
        return None
    ref = referenced(inner)
    t = inner.type.get_canonical()
    if ref is None or kind_of(ref) != K.PARM_DECL or t.kind != ci.TypeKind.POINTER \
            or t.get_pointee().get_canonical().kind != ci.TypeKind.POINTER:
        return None
    v = b.var(ref)
    return None if v is None else Forwarded(v, f"(* 1 {v}")


def emit_fill(b, loc, name: str, target, scalars: bool) -> None:
    """The call stores a new reference into `target`'s variable (`&v`) or through a forwarded
    parameter (`*p`)."""
    t = b.temp(f"{name}(...)")
    # A holder's value the holder keeps too (the conventions' `held_fills`: PyContextVar_Get).
    b.emit(ir.Acquire(loc, t, name, scalars=scalars, held=b.conv.matches("held_fills", name)))
    if isinstance(target, Forwarded):
        b.emit(ir.Store(loc, t, target.key, frozenset((target.var,)), through=target.var))
    else:
        b.emit(ir.Assign(loc, target, t))


def emit_led_fills(b, loc, name: str, led: dict) -> None:
    """Fills that follow a leader's (`Summary.fills_with`): `target -> (leader, scalars)`; each
    holds a new reference where its leader's local is not NULL after the call, NULL where it is."""
    for leader in dict.fromkeys(l for l, _ in led.values()):
        # The text names the local as written (its key's `#` suffix differs from run to run).
        n = b.node("branch", loc, cond=ir.NullTest(leader), text=f"{name} filled {leader.split('#', 1)[0]}")
        yes, no, join = b.node("block"), b.node("block"), b.node("block")
        b.start(n)
        b.edge(n, yes, True)
        b.edge(n, no, False)
        for block, filled in ((yes, True), (no, False)):
            b.cur = block
            for target, (lead, scalars) in led.items():
                if lead != leader:
                    continue
                if filled:
                    emit_fill(b, loc, name, target, scalars)
                else:
                    b.emit(ir.Assign(loc, target, None, null=True))
            b.edge(b.cur, join)
        b.cur = join


def detach(b, loc, name: str, args: list, effects: dict) -> None:
    """After `g_list_remove_link (list, l)` (Effect.DETACH): l, a local, holds the unlinked node as
    a fresh list of its own (its old value, maybe the head the reallocation gave up, is not freed)."""
    for i, e in effects.items():
        v = plain_local(b, args[i]) if e is Effect.DETACH and isinstance(i, int) and i < len(args) else None
        if v is not None:
            t = b.temp(f"{name}(unlinked)")
            b.emit(ir.Acquire(loc, t, name))
            b.emit(ir.Assign(loc, v, t))
