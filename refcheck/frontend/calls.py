"""Calls lowered to IR ops by their callee's summary record: acquisitions, retains, releases,
hand-overs (sinks, steals, stores into containers), out-parameters, reallocations, error and
success splits; a mixin of `expressions.ExpressionLowerer`, whose value lowering it uses.
"""

from __future__ import annotations

from dataclasses import replace

import clang.cindex as ci

from refcheck import ir
from refcheck.conventions.summary import FILL_EFFECTS, Effect, Returns, Source
from refcheck.frontend.aliases import embedded_member_base, plain_local, pointed_local
from refcheck.frontend.argtests import argument_split, argument_test
from refcheck.frontend.argtypes import (contents_taken, defined_here, forwarded_pair, is_function_pointer,
                                        opaque_unknown, points_to_scalar, success_result, taken_by_constant, taken_by_flag, unnotified,
                                        untyped_unknown, indirect_unknown, receives_typed_pointer)
from refcheck.frontend.asyncsource import kept_source, source_positions
from refcheck.frontend.bare_tables import lent_positions
from refcheck.frontend.callresults import CallResults
from refcheck.frontend.callparts import (back_pointers, documented_callback, is_boolean, record_pointee,
                                         released_record)
from refcheck.frontend.binding import arguments, cursor_key
from refcheck.frontend.clangutil import (K, expr_text, has_pointer_type, has_scalar_type, kind_of,
                                         location, named_parameter, referenced, strip)
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import NULL, expr_vars, is_null_constant, key_of, singleton_address
from refcheck.frontend.constcalls import constant_result, known_result
from refcheck.frontend.cxxcalls import may_throw, member_insert, throw_split, unwind
from refcheck.frontend.nullthrows import null_throw_split, throws_where_null
from refcheck.frontend.exitmacros import macro_role
from refcheck.frontend.gerrors import error_out_local
from refcheck.frontend.handles import handle_positions
from refcheck.frontend.heldelements import container_held
from refcheck.frontend.holders import lasting_holder
from refcheck.frontend.finishes import finish_owned
from refcheck.frontend.ownergets import owner_acquisition, owner_released
from refcheck.frontend.owning import address_of_local, detach, owning_locals
from refcheck.frontend.ownbuffer import buffer_or_own
from refcheck.frontend import bufferviews, capsules, flagfail, indicator
from refcheck.frontend.parsefields import lend_fields
from refcheck.frontend.longjmps import context_ends, longjmp_split, may_longjmp
from refcheck.frontend.moves import Moves
from refcheck.frontend.namedobject import named_released
from refcheck.frontend.opaque import opaque_positions
from refcheck.frontend.singletonsteals import retained_next
from refcheck.frontend.stdowners import owner_takes
from refcheck.frontend.takes import method_take
from refcheck.frontend.testchecks import checked_condition, lower_check
from refcheck.frontend.raises import raise_split
from refcheck.frontend import raii
from refcheck.frontend.shallow import lending_calls
from refcheck.frontend.sizes import same_size_call
from refcheck.frontend.typedpatterns import typed_pattern
from refcheck.frontend.statics import counted_store
from refcheck.frontend.structcopy import copied_members
from refcheck.frontend.steals import format_steals, null_split, result_split
from refcheck.frontend.userdata import KEPT, UserData
from refcheck.frontend.vtables import stored_record
from refcheck.frontend.weak import forget_released, weak_address, weak_held


class CallLowering(UserData, Moves, CallResults):
    """The call half of `ExpressionLowerer` (`self.b` is its GraphBuilder)."""

    # About 100 lines: one call lowered from its summary record in the order its effects happen
    # (conditional errors, steals, positions, hand-overs, ends, results); the parts that stand
    # alone are methods below (call_effects, outputs, plain_call, ...).
    def call(self, c):
        decl, name = self.b.callee_of(c)
        held = raii.member_call(self, c, decl)  # `o.Get ()`, `o = x` on a C++ RAII holder
        if held is not False:
            return held
        loc = location(c)
        args, kids = self.callee_first(c)
        summary = self.summary_at(c, decl, name, args)
        indicator.may_set(self.b, c, loc, name, summary)
        flags = flagfail.keys_at_call(self.b, summary, args) if summary.null_when_flags else {}
        self.b.flag_sets.extend((self.b.cur, key) for key in flags)
        check = summary.error_condition
        if check is not None and check.index < len(args):
            return self.conditional_error(loc, name, args, check)
        if not summary.role and (tested := checked_condition(c, args)) is not None and not has_pointer_type(c):
            return lower_check(self, loc, name, args, tested)  # `_ok (cond, "cond", ...)`
        stolen = self.steal(loc, name, args)
        if stolen is not None:
            return stolen
        role = summary.role or macro_role(self.b, c, name)  # g_return_val_if_reached's g_log: an exit
        if role in ("acquire", "reallocate") and (
                has_scalar_type(c) or is_function_pointer(c.type)
                or (not self.b.conv.scalar_results and points_to_scalar(c)
                    and not self.b.conv.matches("memory_results", name))):
            # A status code (cudaError_t) from a function pointer named malloc, say; or a function
            # pointer (`g_steal_pointer (&notify)`): code, not an object with an owner.
            role = None
        effects = self.call_effects(c, summary, args, name)
        filled, conditional, fills, lent, replaced = self.outputs(name, args, effects, summary)
        if replaced is not None and replaced[2] is not None:
            effects[replaced[2]] = Effect.BORROW  # y: read here, retained below for x
        # `&local` registered as a weak pointer is not evaluated either: it does not escape (frontend.weak).
        filled_or_lent = (filled.keys() | lent.keys() | ({replaced[0]} if replaced else set())
                          | {i for i, (e, _) in conditional.items() if e in FILL_EFFECTS}
                          | {i for i, a in enumerate(args) if weak_address(name, i) and self.address_of_local(a)}
                          | bufferviews.view_positions(self.b, decl, name, args))  # a followed view's `&view`
        fills.update(bufferviews.parse_fills(self.b, name, args))  # `y*` and the other Py_buffer units
        values = [self.argument(a, role) if i not in filled_or_lent else None for i, a in enumerate(args)]
        maybe = self.partly_taken(decl, args, effects)  # before the callback's sink is lent away
        maybe |= source_positions(self, decl, args, effects)[1]  # an async source its callback may free
        effects, sinks, on_success = self.handed_over(c, decl, kids, name, args, effects, summary)
        effects, sinks, protocol = self.opaque_data(c, decl, name, args, values, effects, sinks)
        maybe = maybe | protocol
        conditional = {**conditional, **on_success, **bufferviews.exporter_retained(self.b, decl, name, args),
                       **bufferviews.info_stored(self.b, decl, name, args)}
        self.embedded_items(decl, args, effects, values)
        # A pointer cast to an integer for a call that keeps it is handed over all the same
        # (GLib's `g_once_init_leave (&cache, (gsize) value)`, which its macro writes).
        kept = [v for i, (v, a) in enumerate(zip(values, args))
                if i in sinks and v not in (None, NULL) and (not has_scalar_type(a) or has_pointer_type(strip(a)))]
        candidates = [i for i, (v, a) in enumerate(zip(values, args))
                      if i not in sinks and v not in (None, NULL) and not has_scalar_type(a)]
        handles = handle_positions(self.b.conv, args, candidates)  # THCState *state and the like
        positions = [i for i in candidates if i not in handles]
        pending = {values[i]: conditional[i] for i in positions if i in conditional}
        # A singleton (Py_None) a conditional steal takes (PyModule_AddObject) is handed as to a
        # sink: no reference of ours goes with it unless retained first (RC009, issue 31).
        singletons = {i for i, (e, _) in conditional.items() if e in (Effect.CONSUME, Effect.SINK)
                      and singleton_address(args[i], self.b) and not retained_next(self.b, c, args[i])}
        sunk = frozenset(values[i] for i in on_success.keys() | singletons
                         if i in positions and not self.retained_after(c, args[i]))
        self.exceptional_exits(c, loc, name, role, decl, summary, args, values)
        ended = self.position_effects(loc, name, effects, positions, values, args)
        tracked = [values[i] for i in positions if i not in ended]
        if role == "release":
            tracked = self.released_values(c, loc, name, decl, args, summary, values, positions, tracked)
        if role in ("release", "consume", "retain"):
            return self.reference_call(c, loc, name, role, tracked, summary)
        unkept = summary.unkept_positions(len(args))
        read = [i for i in positions if i not in ended]
        for i in read[1:] if role == "reallocate" else read:
            self.b.emit(ir.Use(loc, values[i], unkept=i in unkept))
        for i in maybe:  # handed to a callback that frees it on some calls: unknown after the call
            if isinstance(values[i], str) and i not in sinks:
                self.b.emit(ir.Escape(loc, values[i], given=name))
        cxx = decl is not None and kind_of(decl) == K.CXX_METHOD
        inserted = member_insert(self.b, kids, name, args) if cxx else frozenset()  # `stack.push_back (ctx)`
        self.copy_members(loc, name, args, effects, inserted)
        if kept:
            self.keep_handed(c, loc, name, decl, args, summary, effects, sinks, kept, values)
        # A conditional renew (`_PyBytes_Resize`) gives the old value up on every result; its fill splits below.
        self.renew(loc, name, [v for i, v in filled.items() if effects.get(i) is Effect.RENEW]
                   + [v for i, (e, _) in conditional.items() if e is Effect.RENEW and (v := self.out_target(args[i]))])
        self.fill(loc, name, args, filled, summary.fills_with)
        if replaced is not None:  # g_set_object (&x, y); g_clear_error (&x): y is NULL
            self.replace(loc, name, replaced[1], values[replaced[2]] if replaced[2] is not None else NULL)
        self.lend(loc, name, lent)
        lend_fields(self.b, loc, name, args)  # `&self->f` a parse output fills: a borrowed store
        if self.b.conv.matches("thread_exits", name):
            self.b.returned_constant(c, None, None)  # the thread's end: its start routine returns
            return None
        if role in ("error", "exit") or self.b.noreturn(decl):
            n = self.b.error_node(loc, name) if role == "error" else self.b.node("stop", loc, text=name)
            self.b.goto(n)
            return None
        if role == "reallocate":
            given = next((i for i, a in enumerate(args) if i not in handles and not has_scalar_type(a)), None)
            t = self.reallocation(loc, name, summary, values[given] if given in read else None)
            detach(self.b, loc, name, args, effects)
            return t
        if role == "acquire" and not self.b.borrows and (owner_acquisition(self.b, c) or finish_owned(self.b, c)):
            role = "owner"  # lowered borrowed below: its owner keeps it (ownergets; its _finish drops it: finishes)
        if role == "acquire" and not self.b.borrows and self.flag_local(summary, args) is not None:
            return self.flagged(c, loc, name, args, summary, values, positions, tracked)
        if role == "acquire" and not self.b.borrows and (tested := argument_test(self.b, summary, values)):
            return argument_split(self.b, loc, name, *tested,  # `create_indexlist (n, A)`: A where Matrix_Check (A)
                                  lambda t: self.acquired(c, loc, name, args, summary, values, tracked, flags, t))
        if role == "acquire" and not self.b.borrows:
            t = self.acquired(c, loc, name, args, summary, values, tracked, flags)
            capsules.held_if_made(self.b, loc, name, t, [values[i] for i in capsules.given_pointer(self.b, decl, name, args)])
            return t
        # A result the record (or the `borrowed` patterns) says is borrowed, whatever the unit
        # defines: tracked as a borrowed call result (RC010 when released, RC009 when handed to
        # a sink without a retain), like a bodiless getter's below.
        said = (summary.returns is Returns.BORROWED and summary.source is Source.CONFIGURED) \
            or self.b.conv.matches("borrowed", name) or role == "owner"
        if said and has_pointer_type(c) and not self.b.primitive:
            self.b.emit(ir.Call(loc, name, tuple(tracked)))
            t = self.borrowed_result(loc, name, args)
            indicator.split_result(self.b, c, loc, name, t)  # a getter's NULL is its error too
            return t
        released = bufferviews.exporter_released(self.b, decl, name, args)  # PyBuffer_Release (&view)
        if released is not None:
            self.b.emit(ir.Release(loc, (released,), name))
        return self.plain_call(c, decl, loc, name, kids, args, summary, values, positions, tracked, pending, fills,
                               conditional, sunk)

    def released_values(self, c, loc, name: str, decl, args: list, summary, values: list, positions: list,
                        tracked: list) -> list:
        """The values a release call gives up: not the references that are not the caller's, and
        of several, the name's own object (the others are read)."""
        # References that are not the caller's: the one a field's list held, unlinked just
        # before (heldelements), and a getter's extra one on what its owner keeps (ownergets).
        others = {values[i] for i in (*container_held(self.b, c, args), *owner_released(self.b, args))}
        tracked = [v for v in tracked if v not in others]
        named = (named_released(name, decl, args, [i for i in positions if values[i] in tracked])
                 if summary.source is Source.CONVENTIONS and len(tracked) > 1 else None)
        if named is None:
            return tracked
        for v in tracked:  # the name's own object; a GCancellable, a GError ** beside it are read
            if v not in {values[i] for i in named}:
                self.b.emit(ir.Use(loc, v))
        return [values[i] for i in named]

    def keep_handed(self, c, loc, name: str, decl, args: list, summary, effects: dict, sinks: set, kept: list,
                    values: list) -> None:
        """The values a call keeps (`kept`, at `sinks`) handed over, with what pays for each."""
        plain = {i: values[i] for i, e in effects.items()
                 if e in (Effect.STORE, Effect.SINK_FLOATING) and isinstance(i, int) and i < len(values)}
        floating = {values[i] for i in plain if effects[i] is Effect.SINK_FLOATING}
        # Data handed on beside its own notify parameter (`argtypes.forwarded_pair`): the duty
        # to free it goes with the pair, no reference of this function's is needed (no RC009).
        # A singleton retained by the next statement (`PyTuple_SET_ITEM (t, j, Py_None);
        # Py_INCREF (Py_None);`, python-rrdtool) is paid there: a store whose debt it pays.
        paired = {values[i] for i in sinks if isinstance(i, int) and i < len(values)
                  and (forwarded_pair(self.b.fn, args, i) or retained_next(self.b, c, args[i]))}
        leans = {values[i]: fn for i, fn in self.leaning_on(decl, args, sinks).items() if i < len(values)}
        source = kept_source(self, decl, args, sinks)  # an async call's source its callback takes
        self.hand_over(c, loc, name, args, sinks, kept, set(plain.values()), floating, summary.assumed, paired,
                       leans, frozenset(values[:1]) if source else frozenset())
        if self.b.conv.inferred is not None:
            self.b.conv.inferred.marks_read.add(name)  # the record's mark was read (driver.repeats)

    def handed_over(self, c, decl, kids, name: str, args, effects: dict, summary) -> tuple[dict, set, dict]:
        """The call's effects, the positions of the arguments it keeps (its sinks) and those it
        keeps on its success result only (position -> (Effect.SINK, When)): what the record says,
        less what it only lends, plus what a callback or a destroy notify takes."""
        # A steal by position (CPython's PyList_SET_ITEM item) or by a format's N unit hands the
        # reference over, like a sink: the new owner keeps it alive, a later release is RC006.
        sinks = ({i for i, e in effects.items() if e in KEPT and isinstance(i, int)}
                 | member_insert(self.b, kids, name, args) | format_steals(self.b, name, args, decl)
                 | owner_takes(decl, args))
        effects, sinks = self.without_lent(c, decl, args, effects, sinks)
        taken = (self.taken_by_callback(c, decl, args, effects) | self.freed_by_notify(decl, args, effects, summary)
                 | source_positions(self, decl, args, effects)[0]
                 | self.freed_by_table(decl, args, effects, summary) | self.to_itself(decl, args, effects, summary)
                 | capsules.given_context(self.b, decl, name, args))
        # A keeping call that reports failure kept nothing (cairo_surface_set_user_data returns
        # CAIRO_STATUS_NO_MEMORY, dbus_connection_set_data FALSE, without calling the destroy
        # function): where the result's type says which result is success and the caller tests
        # it, the data is handed over on that result only (PyModule_AddObject's conditional steal).
        when = success_result(c, is_boolean(c)) if taken and self.result_tested(c) else None
        if when is not None:
            return effects, sinks, {i: (Effect.SINK, when) for i in taken}
        if taken:
            effects = {**effects, **{i: Effect.SINK for i in taken}}
            sinks = set(sinks) | taken
        return effects, sinks, {}

    def opaque_data(self, c, decl, name: str, args, values: list, effects: dict, sinks: set) -> tuple[dict, set, set]:
        """Opaque user data (frontend.opaque): a value retained after the call, or before it and
        never released after, follows the program's protocol (untracked after the call: the
        positions returned); a parameter never retained here is read (its callers pay); any other
        is handed over as to a sink (RC009 where borrowed, RC006 for a release after)."""
        protocol = set()
        for i in opaque_positions(self.b, decl, name, args) - set(sinks):
            if values[i] in (None, NULL):
                continue
            before = self.retained_before(values[i])
            if self.retained_after(c, args[i]) or (before and not self.released_after(c, args[i])):
                protocol.add(i)
            elif before or named_parameter(args[i]) is None:  # a parameter not retained here: its callers pay
                effects, sinks = {**effects, i: Effect.SINK}, set(sinks) | {i}
        return effects, sinks, protocol

    def released_after(self, c, arg) -> bool:
        """The variable `arg` names is released by a call after `c` in the function's source."""
        return any(j == 0 and self.b.summary_of(*self.b.callee_of(call)).role == "release"
                   for call, j in self.later_uses(c, arg))

    def exceptional_exits(self, c, loc, name: str, role, decl, summary, args: list, values=()) -> None:
        """The edges that leave the call before it returns: a raise (unwind), a C++ throw inside a
        `try`, a longjmp back to a setjmp, each with what the call was given still owned."""
        if role not in ("error", "exit") and self.b.conv.errors == "unwind" and self.b.conv.may_raise_call(name):
            raise_split(self.b, loc, name)
        if self.b.handlers and role not in ("release", "consume", "retain") and may_throw(decl):
            i = throws_where_null(decl, may_throw, self.b.raii_cache)  # greenlet's `Require (p)`
            v = values[i] if i is not None and i < len(values) else None
            if isinstance(v, str) and v != NULL:
                null_throw_split(self.b, loc, name, v, unwind)
            else:
                throw_split(self.b, loc, name)  # before its result is bound: the catch never holds it
        if self.b.longjmp_target is not None and not context_ends(self.b, c, args) \
                and may_longjmp(self.b, decl, defined_here(decl), summary, name):
            longjmp_split(self.b, loc, name)

    def embedded_items(self, decl, args: list, effects: dict, values: list) -> None:
        """A call that keeps `&p->m`, m a struct embedded in p's own record at any offset, through
        a parameter typed as a pointer to m's own type (GLib's intrusive lists: `item->link.data
        = item; g_queue_push_tail_link (q, &item->link)`, `GList *link_`), keeps p: the node
        lives and dies with its object, so the container that holds it holds the object (glib26,
        libdex's channel receivers and scheduler items). A `gpointer` parameter (a hash table's
        key) takes an address, not a node. p a parameter is left as it was: a function linking an
        object it was lent into a set (libdex's `dex_thread_pool_worker_set_add`) records
        membership, which the object's finalize unlinks, not a reference its callers hand over;
        unless the body retained p before (`dex_ref (fiber); ... g_queue_push_tail_link (&s->q,
        &fiber->link)` in libdex's `dex_fiber_scheduler_register`): that reference of its own is
        the one the container keeps (glib28). The offset-0 case is p's own value already."""
        if Effect.STORE not in effects.values() or decl is None or kind_of(decl) != K.FUNCTION_DECL:
            return
        params = list(decl.get_arguments())
        for i, e in effects.items():
            if (e is not Effect.STORE or not isinstance(i, int) or i >= min(len(args), len(params))
                    or values[i] is not None):
                continue
            base = embedded_member_base(args[i])
            node = params[i].type.get_canonical()
            member = strip(args[i]).type.get_canonical().get_pointee()
            if (base is not None and kind_of(base) == K.DECL_REF_EXPR and node.kind == ci.TypeKind.POINTER
                    and node.get_pointee().get_canonical() == member.get_canonical()):
                v = self.b.var(referenced(base))
                if kind_of(referenced(base)) != K.PARM_DECL or self.retained_before(v):
                    values[i] = v

    def retained_before(self, v: str | None) -> bool:
        """Whether the graph built so far retains v somewhere (a reference of the body's own)."""
        return v is not None and any(type(op) is ir.Retain and op.var == v and not op.kept
                                     for d in self.b.data.values() if d is not None for op in d.ops)

    def copy_members(self, loc, name: str, args: list, effects: dict, inserted=frozenset()) -> None:
        """A call that keeps what `&s` points to, s a local struct (Effect.STORE of its address:
        `g_array_append_val (texts, text)`, which is `g_array_append_vals (texts, &text, 1)`,
        copies the struct into the array): what its members hold goes with the copy, as with
        `*out = s;` (issue 32, gdk-pixbuf's io-png.c). So does a member container's insert of
        the struct itself (`stack.push_back (ctx)`, python-rapidjson's parse contexts: `inserted`)."""
        if not self.b.members:
            return
        for i, e in effects.items():
            if e is not Effect.STORE or not isinstance(i, int) or i >= len(args):
                continue
            s = pointed_local(self.b, args[i])
            for held in self.b.members.get(s, {}).values() if s is not None else ():
                self.b.emit(ir.Store(loc, held))
        for i in sorted(inserted):
            s = plain_local(self.b, args[i]) if i < len(args) else None
            for held in self.b.members.get(s, {}).values() if s is not None else ():
                self.b.emit(ir.Store(loc, held))
        for held in copied_members(self.b, name, args):  # `memcpy (*out, &s, sizeof s)` (frontend.structcopy)
            self.b.emit(ir.Store(loc, held))

    def position_effects(self, loc, name: str, effects: dict, positions: list, values: list, args: list) -> dict:
        """A record naming positions (inferred, configured): those it gives up are released or
        consumed here, those it keeps or retains get a reference; returns the given-up ones."""
        ended = {i: e for i, e in effects.items() if i in positions and e in (Effect.RELEASE, Effect.CONSUME)}
        for i, e in ended.items():
            self.b.emit(ir.Release(loc, (values[i],), name, consume=e is Effect.CONSUME))
        forget_released(self.b, loc, [values[i] for i in ended])
        for i in positions:
            if effects.get(i) is Effect.KEEP:  # the callee refs what it keeps: ours stays ours
                lasting = i != 0 and lasting_holder(args[0])  # kept in its first argument
                self.b.emit(ir.Retain(loc, values[i], name, kept=True, lasting=lasting))
            elif effects.get(i) is Effect.RETAIN:  # a count helper's retain (acquire_state_lock)
                self.b.emit(ir.Retain(loc, values[i], name))
        return ended

    def call_effects(self, c, summary, args: list, name: str) -> dict:
        """The record's effects at this call, less what its arguments show is only read or lent."""
        effects = summary.effects(len(args))
        # A function pointer is code, not an object with an owner: a record that keeps one (an
        # inferred store of `rrc->user_callback = callback`) only reads it (glib29: grilo).
        effects = {i: Effect.BORROW if isinstance(i, int) and i < len(args) and e is not Effect.BORROW
                   and is_function_pointer(args[i].type) else e for i, e in effects.items()}
        # A floating sink's variadic positions (g_variant_new's format arguments) keep only
        # objects (GVariant *); a string or a number there is read.
        effects = {i: e for i, e in effects.items()
                   if e is not Effect.SINK_FLOATING or (isinstance(i, int) and record_pointee(args[i]))}
        # A variadic fill (g_object_get's `&out` after each property name) writes a counted
        # value only into a typed pointer: a number, a flag or a `gpointer` (G_TYPE_POINTER,
        # written as it is) holds nothing of the caller's.
        if summary.variadic and summary.variadic[1] is Effect.ACQUIRE_OUT:
            effects = {i: e for i, e in effects.items() if e is not Effect.ACQUIRE_OUT or not isinstance(i, int)
                       or i < summary.variadic[0] or receives_typed_pointer(args[i])}
        # Data given with a NULL destroy notify is only lent, whatever the record keeps; so is
        # data a helper frees on some paths only (`Summary.given_some`), where those are the
        # ones its notify is called on (`if (notify != NULL) notify (data)`: libnice's
        # `run_io_stream_test (..., l_data, NULL, r_data, NULL)`): NULL, nothing frees it. A call
        # holding a result for whoever takes it out stores it (`Conventions.held_results`).
        lent = Effect.STORE if self.b.conv.matches("held_results", name) else Effect.BORROW
        effects = {i: lent if isinstance(i, int) and unnotified(args, i) and (
                       e in KEPT or (e is Effect.RELEASE and i in summary.given_some)) else e
                   for i, e in effects.items()}
        # An inferred setter handed the address of a struct of this frame (multidict's
        # `md_init_finder (md, identity, &finder)`) stores into memory that dies with this
        # function: an alias, as a local struct's member holds one (frontend.expressions), not a
        # hand-over. Records from tables and patterns keep their stores (a container's element).
        # Not a struct whose contents a later call frees (frontend.owning: a list on the stack).
        if summary.source is Source.INFERRED and any(self.local_record_address(a) and self.address_of_local(a)
                                                     not in owning_locals(self.b) for a in args):
            effects = {i: Effect.BORROW if e is Effect.STORE else e for i, e in effects.items()}
        # An element put into a local list the function frees shallowly is lent (frontend.shallow).
        elif Effect.STORE in effects.values() and cursor_key(c) in lending_calls(self.b):
            effects = {i: Effect.BORROW if e is Effect.STORE else e for i, e in effects.items()}
        # A key or value stored into a local table that frees none (frontend.bare_tables) is lent.
        if Effect.STORE in effects.values() and (lent := lent_positions(self.b, self.b.callee_of(c)[1] or "", args)):
            effects = {i: Effect.BORROW if e is Effect.STORE and i in lent else e for i, e in effects.items()}
        # Data handed over by the constant before it (libsoup 2's SOUP_MEMORY_TAKE), whatever the record says.
        # So is the pointer before a flag telling the callee to free it (libgsf's `needs_free`).
        taken = taken_by_constant(self.b.conv, args) + taken_by_flag(self.b.conv, self.b.callee_of(c)[0], args, effects)
        return {**effects, **{i: Effect.CONSUME for i in taken}}

    def plain_call(self, c, decl, loc, name, kids, args, summary, values, positions, tracked, pending, fills,
                   conditional, sunk=frozenset()):
        """The rest of a call that neither acquires, releases nor ends the path: its Call op, a
        result it returns or splits on, and a borrowed pointer result. `sunk`: the pending
        variables kept on success by a sink (a borrowed one handed so is RC009 there)."""
        launch = any(strip(k).kind == K.CALL_EXPR and strip(k).spelling == "__cudaPushCallConfiguration"
                     for k in kids[1:])
        self.b.emit(ir.Call(loc, f"{name}<<<...>>>" if launch else name or "(indirect)", tuple(tracked)))
        same = same_size_call(self.b, c, name, args)  # resizeAs(a, b): a and b now have one size
        if same is not None:
            self.b.emit(same)
        got = self.returned_value(c, summary, values, positions)
        target = self.status_target
        status = target[1] if target is not None and target[0] == cursor_key(c) else None
        if got is not None and pending and status is None and cursor_key(c) in self.b.tested:
            # A setter returning its argument or NULL, tested (`if (set_next (node, child) ==
            # NULL)`): its conditional effects split on the pointer as on a status.
            result_split(self.b, loc, name, c, pending, None, 1, sunk=sunk)
            return None
        if got is not None:
            return got
        k = known_result(summary, args) if not (pending or fills) and has_scalar_type(c) else None
        if k is not None and (status is not None or cursor_key(c) in self.b.tested):
            constant_result(self.b, loc, name, c, status, k)  # `if (f (d, NULL) < 0)`: decided
            return None
        nulls = [v for i in summary.null_when_nonzero if i < len(values) and isinstance(v := values[i], str)]
        if nulls and not (pending or fills) and has_scalar_type(c) and (status is not None or cursor_key(c) in self.b.tested):
            null_split(self.b, loc, name, c, status, nulls[0])
            return None
        # An inferred condition may depend on the caller's arguments (`f (o, 0)` never fails): it
        # is split only where the caller tests the result; a configured one wherever it is called.
        if (pending or fills) and has_scalar_type(c) and (summary.source is not Source.INFERRED or status is not None
                                                          or cursor_key(c) in self.b.tested):
            boolean = is_boolean(c)
            error = error_out_local(self.b, args) if boolean else None
            maybe = frozenset(values[i] for i in summary.maybe_positions(len(args)) if values[i] in pending)
            result_split(self.b, loc, name, c, pending, status, 1 if boolean else -1, fills, error, sunk, maybe)
            return None
        self.fill(loc, name, args, {i: v for i, (e, _) in conditional.items()  # untested: filled, maybe NULL
                                    if e in FILL_EFFECTS and (v := self.out_target(args[i])) is not None})
        if (name and not launch and has_pointer_type(c) and not self.is_handle(c) and not defined_here(decl)
                and summary.returns is Returns.BORROWED and not untyped_unknown(c, summary)
                and not indirect_unknown(c, summary) and not opaque_unknown(c, decl, summary, self.b.conv)
                and not buffer_or_own(c, decl, args, summary)):  # `ret != buffer`'s block (frontend.ownbuffer)
            return self.borrowed_result(loc, name, args)
        return None

    def without_lent(self, c, decl, args: list, effects: dict, sinks: set) -> tuple[dict, set]:
        """The call's effects and kept positions less those it only lends: a back-pointer, async
        user data its callback neither gives up nor keeps (issue 32), an object the function
        weak-refs (frontend.weak)."""
        lent = back_pointers(self.b, args, effects) | self.lent_to_callback(c, decl, args, effects, sinks)
        lent |= {i for i in sinks if isinstance(i, int) and i < len(args) and weak_held(self.b, args[i])}
        return {i: e for i, e in effects.items() if i not in lent}, set(sinks) - lent

    def summary_at(self, c, decl, name: str, args: list):
        """The callee's record at this call: `owned_if_null` resolved by its arguments (realpath
        (p, NULL) allocates; realpath (p, buf) returns buf), a destructor's contents already
        taken through its container's field left untracked (`contents_taken`)."""
        record = self.b.summary_of(decl, name)
        # A call through a function-pointer slot the unit fills: its stored functions' join.
        record = (stored_record(self.b, c) if record.source is Source.DEFAULT else None) or record
        if record.source is Source.DEFAULT:
            record = documented_callback(self.b.conv, c) or record
        record = method_take(record, name, decl, args)  # `tmpl_scope_take (self, k, v)` keeps v
        summary = record.at_call(len(args), lambda i: is_null_constant(args[i]))
        if summary.returns is Returns.OWNED and self.contents_taken(c, record, args):
            summary = replace(summary, returns=Returns.UNKNOWN)
        return typed_pattern(self.b.conv, c, decl, summary, name) if summary.source is Source.CONVENTIONS else summary

    def contents_taken(self, c, record, args: list) -> bool:
        """A container destructor told to keep its contents (`g_ptr_array_free (ar, FALSE)`: it
        releases argument 0 and hands over what it held, `owned_if_null`), its result discarded,
        after this function read the contents through the container (`ar->pdata`): they are
        already someone's (issue 32, gom's `g_value_take_boxed (value, ar->pdata)`)."""
        return (record.owned_if_null is not None and record.effects(len(args)).get(0) is Effect.RELEASE
                and self.b.discarded == cursor_key(c) and contents_taken(self.b.fn, c, args[0]))

    def value_into(self, v: str, rhs):
        """Lower `v = rhs` for a local v: (the value, whether the call already set v), the latter
        when rhs is a success-split call (`rc = PyModule_AddObject(...)`) that wrote its 0/-1."""
        c = strip(rhs)
        if kind_of(c) != K.CALL_EXPR or has_pointer_type(c):
            return self.value(rhs), False
        self.status_target = (cursor_key(c), v)
        try:
            src = self.value(rhs)
        finally:
            self.status_target = None
        return src, self.b.status_vars.get(cursor_key(c)) == v

    def callee_first(self, c) -> tuple[list, list]:
        """A call's arguments and children; a member call's object and a call through a pointer
        are evaluated (and used) before the arguments."""
        args = arguments(c)
        kids = list(children_of(c))
        if not args and len(kids) > 1 and c.type.kind == ci.TypeKind.DEPENDENT:
            args = kids[1:]
        if kids and kind_of(strip(kids[0])) not in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF):
            callee_expr = strip(kids[0])
            if kind_of(callee_expr) == K.MEMBER_REF_EXPR:
                self.member(callee_expr)
        return args, kids

    def conditional_error(self, loc, name, args, check):
        """`_THArgCheck(..., cond, ...)`: the other arguments, then a branch to an error node."""
        for i, a in enumerate(args):
            if i != check.index:
                self.value(a)
        ok, fail = self.b.node("block"), self.b.error_node(loc, name)
        # _THArgCheck raises when its condition is false, __THCudaCheck when its status is nonzero.
        self.branch(args[check.index], *((fail, ok) if check.raises_when else (ok, fail)))
        self.b.cur = ok
        return None

    def reference_call(self, c, loc, name, role, tracked, summary):
        """A release (every tracked argument), a consume (the first: freeCopyTo(src, dst),
        move(src); the others are used; an owned result where the record says so:
        g_bytes_unref_to_data) or a retain (each; the first is the result)."""
        if role == "release":
            # Only where it says something the name does not: TH's `THFloatTensor_free
            # (THFloatTensor *)` keeps the graph a generic body's instances share.
            record = released_record(self.b.callee_of(c)[0])
            record = record if record != self.b.conv.family(name) else ""
            self.b.emit(ir.Release(loc, tuple(tracked), name, record=record))
            forget_released(self.b, loc, tracked)
            return None
        if role == "consume":
            self.b.emit(ir.Release(loc, tuple(tracked[:1]), name, consume=True))
            for v in tracked[1:]:
                self.b.emit(ir.Use(loc, v))
            if summary.returns is Returns.OWNED and has_pointer_type(c):
                return self.acquisition(c, loc, name, replace(summary, returned=None), [], [])
            return None
        static = counted_store(self.b, c) if len(tracked) == 1 else None
        for v in tracked:
            self.b.emit(ir.Retain(loc, v, name))
        if static is not None and key_of(self.b, static):
            # `else Py_INCREF (CACHE);` beside `CACHE = PyDict_New ();`: the static's count.
            self.b.emit(ir.Store(loc, tracked[0], key_of(self.b, static)[0], frozenset(expr_vars(static, self.b))))
        return tracked[0] if tracked and has_pointer_type(c) else None

    def hand_over(self, c, loc, name, args, sinks, kept, plain=frozenset(), floating=frozenset(), assumed=False,
                  paired=frozenset(), leans=None, apart=frozenset()):
        """The callee keeps these references: a hand-over, like a store.

        A setter (no pointer result) keeps the reference in the slot its other arguments name:
        THCThreadLocal_set(local, x) again with the same local overwrites it (the earlier value's
        stored copy is gone). A call returning a pointer keeps it in what it returns
        (newWithAllocator's context): a new place at each call, so no key."""
        target, deps = "", frozenset()
        if not has_pointer_type(c):
            others = [a for i, a in enumerate(args) if i not in sinks]
            target = f"{name}({', '.join(expr_text(a) for a in others)})"
            deps = frozenset(v for a in others for v in expr_vars(a, self.b))
        for k, v in enumerate(kept):
            self.b.emit(ir.Use(loc, v))
            if v in plain:  # a container's element (Effect.STORE): a new place, borrowed is fine
                held = bool(args) and 0 not in sinks and bool(expr_vars(args[0], self.b))
                self.b.emit(ir.Store(loc, v, "", frozenset(), floating=v in floating, element=held))
            else:
                # Each kept argument has a slot of its own where stores hold references
                # (`infer_setters`, the cpython preset's: PyErr_Restore (t, v, tb) keeps three; one
                # key for all would make the second store overwrite the first). Not elsewhere yet:
                # in GLib code the separate slots made parameters handed beside another argument
                # read as taken over on some paths (libnice's `agent`: 37 false findings, grilo's
                # examples: 2), a cause not yet found.
                # A value `apart` (an async call's source, kept beside its data) has its own anyway.
                slot = f"{target}#{k}" if target and len(kept) > 1 and (self.b.conv.infer_setters or v in apart) \
                    else target
                on = (leans or {}).get(v, "")  # kept for a cycle's assumed callback (`leaning_on`)
                self.b.emit(ir.Store(loc, v, slot, deps, sink=name, assumed=assumed or bool(on), paired=v in paired,
                                     leans_on=on))

    def address_of_local(self, a) -> str | None:
        """The local variable v of an argument `&v`, else None."""
        return address_of_local(self.b, a)

    def local_record_address(self, a) -> bool:
        """`&s` for s a struct (or union) variable of this function."""
        v = self.address_of_local(a)
        return v is not None and strip(a).type.get_pointee().get_canonical().kind == ci.TypeKind.RECORD
