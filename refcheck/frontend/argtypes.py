"""What a call's arguments are, by their types: user data paired with a NULL destroy notify,
function pointers and the functions they name, scalars filled through pointers, untyped results
(helpers of `calls.CallLowering`)."""

from __future__ import annotations

import clang.cindex as ci

from refcheck.conventions.summary import Effect, Source, When
from refcheck.frontend.clangutil import (K, argument_types, binop, has_pointer_type, has_scalar_type, kind_of, referenced,
                                         converted_constant, strip, unop)
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend import calleefacts
from refcheck.frontend.calleefacts import declared_types
from refcheck.frontend.conditions import is_null_constant
from refcheck.frontend.graph import library_declares
from refcheck.frontend.unit import in_system_header


def unnotified(args, i: int) -> bool:
    """User data `args[i]` paired with a NULL destroy notify: nothing will free it, so the callee
    only borrows it for as long as its caller keeps it alive, whatever its record says it keeps
    (a GIR sink, an inferred steal or store of a project function's `gpointer user_data`).
    GLib's convention, by the call's parameter types: the notify follows its data
    (`g_source_set_callback (src, cb, side, NULL)`, `xb_machine_add_method (m, "a", 1, cb,
    self, NULL)`), or comes right before it (`g_variant_new_from_data (..., notify, user_data)`,
    a `void (*) (gpointer)` there), or follows it past scalars only (`xb_opcode_init (op, kind,
    str, 0, NULL)`: data, its number, the notify), a NULL `void (*) (T *)` there."""
    if i + 1 < len(args) and _null_function(args[i + 1]) is not None:
        return True
    j = i + 1
    while j < len(args) and has_scalar_type(args[j]):
        j += 1
    after = _null_function(args[j]) if i + 1 < j < len(args) else None
    if after is not None and destroy_notify(after):
        return True
    before = _null_function(args[i - 1]) if i > 0 else None
    return before is not None and destroy_notify(before)


def forwarded_pair(fn, args, i: int) -> bool:
    """Data `args[i]` is a parameter of `fn` (the function making the call) handed on together
    with its own destroy notify, the parameter right after it in `fn`'s list past scalars, as
    the next argument past scalars (libgdata's `gdata_service_query_async (..., progress_callback,
    progress_user_data, destroy_progress_user_data, ...)` in each `*_query_*_async` taking that
    triple): the data came with the duty to call that notify, and the pair hands both on, so the
    caller lends nothing it should have retained. Data handed with any other notify (`g_free`,
    a notify parameter of other data) is no such pair."""
    if fn is None or i + 1 >= len(args):
        return False
    data, j = strip(args[i]), i + 1
    while j < len(args) and has_scalar_type(args[j]):
        j += 1
    notify = strip(args[j]) if j < len(args) else None
    if notify is None or K.DECL_REF_EXPR != kind_of(data) or K.DECL_REF_EXPR != kind_of(notify):
        return False
    params = list(fn.get_arguments())
    p, q = referenced(data), referenced(notify)
    if p not in params or q not in params:
        return False
    k = params.index(p) + 1
    while k < len(params) and params[k].type.get_canonical().kind != ci.TypeKind.POINTER:
        k += 1  # scalars between the data and its notify (a length)
    t = q.type.get_canonical()
    return (k < len(params) and params[k] == q and t.kind == ci.TypeKind.POINTER
            and destroy_notify(t.get_pointee().get_canonical()))


def notify_after(decl, args, i: int, closure: bool = False):
    """The function named as the destroy notify of data `args[i]`: the next argument past scalars
    only (`sqlite3_bind_text (stmt, n, text, -1, g_free)`: data, its length, the destructor), or
    the last of the function pointers that follow it (`_last_callback`: SQLite's callbacks, then
    the destructor),
    a callee parameter of a `void (*) (T *)` type; with `closure`, of a `void (*) (T *,
    gpointer)` type only (`gdk_pixbuf_new_from_data (pixels, ..., destroy_fn, destroy_fn_data)`:
    the notify is handed the data itself, then its closure); else None."""
    types = parameter_types(decl, args)
    j = i + 1
    while j < len(args) and has_scalar_type(args[j]):
        j += 1
    if not closure:
        j = _last_callback(args, types, j)
    fn = named_function(args[j]) if j < len(args) else None
    if fn is None and j < len(args):
        fn = chosen_with_data(args[j], args[i])
    if fn is None:
        return None
    t = types[j].get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return None
    f = t.get_pointee().get_canonical()
    return fn if (closure_notify(f, types[i]) if closure else destroy_notify(f)) else None


def _last_callback(args: list, types: list, j: int) -> int:
    """Where the data's callbacks come before its destructor (SQLite's `sqlite3_create_function_v2
    (db, name, n, flags, pApp, xFunc, xStep, xFinal, xDestroy)`: the function pointers handed the
    data through `sqlite3_user_data`, then the one that frees it), the last function-pointer
    parameter of the run that starts at `j` (function pointers, NULLs and scalars between them);
    `j` itself where the argument there is no function pointer or the run is one long."""
    last, k = j, j
    while k < len(args) and (_function_pointer(types[k]) or has_scalar_type(args[k])):
        if _function_pointer(types[k]):
            if k > j and _copies(types[last]) and not is_null_constant(args[last]):
                # A copy function before the destructor (glib-networking's `g_tls_store_session_data
                # (id, sess, dup, acquire, release, v)`): the callee keeps its own copy, and the
                # destructor is for that copy, not the data handed (a NULL dup copies nothing).
                return j
            last = k
        k += 1
    return last


def _copies(t) -> bool:
    """Whether function-pointer type `t` returns a pointer (a dup: `void *(*)(void *)`)."""
    result = t.get_canonical().get_pointee().get_canonical().get_result().get_canonical()
    return result.kind == ci.TypeKind.POINTER


def _function_pointer(t) -> bool:
    t = t.get_canonical()
    return t.kind == ci.TypeKind.POINTER and t.get_pointee().get_canonical().kind == ci.TypeKind.FUNCTIONPROTO


def chosen_with_data(arg, data):
    """The function `data ? fn : NULL` names (pycairo's `cairo_pattern_set_user_data (p, key,
    data, data ? _decref_destroy_func : NULL)`): the notify is set exactly when there is data to
    free, so the pair hands the data over as with `fn` alone (NULL data is nothing to keep). The
    condition must test the data argument's own variable; any other leaves it unknown (None)."""
    x = strip(arg)
    if kind_of(x) != K.CONDITIONAL_OPERATOR:
        return None
    kids = children_of(x)
    if len(kids) != 3 or not is_null_constant(kids[2]):
        return None
    fn = named_function(kids[1])
    cond, held = _tested_variable(kids[0]), strip(data)
    if fn is None or cond is None or kind_of(held) != K.DECL_REF_EXPR or referenced(held) != cond:
        return None
    return fn


def _tested_variable(cond):
    """The variable a null test `v`, `v != NULL` is true for when not NULL, or None."""
    x = strip(cond)
    if kind_of(x) == K.BINARY_OPERATOR:
        kids = children_of(x)
        if binop(x) != "!=" or len(kids) != 2 or not any(is_null_constant(k) for k in kids):
            return None
        x = strip(kids[0] if is_null_constant(kids[1]) else kids[1])
    return referenced(x) if kind_of(x) == K.DECL_REF_EXPR else None


def success_result(call, boolean: bool):
    """Which result of a status-returning call is success, where its type says it: a truth value
    (`boolean`: `callparts.is_boolean`: `bool`, `dbus_bool_t`) true (When.NONZERO); a status enum whose
    zero enumerator is named for success (cairo's `CAIRO_STATUS_SUCCESS = 0`, libusb's
    `LIBUSB_SUCCESS`, curl's `CURLE_OK`) zero (When.ZERO); else None (an `int` says nothing:
    0 or -1 may be either)."""
    if boolean:
        return When.NONZERO
    t = call.type.get_canonical()
    if t.kind != ci.TypeKind.ENUM:
        return None
    for e in t.get_declaration().get_children():
        if e.kind == ci.CursorKind.ENUM_CONSTANT_DECL and e.enum_value == 0:
            name = e.spelling.upper()
            return When.ZERO if name.endswith(("SUCCESS", "_OK")) or name == "OK" else None
    return None


def closure_notify(f, data) -> bool:
    """A `void (*) (T *, gpointer)` function type whose T is the data parameter's own pointee
    (`data`'s type), not void: a notify handed that data, then a closure (GdkPixbufDestroyNotify's
    `guchar *pixels`; not GFunc's `gpointer`, which g_slist_foreach hands each element)."""
    if f.kind != ci.TypeKind.FUNCTIONPROTO or f.get_result().kind != ci.TypeKind.VOID:
        return False
    params = [p.get_canonical() for p in argument_types(f)]
    if len(params) != 2 or any(p.kind != ci.TypeKind.POINTER for p in params):
        return False
    first, data = params[0].get_pointee().get_canonical(), data.get_canonical()
    return (first.kind != ci.TypeKind.VOID and data.kind == ci.TypeKind.POINTER
            and _unqualified(first) == _unqualified(data.get_pointee().get_canonical())
            and params[1].get_pointee().get_canonical().kind == ci.TypeKind.VOID)


def _unqualified(t) -> str:
    return t.spelling.replace("const ", "").replace("volatile ", "").strip()


def _null_function(arg):
    """The function type of a NULL constant passed for a function pointer, else None."""
    if not is_null_constant(arg):
        return None
    t = arg.type.get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return None
    f = t.get_pointee()
    return f if f.kind in (ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO) else None


def destroy_notify(f) -> bool:
    """A `void (*) (T *)` function type: GDestroyNotify's shape (a callback taking more is not)."""
    if f.kind != ci.TypeKind.FUNCTIONPROTO or f.get_result().kind != ci.TypeKind.VOID:
        return False
    params = argument_types(f)
    return len(params) == 1 and params[0].get_canonical().kind == ci.TypeKind.POINTER


def parameter_types(decl, args: list) -> list:
    """The callee's parameter types, one per argument: the declared ones, then the arguments'
    own past them (a variadic callee's: `PyArg_ParseTuple (args, "O&", converter, &x)`) or
    where it has no prototype. A call through a function pointer (`call->parent->parent_export
    (p, cb, data)`, whose callee is the field) has the pointee's prototype."""
    declared = declared_types(decl)  # kept per callee while a function is built
    return list(declared[:len(args)]) + [a.type for a in args[len(declared):]]


def function_pointer_positions(decl, args: list) -> list[int]:
    """The positions of the callee's function-pointer parameters."""
    return [i for i, t in enumerate(parameter_types(decl, args)) if is_function_pointer(t)]


def is_function_pointer(t) -> bool:
    t = t.get_canonical()
    return t.kind == ci.TypeKind.POINTER and t.get_pointee().get_canonical().kind in (
        ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO)


def named_function(a):
    """The function an argument names (`on_done`, `G_CALLBACK (on_done)`, `&on_done`), or None."""
    x = strip(a)
    if kind_of(x) == K.UNARY_OPERATOR and unop(x) == "&":
        x = strip(next(iter(children_of(x)), x))
    if kind_of(x) != K.DECL_REF_EXPR:
        return None
    ref = referenced(x)
    return ref if ref is not None and kind_of(ref) == K.FUNCTION_DECL else None


def _filled_kind(arg):
    """The kind of what `&v` lets a callee fill in when v is a pointer (`long *` -> LONG), else None."""
    t = arg.type.get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return None
    inner = t.get_pointee().get_canonical()
    if inner.kind != ci.TypeKind.POINTER:
        return None
    return inner.get_pointee().get_canonical().kind


def _scalar(kind) -> bool:
    return ci.TypeKind.BOOL.value <= kind.value <= ci.TypeKind.LONGDOUBLE.value


def fills_scalars(arg) -> bool:
    """`&v` with v a pointer to scalars (`long *`): what the callee fills in is no counted object."""
    kind = _filled_kind(arg)
    return kind is not None and _scalar(kind)


def receives_typed_pointer(arg) -> bool:
    """`&v` with v a string (`gchar *`) or a pointer to a type (`GObject *`, `GStrv`): not a
    number, a `void *`, nor a pointer to other scalars (GdkPixbuf's `guchar *` "pixels", a
    G_TYPE_POINTER property written as it is)."""
    kind = _filled_kind(arg)
    return kind is not None and kind != ci.TypeKind.VOID and (
        not _scalar(kind) or kind in (ci.TypeKind.CHAR_S, ci.TypeKind.CHAR_U))


def untyped_unknown(c, summary) -> bool:
    """A `void *` result of a callee nothing describes (no record, no pattern, no body here:
    ultrajson's `JSOBJ JSON_DecodeObject(...)`, defined in another unit): an untyped pointer whose
    ownership is unknown, not an object the callee lends; it is not tracked (no RC010 when the
    caller releases it). A record or a pattern saying `borrowed` (luaT_toudata) still lends it."""
    return summary.source is Source.DEFAULT and void_pointer(c.type)


def void_pointer(t) -> bool:
    """`t` is (canonically) `void *`, of any qualification."""
    t = t.get_canonical()
    return t.kind == ci.TypeKind.POINTER and t.get_pointee().get_canonical().kind == ci.TypeKind.VOID


def opaque_unknown(c, decl, summary, conv) -> bool:
    """A system header's function nothing describes (no record, no pattern, no GIR) returning a
    pointer to an incomplete struct, a library's opaque handle (cairo's `cairo_t *cairo_create
    (...)`, whose documentation says "the caller owns the returned object"): who owns it is the
    library's documentation to say, so it is unknown, not borrowed (no RC010 when the caller
    releases it, issue 32). A complete struct (`struct passwd *getpwnam`) or a string stays
    borrowed, and so does a handle of a library with a naming table (OpenSSL's `X509 *`). Only
    where the conventions ask (`opaque_unknown`: the glib preset's)."""
    if not conv.opaque_unknown or summary.source is not Source.DEFAULT or decl is None:
        return False
    t = c.type.get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return False
    inner = t.get_pointee().get_canonical()
    if inner.kind != ci.TypeKind.RECORD or inner.get_size() >= 0:
        return False
    loc = decl.location
    # A library refcheck has a naming table for (OpenSSL) is described: what its table leaves
    # alone is lent as before (glib-networking's true RC010 on `X509_free (SSL_get_certificate
    # (ssl))`: "The reference count of the X509 object is not incremented").
    return loc.file is not None and in_system_header(loc) and not library_declares(conv, decl)


# What a call through a function pointer names: a struct member (`klass->finish (...)`, a
# GObject class's or interface's virtual method), a variable or a parameter (`(*to_bytes) (v)`).
_POINTER_CALLEES = (K.FIELD_DECL, K.VAR_DECL, K.PARM_DECL)


def taken_by_constant(conv, args: list) -> list[int]:
    """The positions of the pointer arguments that the enum constant right before them hands
    over (`Conventions.take_constants`: libsoup 2's `soup_message_body_append (body,
    SOUP_MEMORY_TAKE, data, n)`, where libsoup frees `data`). Named at the call, the constant
    decides: SOUP_MEMORY_COPY there leaves `data` the caller's."""
    if not conv.take_constants:
        return []
    taken = []
    for i in range(len(args) - 1):
        e = strip(args[i])
        ref = referenced(e) if e is not None and kind_of(e) == K.DECL_REF_EXPR else None
        if (ref is not None and kind_of(ref) == K.ENUM_CONSTANT_DECL and conv.matches("take_constants", ref.spelling)
                and has_pointer_type(args[i + 1])):
            taken.append(i + 1)
    return taken


def taken_by_flag(conv, decl, args: list, effects: dict) -> list[int]:
    """The position of the pointer argument right before a boolean parameter `take_flags` names,
    given a true constant there (`gsf_input_memory_new (buf, n, TRUE)`), where the record leaves
    that argument borrowed."""
    if not conv.take_flags or decl is None:
        return []
    taken = []
    for i, param in enumerate(list(decl.get_arguments())[:len(args)]):
        if not conv.matches("take_flags", param.spelling or "") or not converted_constant(args[i]):
            continue
        before = next((j for j in range(i - 1, -1, -1) if has_pointer_type(args[j])), None)
        if before is not None and effects.get(before, Effect.BORROW) is Effect.BORROW:
            taken.append(before)
    return taken


def indirect_unknown(call, summary) -> bool:
    """A call through a function pointer nothing describes (no record, no pattern): which
    function runs, and so who owns its pointer result, is the pointer's to say (every
    implementation of a GObject virtual method returns what the method's documentation says:
    `(transfer full)` for GIO's `*_finish`). The result is unknown, not borrowed: not tracked (no
    RC010 or RC009 for its release or hand-over), and a function returning it forwards an
    unknown result (`relevance.returns_unknown_result`)."""
    return summary.source is Source.DEFAULT and through_pointer(call)


def through_pointer(call) -> bool:
    """Whether a call's callee is a function pointer: `klass->finish (...)`, `(*to_bytes) (v)`,
    `cb (data)` of a variable or parameter (not a function, a method or an unknown name)."""
    kids = children_of(call)
    x = strip(kids[0]) if kids else None
    while x is not None and kind_of(x) == K.UNARY_OPERATOR and unop(x) == "*":
        inner = children_of(x)
        x = strip(inner[0]) if inner else None
    if x is not None and kind_of(x) == K.ARRAY_SUBSCRIPT_EXPR:
        # An element of a table of functions (a C-API capsule's `void *` slots, pygame's
        # `(*(PyObject * (*)(int, PyObject *)) _PGSLOTS_event[2]) (...)`): a pointer as well.
        inner = children_of(x)
        x = strip(inner[0]) if inner else None
    if x is None or kind_of(x) not in (K.MEMBER_REF_EXPR, K.DECL_REF_EXPR):
        return False
    ref = referenced(x)
    return ref is not None and kind_of(ref) in _POINTER_CALLEES


def pointer_type_name(call) -> str | None:
    """The typedef a call through a function pointer names its pointer by (`GrlSourceResultCb
    callback;` -> "GrlSourceResultCb"), else None (a bare `void (*cb) (void *)`, a direct call)."""
    if not through_pointer(call):
        return None
    x = strip(children_of(call)[0])
    while kind_of(x) == K.UNARY_OPERATOR and unop(x) == "*":
        x = strip(children_of(x)[0])
    t = x.type
    while t.kind == ci.TypeKind.ELABORATED:
        t = t.get_named_type()
    return t.spelling if t.kind == ci.TypeKind.TYPEDEF else None


def points_to_scalar(c) -> bool:
    """A `char *`, `const char *`, `int *` ... result: no counted reference (void * may be one)."""
    t = c.type.get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return False
    return ci.TypeKind.BOOL.value <= t.get_pointee().get_canonical().kind.value <= ci.TypeKind.LONGDOUBLE.value


# Calls that put what they are given into a container: on a member (`args.push_back(a)`,
# `this->items.emplace_back(a)`) or a global, the container keeps it, a hand-over like a store.
# Argument effects that keep the reference passed: a hand-over (a store into memory).


def contents_taken(fn, call, container) -> bool:
    """Whether `fn` reads a member of `container`'s variable through `->` before `call` in the
    source (`g_value_take_boxed (v, ar->pdata); g_ptr_array_free (ar, FALSE);`, `... s->str;
    g_string_free (s, FALSE);`): the contents a destructor told to keep them hands over were
    taken through the field, so its discarded result is no second copy to free."""
    x = strip(container)
    target = referenced(x) if kind_of(x) == K.DECL_REF_EXPR else None
    if target is None:
        return False
    at = call.extent.start.offset
    stack = list(children_of(fn))
    while stack:
        c = stack.pop()
        if kind_of(c) == K.MEMBER_REF_EXPR and c.extent.start.offset < at:
            base = next(iter(children_of(c)), None)
            base = strip(base) if base is not None else None
            if base is not None and kind_of(base) == K.DECL_REF_EXPR and base.type.get_canonical().kind == \
                    ci.TypeKind.POINTER and referenced(base) == target:
                return True
        stack.extend(children_of(c))
    return False


def defined_here(decl) -> bool:
    """The callee's body is in this unit: what it returns is for its inferred summary to say
    (issue 26), not the name conventions (THNN's static `view_weight` returns a new tensor)."""
    return decl is not None and calleefacts.defined_here(decl)  # kept per unit: asked at every call
