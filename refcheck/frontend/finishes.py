"""An async result its `_finish` releases: the `_async` function that made it only lends it (issue 32).

GIO's convention leaves the GAsyncResult with its maker: `g_simple_async_result_complete_in_idle
(simple)` takes a reference of its own for the callback, and the `_async` function drops the one
`g_simple_async_result_new` gave it (or hands it to a callback that does). Some libraries write
the other convention: their `foo_finish (self, GAsyncResult *result, GError **error)` ends with
`g_object_unref (simple)` on the result it was given (gom's every `_finish`: "gom's *_finish
unrefs the result it is given"). There the `_async` function's reference is the finish's to
drop, and a release of it in the `_async` body is one too many (gom's `gom_adapter_close_async`
completes in idle and unrefs; its finish unrefs again).

So, where the unit defines `<name>_finish` with a GAsyncResult parameter that its body hands to
a releaser (directly, cast, or through a local initialized from it), a GSimpleAsyncResult or GTask
made in `<name>_async` is lowered as a borrowed result (`calls.call`'s "owner" role): no RC001 at
its end, RC010 where the body releases it. Only where the body completes it or hands it to a
call beside a callback somewhere: one nothing completes never reaches the finish, and leaks. A finish that only reads its result (GIO's own) says
nothing, and the acquisition stays the `_async` function's to release or hand on.
"""

from __future__ import annotations

import re

import clang.cindex as ci

from refcheck.frontend.binding import cursor_key, of_kinds, referenced
from refcheck.frontend.clangutil import K, binop, kind_of, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.perunit import PerUnit, own_definitions

_RESULT = "struct _GAsyncResult *"
# The records an async function makes as the result its finish is given.
_MADE = frozenset(("struct _GSimpleAsyncResult", "struct _GTask"))
_KINDS = frozenset((K.CALL_EXPR.value, K.VAR_DECL.value, K.BINARY_OPERATOR.value))
_HOLDERS = frozenset((K.VAR_DECL.value, K.BINARY_OPERATOR.value))
_CALLS = frozenset((K.CALL_EXPR.value,))
# The calls that complete an async result: its callback (and so its finish) runs.
_COMPLETES = re.compile(r"^(?:g_simple_async_result_complete|g_task_return_)")
# The last unit read (a weak reference) and the names of its finishes that release their result.
_UNIT: PerUnit[frozenset] = PerUnit()


def finish_owned(b, c) -> bool:
    """Whether call `c`, an acquisition in the function being built, makes the async result
    that function's own `_finish` releases (module docstring)."""
    name = b.fn.spelling or ""
    if not name.endswith("_async") or not _makes_result(c):
        return False
    tu = b.fn.translation_unit
    if name[:-len("_async")] + "_finish" not in _UNIT.of(tu, lambda: _releasing(b, tu)):
        return False
    return _passed_on(b.fn, c)


def _passed_on(fn, c) -> bool:
    """Whether the local `c`'s result is put in is completed (`g_simple_async_result_complete*`,
    `g_task_return_*`) or handed to a call beside a function (a callback's data) somewhere in
    fn's body: a result nothing completes never reaches its finish (libdex's test `discard_async`
    makes a GTask and leaves it: its leak is still RC001)."""
    offset = c.extent.start.offset
    held = set()
    for x in of_kinds(fn, _HOLDERS):
        kids = children_of(x)
        if kind_of(x) == K.VAR_DECL:
            if kids and strip(kids[-1]).extent.start.offset == offset:
                held.add(cursor_key(x))
        elif binop(x) == "=" and len(kids) == 2 and strip(kids[1]).extent.start.offset == offset:
            if kind_of(v := strip(kids[0])) == K.DECL_REF_EXPR and (d := referenced(v)) is not None:
                held.add(cursor_key(d))
    if not held:
        return False
    for call in of_kinds(fn, _CALLS):
        args = list(call.get_arguments())
        if not any(_names(a, held) for a in args):
            continue
        if _COMPLETES.match(call.spelling or "") or any(_function(a) for a in args):
            return True
    return False


def _function(e) -> bool:
    """`e`, casts aside, names a function (a callback)."""
    e = strip(e)
    d = referenced(e) if kind_of(e) == K.DECL_REF_EXPR else None
    return d is not None and kind_of(d) == K.FUNCTION_DECL


def _makes_result(c) -> bool:
    """The call's result points to a GSimpleAsyncResult or a GTask."""
    t = c.type.get_canonical()
    return t.kind == ci.TypeKind.POINTER and t.get_pointee().get_canonical().spelling in _MADE


def _releasing(b, tu) -> frozenset:
    """The unit's `_finish` definitions whose body hands their GAsyncResult parameter to a releaser."""
    out = set()
    for fn in own_definitions(tu):
        if not (fn.spelling or "").endswith("_finish"):
            continue
        params = {cursor_key(p) for p in fn.get_arguments() if p.type.get_canonical().spelling == _RESULT}
        if params and _releases(b, fn, params):
            out.add(fn.spelling)
    return frozenset(out)


def _releases(b, fn, params: set) -> bool:
    """Whether a releaser in fn's body is given one of `params`, or a local assigned only from one
    (`GSimpleAsyncResult *simple = (GSimpleAsyncResult *) result;`)."""
    sites = of_kinds(fn, _KINDS)
    held = set(params)
    for c in sites:  # pre-order: a local's initializer comes before its uses
        k = kind_of(c)
        if k == K.VAR_DECL:
            init = [x for x in children_of(c) if kind_of(x) not in (K.TYPE_REF, K.PARM_DECL)]
            if init and _names(init[-1], held):
                held.add(cursor_key(c))
    for c in sites:
        if kind_of(c) == K.CALL_EXPR and b.conv.matches("release", c.spelling or ""):
            if any(_names(a, held) for a in c.get_arguments()):
                return True
    return False


def _names(e, held: set) -> bool:
    """`e`, casts and parentheses aside, is a reference to one of the `held` variables."""
    e = strip(e)
    if kind_of(e) == K.CALL_EXPR and e.spelling == "g_type_check_instance_cast":  # G_SIMPLE_ASYNC_RESULT (result)
        e = strip(next(iter(e.get_arguments()), e))
    if kind_of(e) != K.DECL_REF_EXPR:
        return False
    d = referenced(e)
    return d is not None and cursor_key(d) in held
