"""Calls that move a value between the caller's variables: g_set_object's replace, realloc's
reallocation, g_steal_pointer's steal, and the fills and views a call writes through `&local`
(CallLowering's mixin)."""

from __future__ import annotations

from refcheck import ir
from refcheck.findings import Location
from refcheck.conventions.summary import FILL_EFFECTS, Effect, When
from refcheck.frontend.argtypes import fills_scalars, is_function_pointer, void_pointer
from refcheck.frontend.callparts import replaced_local
from refcheck.frontend.clangutil import K, expr_text, has_pointer_type, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import NULL
from refcheck.frontend.owning import emit_fill, emit_led_fills, forwarded_parameter
from refcheck.frontend.steals import parse_positions


class Moves:
    """Lowers the calls whose result is an argument's value moved, replaced or reallocated."""

    def replace(self, loc, name: str, v: str, new) -> None:
        """`g_set_object (&v, new)`: ref new, `v = new`, unref v's old value (in that order, as
        the callee does: the same object in both is a retain and a release, no change)."""
        old = self.b.temp(f"{name}(old)")
        self.b.emit(ir.Assign(loc, old, v))
        if new not in (None, NULL):
            self.b.emit(ir.Retain(loc, new, name))
        self.b.emit(ir.Assign(loc, v, new if new != NULL else None, null=new == NULL))
        self.b.emit(ir.Release(loc, (old,), name))

    def renew(self, loc, name: str, targets: list) -> None:
        """An in-out `&v` (or a forwarded `p`) the callee takes over before it stores a new
        reference there (its fill, `Effect.RENEW`): v's old value (`*p`'s) is consumed, freed or
        handed back as the result. A forwarded `*p` given up so is the caller's own in-out value
        given up: this function renews it too (analysis.summarize)."""
        for v in targets:
            old = self.b.temp(f"{name}(old)")
            if isinstance(v, str):
                self.b.emit(ir.Assign(loc, old, v))
            else:
                self.b.emit(ir.Load(loc, old, f"*{v.var.split('#', 1)[0]}", frozenset((v.var,)), v.key,
                                    through=v.var))
            self.b.emit(ir.Release(loc, (old,), name, consume=True))

    def reallocation(self, loc, name, summary, old):
        """realloc(p, n): a fresh owned block in place of p (`old`, the value of the first pointer
        argument past handles: none where that is NULL, `g_list_append (NULL, x)`, whatever follows
        it); one that may fail splits at once into success and failure (NULL, the old block still
        ours)."""
        t = self.b.temp(f"{name}(...)")
        self.b.emit(ir.Realloc(loc, t, old, name, summary.may_fail))
        if summary.may_fail:
            n = self.b.node("branch", loc, cond=ir.NullTest(t), text=f"{name} succeeded")
            yes, no, join = self.b.node("block"), self.b.node("block"), self.b.node("block")
            self.b.start(n)
            self.b.edge(n, yes, True)
            self.b.edge(n, no, False)
            self.b.edge(yes, join)
            self.b.edge(no, join)
            self.b.cur = join
        return t

    def steal(self, loc: Location, name: str, args) -> str | None:
        """`g_steal_pointer(&x)`: the result takes x's value over and x becomes NULL, so x's
        cleanup (frontend.cleanups) releases nothing. None when this is no such call."""
        if len(args) != 1 or not self.b.conv.matches("steal", name):
            return None
        inner = strip(args[0])
        if kind_of(inner) != K.UNARY_OPERATOR or unop(inner) != "&":
            return None
        target = strip(next(iter(children_of(inner)), inner))
        v = self.b.var(referenced(target)) if kind_of(target) == K.DECL_REF_EXPR else None
        if v is None:
            if (kind_of(target) not in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR) or not has_pointer_type(target)
                    or is_function_pointer(target.type)):  # a notify taken out: code, no owner
                return None
            # `g_steal_pointer(&priv->root)`: the reference the object held is now this function's.
            self.value(target)
            t = self.b.temp(f"{name}(&{expr_text(target)})")
            if not closure_data(target):
                self.b.emit(ir.Acquire(loc, t, name))
            return t
        t = self.b.temp(f"{name}(&{self.b.names.get(v, v)})")
        self.b.emit(ir.Assign(loc, t, v))
        self.b.emit(ir.Assign(loc, v, None, null=True))
        return t

    def lend(self, loc, name: str, lent: dict) -> None:
        """Each lent local (`&local` a borrowed view is written into) gets the call's view."""
        for v in lent.values():
            t = self.b.temp(f"{name}(...)")
            self.b.emit(ir.Load(loc, t, f"{name}(...)", frozenset(), "", call=name))
            self.b.emit(ir.Assign(loc, v, t))

    def outputs(self, name: str, args: list, effects: dict, summary) -> tuple:
        """The locals the call fills through `&local`: (filled, conditional effects, fills, lent,
        replaced), as `call` reads them."""
        # `*out` of these receives a fresh owned reference: `&local` is that local's new value.
        # A parameter `p` handed on there is filled too: a store through p (`owning.Forwarded`).
        filled = {i: v for i, a in enumerate(args)
                  if effects.get(i) in (Effect.ACQUIRE_OUT, Effect.RENEW) and (v := self.out_target(a)) is not None}
        conditional = summary.conditional_effects(len(args))  # on one result only: split below
        # `*out` of these receives a new reference on one result only, NULL on the others (or,
        # `fills_kept`, maybe NULL there and left as it was on the others).
        kept = summary.kept_fills(len(args))
        fills = {v: (w, fills_scalars(args[i]), i in kept) for i, (e, w) in conditional.items()
                 if e in FILL_EFFECTS and (v := self.out_target(args[i])) is not None}
        # `&buf` of a PyArg_ParseTuple `es`/`et` unit receives a PyMem block on success, to be
        # PyMem_Free'd; left as it was on failure.
        borrowed, allocated = parse_positions(self.b, name, args)
        fills.update({v: (When.NONZERO, True, True) for i in allocated if (v := self.out_target(args[i])) is not None})
        # `&v` a PyArg_ParseTuple `O` unit fills: v holds a borrowed object after the call.
        lent = {i: v for i in borrowed if (v := self.address_of_local(args[i])) is not None}
        # `g_set_object (&x, y)` on a local x: x gives its old reference up and owns y retained.
        return filled, conditional, fills, lent, replaced_local(self.b, args, effects)

    def fill(self, loc, name: str, args: list, filled: dict, after: tuple = ()) -> None:
        """After a call that stores a fresh owned reference through `&v` (or a forwarded `p`):
        v (`*p`) holds it; one that `after` ties to a leader's local, only where that is not NULL."""
        led = {i: j for i, j in after if i in filled and isinstance(filled.get(j), str)}
        for i, v in filled.items():
            if i not in led:
                emit_fill(self.b, loc, name, v, fills_scalars(args[i]))
        if led:
            emit_led_fills(self.b, loc, name, {filled[i]: (filled[j], fills_scalars(args[i])) for i, j in led.items()})

    def out_target(self, a):
        """What a call's fill of argument `a` writes: the local v of `&v`, a forwarded parameter."""
        v = self.address_of_local(a)
        return v if v is not None else forwarded_parameter(self.b, a)



def closure_data(member) -> bool:
    """A `gpointer` member of a struct that also holds a function pointer: the data of that
    callback or destroy notify (libdex's `async_result->user_data` beside its `callback`, a
    block's `callback_data` beside `callback_data_destroy`). Whose it is is that protocol's (a
    GAsyncReadyCallback's data stays its caller's; a notify frees its data where it is set), so
    the value stolen out of it is no reference of the stealer's: not tracked. A typed member, or
    a `void *` buffer of a struct holding no function, is one."""
    if not void_pointer(member.type):
        return False
    field = referenced(member)
    record = field.semantic_parent if field is not None and kind_of(field) == K.FIELD_DECL else None
    return record is not None and any(kind_of(f) == K.FIELD_DECL and is_function_pointer(f.type)
                                      for f in children_of(record))
