"""Data handed to a callback that hands it straight back to the function being built (issue 32).

A retry: libqmi's `create_iostream_with_socket (task)` registers `g_source_set_callback (source,
(GSourceFunc) wait_for_proxy_cb, task, NULL)`, and `wait_for_proxy_cb (task)` calls
`create_iostream_with_socket (task)` again, which returns the task or unrefs it on its other
paths. The callback's record is not known while the function is built (it calls the function:
the function is built first), so its body is read here: the data goes round to the function's
own parameter, whose fate its other paths decide, as `UserData.to_itself` reads a callback that
registers itself."""

from __future__ import annotations

from refcheck.conventions.summary import Effect, Source
from refcheck.frontend import calleefacts
from refcheck.frontend.argtypes import (defined_here, function_pointer_positions, named_function,
                                        parameter_types)
from refcheck.frontend.binding import arguments, cursor_key, of_kinds
from refcheck.frontend.clangutil import K, has_pointer_type, kind_of, named_parameter, referenced, strip
from refcheck.frontend.conditions import is_null_constant
from refcheck.frontend.userdata import data_parameter

_CALLS = frozenset((K.CALL_EXPR.value,))


def trampolined(lowering, decl, args: list, effects: dict, summary) -> set[int]:
    """Data positions whose callback hands its data parameter straight to the function being
    built, at the position of the function's own parameter the data is, where some other call
    of the function (not one passing the callback) gives that parameter up
    (`UserData.gives_up_elsewhere`): a whole hand-over,
    as to any callback freeing its data. Not where the callee's body is read (its record says
    what it does with the pair), nor past a non-NULL function pointer after the data."""
    if summary.source is Source.INFERRED or (
            decl is not None and kind_of(decl) == K.FUNCTION_DECL and defined_here(decl)):
        return set()
    fn = lowering.b.fn
    usr = calleefacts.usr(fn) if fn is not None else ""
    if not usr:
        return set()
    params = [p for p in fn.get_arguments()]
    taken = set()
    for i in range(1, len(args)):
        if effects.get(i, Effect.BORROW) is not Effect.BORROW or not has_pointer_type(args[i]):
            continue
        own = named_parameter(args[i])
        m = next((j for j, p in enumerate(params) if own is not None and p == own), None)
        cb = named_function(args[i - 1])
        if m is None or cb is None or cb.get_usr() == usr:
            continue
        pointers = function_pointer_positions(decl, args)
        if i - 1 not in pointers or any(j > i and not is_null_constant(args[j]) for j in pointers):
            continue
        k = data_parameter(parameter_types(decl, args)[i - 1], len(list(cb.get_arguments())))
        if m in _hands_back(cb, k, usr) and lowering.gives_up_elsewhere(fn, m, cb.get_usr()):
            taken.add(i)
    return taken


def _hands_back(cb, k: int | None, usr: str) -> set[int]:
    """The positions at which callback `cb`'s body passes its parameter k, as it is, to a direct
    call of the function whose USR is `usr`."""
    body = cb.get_definition() if k is not None else None
    if body is None:
        return set()
    own = [p for p in body.get_children() if kind_of(p) == K.PARM_DECL]
    if k >= len(own):
        return set()
    key = cursor_key(own[k])
    out = set()
    for call in of_kinds(body, _CALLS):
        target = referenced(call)
        if target is None or target.get_usr() != usr:
            continue
        for j, a in enumerate(arguments(call)):
            x = strip(a)
            ref = referenced(x) if kind_of(x) == K.DECL_REF_EXPR else None
            if ref is not None and cursor_key(ref) == key:
                out.add(j)
    return out
