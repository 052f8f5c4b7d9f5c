"""User data handed with a callback or a destroy notify (GLib's layout): which calls lend it,
which hand it over, judged by the callback's or the notify's own record; a mixin of
`calls.CallLowering`."""

from __future__ import annotations

import clang.cindex as ci

from refcheck.conventions.summary import Effect, Returns, Source
from refcheck.frontend import calleefacts
from refcheck.frontend.argtypes import (defined_here, function_pointer_positions, is_function_pointer, named_function,
                                        notify_after, parameter_types, void_pointer)
from refcheck.frontend.binding import arguments, cursor_key, definition, of_kinds
from refcheck.frontend.clangutil import K, has_pointer_type, kind_of, named_parameter, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import is_null_constant

# Statements and expressions whose condition decides a branch (`condition_reads`).
_CONDITIONED = (K.IF_STMT, K.WHILE_STMT, K.DO_STMT, K.SWITCH_STMT, K.CONDITIONAL_OPERATOR)
# Effects by which a callee keeps its argument (the reference is no longer the caller's to drop).
KEPT = (Effect.SINK, Effect.CONSUME, Effect.STORE, Effect.SINK_FLOATING)
_CALLS = frozenset((K.CALL_EXPR.value,))


class UserData:
    """Reads `self.b` (the graph builder: `summary_of`), which `ExpressionLowerer` sets."""

    def lent_to_callback(self, c, decl, args: list, effects: dict, sinks: set) -> set[int]:
        """The user data positions an async call only lends (issue 32): data handed to the one
        callback the call takes (no destroy notify beside it: `json_parser_load_from_stream_async
        (p, s, NULL, on_done, loop)`) goes to that callback's last parameter (GLib's `gpointer
        user_data`); where the callback's body is known (`callback_of`) and its record neither gives
        that parameter up nor keeps it, the call borrows the data. So where the callee's record takes
        the data over (a consume: an async function of the project hands it to g_task_new with
        its caller's callback; libsecret's `secret_collection_delete (self, NULL,
        _secret_sync_on_result, sync)`). A callback that releases, consumes or stores it takes it
        over (the effect stands), and so does one whose body is not seen."""
        lent = set()
        # Kept (a sink) or taken over (a consume: its closure data, `Summarizer.stolen`).
        taken = set(sinks) | {i for i, e in effects.items() if e is Effect.CONSUME and isinstance(i, int)}
        for i in taken:
            # A store too: a `_new`-named async constructor of generated code (geoclue's
            # `wpa_bss_proxy_new_for_bus (..., on_bss_proxy_ready, user_data)`) keeps its data
            # by the names' acquire record refined by its body, which forwards it to the callback.
            if effects.get(i) not in (Effect.SINK, Effect.CONSUME, Effect.STORE):
                continue
            seen = self.callback_of(decl, args, i) or self.forwarded_to(decl, args, i)
            if seen is None:
                continue  # not GLib's layout, or a callback whose body is not seen: the sink stands
            gives = None if self.kept_beside(c, args[i], seen) else _gives_up(*seen)
            # Read only; or given up on some calls only (`partly_taken`), unless the data is the
            # function's own parameter: handing it to that protocol hands it over as far as the
            # function's callers can tell (libportal's `access_camera (call)` subscribes a
            # signal handler that frees `call` and hands it to the D-Bus call's callback, which
            # frees it on error: the public function that made `call` leaks nothing).
            if gives is None or (gives == "some" and named_parameter(args[i]) is None):
                lent.add(i)
        return lent

    def leaning_on(self, decl, args: list, sinks) -> dict[int, str]:
        """Kept position -> the callback whose record, a cycle's assumption (`Summary.assumed`),
        is why the data stays handed over (`lent_to_callback`, `taken_by_callback`): libsoup's
        websocket `start_input_source (self)` registers `on_input` with `self` and a NULL
        notify, `on_input` hands it to `read (self)`, which starts the source again. The cycle
        assumes each takes `self` over; the hand-over leans on the callback, so the cycle keeps
        it only where a member gives the data up for real (refcheck.driver.cycles.unconfirmed)."""
        out = {}
        for i in sinks:
            if not isinstance(i, int) or not 1 <= i < len(args):
                continue
            fn, seen = named_function(args[i - 1]), self.callback_of(decl, args, i)
            if seen is None:
                fn, seen = self.forwarded_callback(decl, args, i), self.forwarded_to(decl, args, i)
            if fn is not None and seen is not None and seen[0].assumed and _gives_up(*seen) == "all":
                out[i] = fn.spelling
        return out

    def forwarded_callback(self, decl, args: list, i: int):
        """The function the callee's record forwards data `args[i]` to (`forwarded_to`), or None."""
        record = self.b.summary_of(decl, decl.spelling) if decl is not None else None
        j = next((c for d, c in record.forwards if d == i and c < len(args)), None) if record else None
        return named_function(args[j]) if j is not None else None

    def forwarded_to(self, decl, args: list, i: int):
        """`callback_of` for data the callee's record says it hands to its own callback parameter
        (`Summary.forwards`: `_gweather_info_queue_request (info, msg, iwin_finish)`)."""
        record = self.b.summary_of(decl, decl.spelling) if decl is not None else None
        j = next((c for d, c in record.forwards if d == i and c < len(args)), None) if record else None
        fn = named_function(args[j]) if j is not None else None
        if fn is None:
            return None
        seen = self.b.summary_of(fn, fn.spelling)
        if not defined_here(fn) and seen.source is not Source.INFERRED:
            return None
        n = len(list(fn.get_arguments()))
        return seen, n, data_parameter(parameter_types(decl, args)[j], n)

    def taken_by_callback(self, c, decl, args: list, effects: dict) -> set[int]:
        """Data positions a call with no record for them hands to its callback, where that
        callback's body is in the unit and gives its last parameter up (releases, consumes,
        keeps it): xb_silo's `g_main_context_invoke (ctx, silo_notify_cb, g_steal_pointer
        (&data))`, whose callback frees the data. The twin of lent_to_callback, for callees no
        table describes (GIR skips g_main_context_invoke, g_idle_add ...); a callee whose body is
        in the unit has its own summary (a field's function pointer has none: its cursor is its
        own definition, no body)."""
        if decl is not None and kind_of(decl) == K.FUNCTION_DECL and defined_here(decl):
            return set()
        taken = set()
        for i in range(1, len(args)):
            if effects.get(i, Effect.BORROW) is not Effect.BORROW or not has_pointer_type(args[i]):
                continue
            seen = self.callback_of(decl, args, i)
            if seen is not None and _gives_up(*seen) == "all" and not self.kept_beside(c, args[i], seen):
                taken.add(i)
        return taken

    def to_itself(self, decl, args: list, effects: dict, summary) -> set[int]:
        """Data positions a callback hands back to itself: the callback argument names the
        function being built, right before the data, no function pointer but a NULL one after
        it (librest's `_continuous_call_read_cb` reads on with `g_input_stream_read_async (...,
        _continuous_call_read_cb, closure)`; grilo's `media_from_uri_cb` asks the next source
        with itself and `mfucd`). Its next call receives the data and its other paths decide
        its fate, so the hand-over is whole, as to any callback freeing it on every call; a
        path that neither frees nor hands the data on is still its leak. Not where the callee's
        body is read (in the unit, or inferred elsewhere): its record says what it does with the
        pair (dconf's `dconf_engine_dbus_handle_connection_closed (..., G_CALLBACK (self), data)`
        only disconnects the handler). Nor where the function frees its data nowhere itself (no
        call of its body gives the data up but the hand-back): then nothing ever does, and each
        call only lends it (glib-networking's test callbacks read on with their fixture, which the
        test frees; a path that drops it is no leak of theirs)."""
        if summary.source is Source.INFERRED or (
                decl is not None and kind_of(decl) == K.FUNCTION_DECL and defined_here(decl)):
            return set()
        fn = self.b.fn
        usr = calleefacts.usr(fn) if fn is not None else ""  # the same at each of the build's calls
        if not usr:
            return set()
        taken = set()
        for i in range(1, len(args)):
            if effects.get(i, Effect.BORROW) is not Effect.BORROW or not has_pointer_type(args[i]):
                continue
            cb = named_function(args[i - 1])
            if cb is None or cb.get_usr() != usr:
                continue
            pointers = function_pointer_positions(decl, args)
            if i - 1 not in pointers or any(j > i and not is_null_constant(args[j]) for j in pointers):
                continue
            k = data_parameter(parameter_types(decl, args)[i - 1], len(list(fn.get_arguments())))
            if self.gives_up_elsewhere(fn, k):
                taken.add(i)
        return taken

    def gives_up_elsewhere(self, fn, k: int | None) -> bool:
        """Some call of `fn`'s body that does not pass `fn` itself gives up its parameter k (or a
        local made from it, through calls that hand their argument back: `SoupServerMessage *m =
        SOUP_SERVER_MESSAGE (user_data)`) by its callee's record: releases, consumes or keeps it
        (`g_object_unref (m)`, a helper of the unit freeing it at the end of the reading)."""
        uncast = self.handed_back
        names = _data_names(fn, k, uncast)
        if not names:
            return False
        usr = fn.get_usr()
        for call in of_kinds(fn, _CALLS):
            args = arguments(call)
            if any((f := named_function(a)) is not None and f.get_usr() == usr for a in args):
                continue  # the hand-back itself
            mine = [j for j, a in enumerate(args) if _refers(a, names, uncast)]
            if not mine:
                continue
            callee, name = self.b.callee_of(call)
            record = self.b.summary_of(callee, name)
            if any(_gives_up(record, len(args), j) for j in mine):
                return True
        return False

    def handed_back(self, x):
        """`x`, casts aside and through the calls whose records say they return an argument
        (GObject's checked casts, G_DECLARE_*'s `SOUP_SERVER_MESSAGE (p)`): that argument."""
        x = strip(x)
        for _ in range(4):  # a cast of a cast at most, in practice
            if kind_of(x) != K.CALL_EXPR:
                break
            decl, name = self.b.callee_of(x)
            record = self.b.summary_of(decl, name)
            args = arguments(x)
            i = record.returned if record.returns is Returns.ARGUMENT else None
            if not isinstance(i, int) or not 0 <= i < len(args):
                break
            x = strip(args[i])
        return x

    def kept_beside(self, c, arg, seen) -> bool:
        """The callback gives its data up on its last call only (where it returns FALSE: a
        conditional effect) and the caller hands the same data, after this call, to a keeper that
        takes a reference of its own (KEEP, RETAIN): libmbim's `incoming_cb` registers
        `connection_readable_cb` with `client` and a NULL notify, then `track_client (self,
        client)` (a `client_ref` kept in a list) and `client_unref (client)`; the callback's
        last call `untrack_client`s it, dropping the list's reference. With no notify the source
        holds none of its own, so the data is lent to the callback: the caller's reference stays
        the caller's. Data nothing else keeps stays handed over (glib_callback_last_call.c)."""
        record, n, k = seen
        if k is None or record.effects(n).get(k) is not None or record.role in ("release", "consume") \
                or k not in record.conditional_effects(n):
            return False
        for call, j in self.later_uses(c, arg):
            decl, name = self.b.callee_of(call)
            record = self.b.summary_of(decl, name)
            if record.effects(len(arguments(call))).get(j) in (Effect.KEEP, Effect.RETAIN) \
                    or (j == 0 and record.role == "retain"):
                return True
        return False

    def later_uses(self, c, arg):
        """(call, position) of every call after `c` in the function's source that passes the
        local or parameter `arg` names as it is; nothing where `arg` names no variable."""
        x = strip(arg)
        target = referenced(x) if kind_of(x) == K.DECL_REF_EXPR else None
        if target is None or kind_of(target) not in (K.VAR_DECL, K.PARM_DECL):
            return
        after = c.extent.end.offset
        for call in self.b.fn.walk_preorder():
            if kind_of(call) != K.CALL_EXPR or call.extent.start.offset <= after:
                continue
            for j, a in enumerate(arguments(call)):
                a = strip(a)
                if kind_of(a) == K.DECL_REF_EXPR and referenced(a) == target:
                    yield call, j

    def partly_taken(self, decl, args: list, effects: dict) -> set[int]:
        """Data positions handed to a callback that gives its data up on some of its calls only
        (`Summary.given_some`: grilo's relays free their operation's state on its last result,
        `if (remaining == 0)`; a source's callback on its error branch), or that hands it on to a
        call through a function pointer (`passed_unseen`): the callback's protocol,
        not the call, decides when it is freed, and the caller may still use it (grilo's
        `media_decorate` calls its relay itself where no source took it). After the call the
        caller's reference is unknown (`ir.Escape`): neither leaving nor releasing it is reported."""
        maybe = set()
        for i in range(1, len(args)):
            if effects.get(i, Effect.BORROW) not in (Effect.BORROW, Effect.SINK, Effect.CONSUME) \
                    or not has_pointer_type(args[i]):
                continue
            seen = self.callback_of(decl, args, i)
            if seen is None:
                # Not the function's own parameter: what its callers hand it is decided by its
                # other hand-overs, as in `lent_to_callback` (libportal's `start (call)`).
                handler = None if named_parameter(args[i]) is not None else self.handler_of(decl, args, i)
                if handler is not None and _gives_up(*handler) is not None:
                    maybe.add(i)
                continue
            gives = _gives_up(*seen)
            if gives == "some" or gives is None and passed_unseen(named_function(args[i - 1]), seen[2]):
                maybe.add(i)
        return maybe | self.instance_handler(decl, args, effects)

    def body_record(self, fn, decl, args: list, i: int):
        """(record, parameter count, its data parameter) of a callback fn whose body is known (in
        the unit, or inferred in another unit of the run), data args[i]; else None."""
        record = self.b.summary_of(fn, fn.spelling)
        if not defined_here(fn) and record.source is not Source.INFERRED:
            return None
        n = len(list(fn.get_arguments()))
        if swapped(args, i):
            return record, n, 0 if n else None
        return record, n, data_parameter(parameter_types(decl, args)[i - 1], n)

    def instance_handler(self, decl, args: list, effects: dict) -> set[int]:
        """{0} where a G_CONNECT_SWAPPED connection's handler gives up its last parameter, which
        receives the emitting instance (args[0]) there: the signal's protocol frees the instance
        (gupnp-dlna's "discovered" handler idle-unrefs its discoverer), so after the connection
        the caller's reference is unknown, as for a handler giving its data up (`partly_taken`)."""
        fn = next((f for j in range(2, len(args)) if (f := named_function(args[j - 1])) is not None
                   and swapped(args, j)), None)
        if fn is None or named_parameter(args[0]) is not None or effects.get(0, Effect.BORROW) is not Effect.BORROW:
            return set()
        if fn.result_type.get_canonical().kind != ci.TypeKind.VOID:
            return set()
        record = self.b.summary_of(fn, fn.spelling)
        if not defined_here(fn) and record.source is not Source.INFERRED:
            return set()
        n = len(list(fn.get_arguments()))
        return {0} if n > 1 and _gives_up(record, n, n - 1) is not None else set()

    def handler_of(self, decl, args: list, i: int):
        """`callback_of` for a handler `once_with` leaves the caller's data: a void callback
        before data `args[i]` with nothing but NULL function pointers after it (`g_signal_connect
        (loader, "closed", G_CALLBACK (on_closed), copy)`, `g_dbus_connection_signal_subscribe
        (..., on_response, call, NULL)`), whose body is in the unit. Such a handler runs any
        number of times, maybe never; one that gives its data up (gdk-pixbuf's "closed" handler
        unrefs the copy, at-spi2-core's pending call's notify frees its name) follows a protocol of the
        signal's (emitted once, the last emission), so the caller's reference is unknown after
        the connection (`partly_taken`). One that only reads its data leaves the caller's leak."""
        fn = named_function(args[i - 1]) if i >= 1 else None
        if fn is None or fn.result_type.get_canonical().kind != ci.TypeKind.VOID:
            return None
        pointers = function_pointer_positions(decl, args)
        if i - 1 not in pointers or any(j > i and not is_null_constant(args[j]) for j in pointers):
            return None
        return self.body_record(fn, decl, args, i)

    def freed_by_notify(self, decl, args: list, effects: dict, summary) -> set[int]:
        """Data positions a callee nothing describes (no record, no body here) takes with a
        destroy notify that releases it: the data/destructor pair hands the data over, as GLib's
        data/GDestroyNotify pairs do (gom's `sqlite3_bind_text (stmt, n, g_value_dup_string (v),
        -1, g_free)`: SQLite calls the destructor when done with the text). A NULL notify, or
        one that does not release its parameter (SQLITE_TRANSIENT, a callback that only reads),
        leaves the data the caller's. The first argument is data only for a notify handed its
        data then a closure (`gdk_pixbuf_new_from_data (buf, ..., free_buffer, NULL)`, whose
        body, in another unit, passes `buf` on as a property where no record follows it)."""
        if summary.source is Source.CONFIGURED or (
                decl is not None and kind_of(decl) == K.FUNCTION_DECL and defined_here(decl)):
            return set()
        taken = set()
        # The first argument only with a closure notify: otherwise the object the call works on,
        # whose elements the notify frees (`my_array_set_free_func (array, g_free)`). A
        # constructor's record from its name or its body elsewhere may say nothing of it.
        for i in range(0, len(args) - 1):
            if i and summary.source is not Source.DEFAULT:
                break
            if effects.get(i, Effect.BORROW) is not Effect.BORROW or not has_pointer_type(args[i]):
                continue
            fn = notify_after(decl, args, i, closure=i == 0) if named_function(args[i]) is None else None
            if fn is not None and _frees_first(self.b.summary_of(fn, fn.spelling), fn):
                taken.add(i)
        return taken

    def freed_by_table(self, decl, args: list, effects: dict, summary) -> set[int]:
        """Data positions a callee nothing describes (as `freed_by_notify`) takes with a table of
        functions one of which releases its `void *` parameter: libdbus's
        `dbus_connection_register_object_path (c, path, &vtable, data)`, whose vtable's
        unregister function is handed the data when the path is unregistered (dbus-python's
        `_object_path_unregister` releases it). The data is a `void *` parameter past the first;
        the table an argument `&t` or `t` naming a variable of the unit whose brace initializer
        names the functions. A table none of whose functions releases such a parameter (a
        vtable of readers) leaves the data the caller's."""
        if summary.source is not Source.DEFAULT or (
                decl is not None and kind_of(decl) == K.FUNCTION_DECL and defined_here(decl)):
            return set()
        tables = [fn for a in args[1:] for fn in _initializer_functions(a)]
        if not tables or not any(_frees_void(self.b.summary_of(fn, fn.spelling), fn) for fn in tables):
            return set()
        types = parameter_types(decl, args)
        return {i for i in range(1, len(args)) if effects.get(i, Effect.BORROW) is Effect.BORROW
                and has_pointer_type(args[i]) and named_function(args[i]) is None and void_pointer(types[i])}

    def retained_after(self, c, arg) -> bool:
        """The data variable `arg` names is retained by a call after `c` in the function's source
        (pycairo's `status = cairo_device_set_user_data (d, &key, base, _decref_destroy_func);
        RETURN_NULL_IF_CAIRO_ERROR (status); Py_INCREF (base);`): handed borrowed, then given
        its reference once the keeping call succeeded, as `self->f = x; Py_INCREF (x);` is. Its
        hand-over is then a store whose debt that retain pays (no RC009 at the call)."""
        for call, j in self.later_uses(c, arg):
            decl, name = self.b.callee_of(call)
            if j == 0 and self.b.summary_of(decl, name).role == "retain":
                return True
        return False

    def result_tested(self, c) -> bool:
        """The call's result is tested: the call itself is a condition's operand, or it is
        assigned to a status local (`status = f (...)`) that a condition reads itself (`if
        (status != CAIRO_STATUS_SUCCESS)`, `if (!ok)`). A local only handed to another call
        (pycairo's `if (Pycairo_Check_Status (status))`) is no test: which edge that call's
        result takes is not known here, so the hand-over stays unconditional."""
        if cursor_key(c) in self.b.tested:
            return True
        target = self.status_target
        return target is not None and target[0] == cursor_key(c) and self.condition_reads(target[1])

    def condition_reads(self, v: str) -> bool:
        """Some condition of the function reads local `v` outside any call's arguments."""
        for k in self.b.fn.walk_preorder():
            kind = kind_of(k)
            if kind not in _CONDITIONED:
                continue
            kids = children_of(k)
            cond = kids[-1] if kind == K.DO_STMT else kids[0] if kids else None
            stack = [cond] if cond is not None else []
            while stack:
                x = stack.pop()
                if kind_of(x) == K.DECL_REF_EXPR and self.b.var(referenced(x)) == v:
                    return True
                if kind_of(x) != K.CALL_EXPR:
                    stack.extend(children_of(x))
        return False

    @staticmethod
    def once_with(decl, args: list, i: int, pointers: list) -> bool:
        """Whether the callback before data `args[i]` has it alone though a destroy notify follows:
        the notify is NULL (`g_idle_add_full (prio, cb, data, NULL)`, `g_source_set_callback (src,
        cb, data, NULL)`; issue 32) and the callback is a source's, whose truth-valued result says
        whether it is called again (GSourceFunc: "it should return FALSE if the source should be
        removed"): one that frees its data removes its source, so the data is its alone. A void
        callback (a signal handler: `GCallback`, `GDBusSignalCallback` of
        `g_dbus_connection_signal_subscribe (..., cb, data, NULL)`) runs any number of times,
        maybe never: its data stays the caller's."""
        if any(j > i and not is_null_constant(args[j]) for j in pointers):
            return False
        t = parameter_types(decl, args)[i - 1].get_canonical().get_pointee().get_canonical()
        return (t.kind == ci.TypeKind.FUNCTIONPROTO and t.get_result().get_canonical().kind == ci.TypeKind.INT
                and len(list(t.argument_types())) > 0)

    def callback_of(self, decl, args: list, i: int):
        """(record, parameter count) of the function argument i - 1 names, where argument i is
        its data in GLib's layout (the callback right before its data, no function pointer but a
        NULL one after it) and its body is known: in the unit, or in another unit of the run, whose record the
        run's table imports (libsecret's `secret_collection_delete (self, NULL,
        _secret_sync_on_result, sync)`); else None (no record from a body: unknown). The callee's
        parameter types are asked only once a function is passed (this runs for every call)."""
        fn = named_function(args[i - 1]) if i >= 1 else None
        if fn is None:
            return None
        pointers = function_pointer_positions(decl, args)
        if i - 1 not in pointers or any(j > i for j in pointers) and not self.once_with(decl, args, i, pointers):
            return None
        return self.body_record(fn, decl, args, i)


def forwarded(fn) -> list:
    """(data, callback) parameter pairs of `fn`: a call of its body passes its own callback
    parameter with one of its own pointer parameters right after it as the data, and no destroy
    notify later (`Summary.forwards`: `soup_session_send_and_read_async (info->session, msg, ...,
    callback, info)` in libgweather's `_gweather_info_queue_request (info, msg, callback)`)."""
    out = []
    if not any(kind_of(p) == K.PARM_DECL and is_function_pointer(p.type) for p in children_of(fn)):
        return out  # no callback of its own: the body is not walked (most functions)
    for call in of_kinds(fn, _CALLS):
        args = [strip(a) for a in arguments(call)]
        for j, (cb, data) in enumerate(zip(args, args[1:])):
            c, d = named_parameter(cb), named_parameter(data)
            if c is None or d is None or not is_function_pointer(c.type) or not has_pointer_type(data):
                continue
            if not any(is_function_pointer(a.type) and not is_null_constant(a) for a in args[j + 2:]):
                out.append((d, c))
    return out


def passed_unseen(fn, k: int | None) -> bool:
    """The callback `fn`'s body hands its data parameter k (or a local initialized or assigned
    from it: `GrlSourceBrowseSpec *bs = user_data`) as it is to a call through a function pointer
    (a class's virtual method, a callback field or parameter), whose body no record describes:
    grilo's `browse_idle (bs)` runs `GRL_SOURCE_GET_CLASS (bs->source)->browse (bs->source, bs)`,
    whose plugin reports results to the relay that frees `bs`. Where the data goes then is that
    protocol's to say, not the callback's record (which only reads it). A callback that only
    reads its data, or passes its fields on, is not such a hand-on."""
    names = _data_names(fn, k)
    body = definition(fn) if names else None
    return body is not None and any(kind_of(x) == K.CALL_EXPR and not _direct(x)
                                    and any(_refers(a, names) for a in arguments(x)) for x in body.walk_preorder())


def _data_names(fn, k: int | None, bare=strip) -> set:
    """The keys of `fn`'s parameter k and of the locals initialized or assigned from it as it is
    (`bare`: the casts it sees through), in source order; empty where fn has no body or no
    parameter k."""
    body = definition(fn) if fn is not None and k is not None else None
    params = [p for p in children_of(body) if kind_of(p) == K.PARM_DECL] if body is not None else []
    if k is None or k >= len(params):
        return set()
    names = {cursor_key(params[k])}
    for x in body.walk_preorder():
        kind = kind_of(x)
        if kind == K.VAR_DECL and _refers(next((c for c in children_of(x) if c.kind.is_expression()), None),
                                          names, bare):
            names.add(cursor_key(x))
        elif kind == K.BINARY_OPERATOR and (kids := children_of(x)) and len(kids) == 2 \
                and _refers(kids[1], names, bare) and kind_of(strip(kids[0])) == K.DECL_REF_EXPR:
            target = referenced(strip(kids[0]))
            if target is not None and kind_of(target) == K.VAR_DECL:
                names.add(cursor_key(target))
    return names


def _direct(call) -> bool:
    """The call names its function (not a field's, a variable's or a parameter's pointer),
    parenthesized too: GLib's `g_object_ref (o)` macro calls `(g_object_ref) (o)`."""
    target = referenced(call)
    if target is not None and kind_of(target) == K.FUNCTION_DECL:
        return True
    callee = next(iter(children_of(call)), None)
    return callee is not None and named_function(callee) is not None


def _refers(x, names: set, bare=strip) -> bool:
    """`x`, casts aside (`bare`), names a variable of `names`."""
    x = bare(x) if x is not None else None
    target = referenced(x) if x is not None and kind_of(x) == K.DECL_REF_EXPR else None
    return target is not None and cursor_key(target) in names


def swapped(args: list, i: int) -> bool:
    """Data args[i] of a signal connection made with G_CONNECT_SWAPPED (`g_signal_connect_swapped`,
    `g_signal_connect_object (..., G_CONNECT_SWAPPED)`): GObject's "the instance and data should be
    swapped when calling the handler", so the data reaches the handler's first parameter and the
    instance its last (glib45: gupnp-dlna, jsonrpc-glib, 4 false)."""
    return i + 1 < len(args) and any(kind_of(x) == K.DECL_REF_EXPR and x.spelling == "G_CONNECT_SWAPPED"
                                     for a in args[i + 1:] for x in a.walk_preorder())


def data_parameter(callback_type, n: int) -> int | None:
    """The index of the callback's parameter its caller's data reaches: the last `gpointer` of
    the callee's callback type (grilo's `GrlSourceResultCb (source, id, media, remaining,
    user_data, error)` has an error after it), else the last parameter (GLib's layout:
    GAsyncReadyCallback's, GSourceFunc's `gpointer user_data`, a callback declared with its
    data's own type); None for a callback of no parameters."""
    t = callback_type.get_canonical()
    t = t.get_pointee().get_canonical() if t.kind == ci.TypeKind.POINTER else t
    params = list(t.argument_types()) if t.kind == ci.TypeKind.FUNCTIONPROTO else []
    voids = [k for k, p in enumerate(params) if void_pointer(p)]
    k = voids[-1] if voids and len(params) == n else n - 1
    return k if k >= 0 else None


def _gives_up(record, n: int, k: int | None) -> str | None:
    """Whether the callback's record gives up its data parameter k: "all" where it releases,
    consumes or keeps it on every call (every path, or where it returns FALSE and so removes its
    source: a conditional effect), or is a releaser itself; "some" where it does so on some calls
    only (`Summary.given_some`: a relay freeing it on the last result, `if (remaining == 0)
    g_list_free (keys)`); None where it only reads it."""
    if k is None:
        return None
    if k in record.given_some:
        return "some"
    given = record.effects(n).get(k)
    if (given in KEPT or given is Effect.RELEASE or record.role in ("release", "consume")
            or record.conditional_effects(n).get(k, (None,))[0] in (*KEPT, Effect.RELEASE)):
        return "all"
    return None


def _frees_first(record, fn) -> bool:
    """The notify gives up its first parameter: its record says so, or a releaser's name does
    for a notify of one parameter (`g_free`); a two-parameter one named like a releaser may
    free its closure instead (gom's `bytes_unref (pixels, data)` unrefs `data`)."""
    n = len(list(fn.get_arguments()))
    return (record.effects(max(n, 1)).get(0) in (Effect.RELEASE, Effect.CONSUME)
            or (n <= 1 and record.role in ("release", "consume")))


def _frees_void(record, fn) -> bool:
    """A table's function gives up a `void *` parameter of its own (its record releases it)."""
    params = list(fn.get_arguments())
    effects = record.effects(len(params))
    return any(void_pointer(p.type) and effects.get(i) in (Effect.RELEASE, Effect.CONSUME)
               for i, p in enumerate(params))


def _initializer_functions(arg) -> tuple:
    """The functions the brace initializer of the variable `&t` (or `t`) names, or () (not
    `slots.table_functions`, which maps a unit's CPython tables' functions to their slots)."""
    x = strip(arg)
    if kind_of(x) == K.UNARY_OPERATOR and unop(x) == "&":
        x = strip(next(iter(children_of(x)), x))
    ref = referenced(x) if kind_of(x) == K.DECL_REF_EXPR else None
    if ref is None or kind_of(ref) != K.VAR_DECL:
        return ()
    init = next((k for k in children_of(ref) if kind_of(k) == K.INIT_LIST_EXPR), None)
    if init is None:
        return ()
    return tuple(fn for k in children_of(init) if (fn := named_function(k)) is not None)
