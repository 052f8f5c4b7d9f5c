"""The source object of an asynchronous call, given up by its GAsyncReadyCallback (issue 32).

GIO calls an async operation's callback with the object the operation ran on as its first
parameter (`GAsyncReadyCallback (GObject *source_object, GAsyncResult *res, gpointer
user_data)`; the source of `g_file_read_async (file, ...)`, `g_task_new (source, ...)` is the
first argument). A callback whose body releases that parameter (`g_object_unref
(source_object)` after its `_finish`) is handed the caller's reference with the call: polkit's
`g_async_initable_init_async (G_ASYNC_INITABLE (authority), ..., authority_get_async_cb,
simple)` leaves `authority` to the callback, which unrefs it or hands it to the result. The
table's transfer-none instance says only that the call borrows it; what happens after is the
callback's, read here from its body."""

from __future__ import annotations

import clang.cindex as ci

from refcheck.conventions.summary import Effect, Source
from refcheck.frontend import calleefacts
from refcheck.frontend.argtypes import defined_here, function_pointer_positions, named_function, parameter_types
from refcheck.frontend.clangutil import has_pointer_type
from refcheck.frontend.userdata import _gives_up as gives_up  # the callback data's reading, shared

_SOURCE_TYPES = ("struct _GObject *", "struct _GAsyncResult *")


def source_positions(lowering, decl, args: list, effects: dict) -> tuple[set[int], set[int]]:
    """({0}, set()) where the call's GAsyncReadyCallback gives its source object up on every
    path, (set(), {0}) where on some only (its protocol then decides: the caller's reference is
    unknown after the call, as for data a callback frees on its last call); else nothing."""
    fn, gives = source_callback(lowering, decl, args, effects)
    return ({0} if gives == "all" else set()), ({0} if gives == "some" else set())


def kept_source(lowering, decl, args: list, sinks) -> bool:
    """Whether the call keeps its source for the callback. The source has a slot of its own
    beside the call's data, which the same call keeps: a later store of the data must not
    overwrite it (grilo's `read_async_cb` reads on with `g_input_stream_read_async
    (G_INPUT_STREAM (source), ..., read_async_cb, user_data)`). Never on a cycle's assumption
    (`_gives_source`), so the hand-over leans on no callback's record."""
    if 0 not in sinks:
        return False
    return source_callback(lowering, decl, args, {})[1] == "all"


def source_callback(lowering, decl, args: list, effects: dict):
    """(the call's GAsyncReadyCallback, whether it gives its source object up: "all", "some" or
    None), or (None, None) where the call passes none or its first argument is no object it
    borrows. A callback of the function being built (a read loop registering itself again
    with its source) gives it up where another call of its body does
    (`UserData.gives_up_elsewhere`)."""
    if len(args) < 3 or effects.get(0, Effect.BORROW) is not Effect.BORROW or not has_pointer_type(args[0]) \
            or named_function(args[0]) is not None:
        return None, None
    types = parameter_types(decl, args)
    for j in function_pointer_positions(decl, args):
        fn = named_function(args[j]) if j > 0 else None
        if fn is not None and _async_ready(types[j]):
            return fn, _gives_source(lowering, fn)
    return None, None


def _gives_source(lowering, fn) -> str | None:
    """"all", "some" or None: whether callback `fn` gives up its first parameter, by its record
    (its body in the unit, or inferred in another unit of the run)."""
    if _building(lowering, fn):
        return "all" if lowering.gives_up_elsewhere(fn, 0) else None
    record = lowering.b.summary_of(fn, fn.spelling)
    # Not on a cycle's assumption: libsecret's store callbacks hand their borrowed source round
    # to each other (on_store_create -> on_store_keyring -> on_store_create), which the
    # assumption would confirm by itself.
    if not defined_here(fn) and record.source is not Source.INFERRED or record.assumed:
        return None
    n = len(list(fn.get_arguments()))
    return gives_up(record, n, 0) if n == 3 else None


def _building(lowering, fn) -> bool:
    """`fn` is the function being built (its record is not known yet: its body decides)."""
    built = lowering.b.fn
    return built is not None and bool(calleefacts.usr(built)) and fn.get_usr() == calleefacts.usr(built)


def _async_ready(t) -> bool:
    """`t` is a pointer to a function of GAsyncReadyCallback's shape: (GObject *, GAsyncResult *,
    gpointer) returning void."""
    f = t.get_canonical().get_pointee().get_canonical()
    if f.kind != ci.TypeKind.FUNCTIONPROTO or f.get_result().get_canonical().kind != ci.TypeKind.VOID:
        return False
    params = [p.get_canonical().spelling for p in f.argument_types()]
    return len(params) == 3 and tuple(params[:2]) == _SOURCE_TYPES
