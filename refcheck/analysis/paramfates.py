"""The effect a function's record gives each parameter, read off the fates its paths gave it (the
`Summarizer`'s per-parameter half: plain, counted and conditional effects)."""

from __future__ import annotations

from refcheck.analysis.failures import maybe_taken, taken_over
from refcheck.conventions.summary import Effect, When
from refcheck.rules.events import Nullness


class ParameterEffects:
    """Mixed into `summarize.Summarizer`, whose exploration fills the fates these read."""

    def effect(self, i: int) -> Effect | None:
        fates = self.fates[i] - {"null"}
        var = self.params_by_index[i]
        if var in self.stolen_vars and var not in self.overgiven and fates != {"released"}:
            return Effect.CONSUME  # a stolen parameter: its caller hands it over
        # In CPython code (`counts`) a helper storing a parameter it holds no reference to is a
        # store the caller settles (`SetupDictIter(obj, pc); Py_INCREF(obj);`, the store-then-INCREF
        # idiom, precision 4) or hands its own reference to: a plain store, no sink (no RC009).
        for fate, effect in (("released", Effect.RELEASE), ("consumed", Effect.CONSUME), ("sunk", self.sunk(i)),
                             ("kept", Effect.KEEP), ("floated", Effect.SINK_FLOATING)):
            if fates == {fate}:
                return effect
        if "floated" in fates and fates <= {"floated", "borrowed"}:
            # GLib's floating convention is the callee's promise to sink: one that sinks its
            # GVariant on some paths takes a floating one there, and leaves it on the others only
            # where its caller passes none (dconf_writer_complete_invocation's result, NULL with
            # an error); else the floating reference leaks in the callee, which no caller avoids.
            return Effect.SINK_FLOATING
        if fates == {"kept", "borrowed"} and self.glib and self.split(i) is None:
            # A reference of its own kept on some paths (`g_io_add_watch_full (..., g_object_ref
            # (x), g_object_unref)` after the failure exits) and nothing done on the others, no
            # result class telling them apart: the caller's reference is never taken, only lent.
            # KEEP says so (its unref after the call is right); a store without a ref of its own
            # on the kept paths would be `sunk`, and a SINK's or nothing (fixtures/glib_callee_refs.c).
            # GLib code only, where it was measured (`glib`: lends, infers no setters).
            return Effect.KEEP
        if var in self.cfg.same_guarded:
            # Stored on one result; the other's only return is where the slot holds it already
            # (`if (*target == str) return FALSE;`): the slot's either way (frontend.sameguard).
            found = self.split(i)
            if found is not None and found[0] is Effect.SINK and not found[2]:
                return Effect.SINK
        return self.counted(i)

    def sunk(self, i: int) -> Effect | None:
        """The effect of parameter i handed over by stores: a setter's STORE (cpython), none
        where it is lent (`lent`, GLib), else a SINK."""
        var = self.params_by_index[i]
        if var in self.read_only:
            return None  # `const T *`: the body promises not to write through it, so not to free it
        return Effect.STORE if var in self.setter else None if var in self.lent else Effect.SINK

    def counted(self, i: int) -> Effect | None:
        """RETAIN (RELEASE) of a parameter whose count the function only raises (lowers), on some
        paths, and leaves alone on the others: regex's acquire_state_lock/release_state_lock
        retain and release `owner` under one test of a field (`state->lock`) their callers share.
        Only a function returning nothing: a result tells its caller what happened (`return -1`
        after a release is a conditional release), and a method's count is its own to balance."""
        told = self.results - {("none",)} or any(k is not None for k in self.by_result[i])
        if not self.counts or told or i in self.faulty:
            return None  # it returns something: a method, a status; its count is its own
        fates = self.fates[i] - {"null"}
        if "retained" in fates and fates <= {"retained", "borrowed"}:
            return Effect.RETAIN
        return Effect.RELEASE if fates == {"released", "borrowed"} else None

    def settles(self, finding) -> bool:
        """A finding of a count helper's own body on the count it hands its caller: the retain
        it keeps (RC001 from that retain) or the release its twin pairs (RC006 there). Where
        steals are inferred (`counts`), also the release of a parameter its record gives up on
        one result only (`conditional`: xdg-dbus-proxy's update_socket_messages frees `buffer`
        and returns FALSE): its callers are told by that result, as they are told of a steal on
        every path, whose body owns the parameter from entry (RC006 there)."""
        for i, _ in self.params:
            e = self.counted(i) if self.effect(i) is not Effect.KEEP else None
            if e is Effect.RETAIN and finding.rule == "RC001" and finding.origin in self.where[i]:
                return True
            if finding.rule in ("RC006", "RC009") and finding.location in self.where[i] and i in self.given_some():
                return True  # a callback's data, freed on its last call: its registration's protocol
            if finding.rule in ("RC006", "RC009") and finding.location in self.where[i] and self.counts \
                    and self.split(i) == (Effect.CONSUME, self.success, False):
                return True  # taken over on success (a release here, a hand-over there): told by the result
            if finding.rule != "RC006" or finding.location not in self.where[i]:
                continue
            if e is Effect.RELEASE or (self.counts and (self.conditional(i) or (None,))[0] is Effect.RELEASE):
                return True
        return False

    def conditional(self, i: int) -> tuple[Effect, When] | None:
        """(effect, result) where parameter i is given up on every return of one constant class
        (0, or non-zero) and only there: every return returns a known constant, and on those of
        the other class it is kept, as borrowed (or NULL). A setter's store on one result only
        (multidict's `_md_add_with_hash_steal_refs` fills a table entry on 0, nothing on -1) is
        a conditional STORE; a reference of its own kept on one result (`Py_INCREF (key)` before
        that call) a conditional KEEP, whatever the other result does with its own count: a
        reference still held there is the function's own leak, reported in its body."""
        found = self.split(i)
        return found[:2] if found is not None else None

    def dropped_on_failure(self, i: int) -> bool:
        """Parameter i of a function returning a pointer is given up (released, consumed) on every
        return of a value other than NULL, and left as it came only on returns of NULL (early
        failure exits), where some return after the release may give NULL too: at-spi2-core's
        `_atspi_dbus_send_with_reply_and_block (message, error)` unrefs `message` after the call
        and returns its reply (NULL where the call failed), or NULL before the call where the
        application was disposed. No caller can read from a NULL that the reference is still its
        own, so the body owns it from entry (`stolen`): the NULL exit that keeps it nowhere is its
        own leak, RC001 there once, rather than in each caller. Not where every value returned
        after the release is known not to be NULL: then NULL does tell (realloc's "the old object
        is not deallocated" on failure, C11 7.22.3.5), unless the parameter is of another type
        than the result (`FunctionCFG.unlike_result`): then the result is never the parameter
        moved, and its NULL is only the failure to make it (at-spi2-core's `return_and_free_array
        (message, arr, ...)`: NULL where no reply could be made, else the array unreffed and the
        reply returned). Nor where a constant class tells (`conditional`), nor where a value
        return keeps it. GLib code only (`glib`): a CPython method's NULL is an exception and its
        parameters are borrowed by the calling convention (pyparted's `py_ped_device_destroy`
        releasing its `self` is RC006, not a steal; cpy27)."""
        if not self.glib or not self.cfg.returns_pointer or i in self.faulty:
            return False
        by = {k: fates - {"null"} for k, fates in self.by_null[i].items()}
        values, nulls = by[Nullness.MAYBE] | by[Nullness.NONNULL], by[Nullness.NULL]
        given = {"released", "consumed"}
        tells = by[Nullness.MAYBE] if self.params_by_index[i] not in self.cfg.unlike_result else values
        return (bool(tells & given) and values <= given
                and "borrowed" in nulls and nulls <= given | {"borrowed"})

    def maybe_given(self, i: int) -> bool:
        return (self.split(i) or (None, None, False))[2]

    def split(self, i: int) -> tuple[Effect, When, bool] | None:
        """`conditional`'s (effect, result), and whether the other may have given it up too (`maybe_given`,
        with `counts`): released on every success return (0, a truth value's TRUE) and on some others,
        or on every return of either result and handed to a keeper on some others."""
        by = self.by_result[i]
        if i in self.faulty:
            return None
        if None in by or set(by) != {When.ZERO, When.NONZERO}:
            return self.negative(i) if set(by) == {When.NONZERO} else None
        sunk, success = self.sunk(i), self.success
        for when, other in ((When.ZERO, When.NONZERO), (When.NONZERO, When.ZERO)):
            given, kept = by[when] - {"null"}, by[other] - {"null"}
            if given == {"kept"} and kept <= {"borrowed", "retained"} and self.counts:
                return Effect.KEEP, when, False
            for fate, effect in (("released", Effect.RELEASE), ("consumed", Effect.CONSUME), ("sunk", sunk)):
                # A parameter stored on one result only into memory another parameter reaches is
                # lent (`sunk` None: totem-pl-parser's `iter->data1 = playlist; return TRUE;`):
                # no effect on that result, no conditional record.
                if given == {fate} and effect is not None and kept <= {"borrowed"}:
                    return effect, when, False
                # Given up on every return of one result and handed to a keeper on some of the
                # other (`maybe_taken`): whichever is the success, the caller cannot tell the
                # other's returns apart, so the helper takes it over and a return keeping it is its leak.
                if given == {fate} != {"sunk"} and self.counts \
                        and (when is success and kept == {"borrowed", fate} or maybe_taken(kept)):
                    return effect, when, True
            if self.counts and when is success and taken_over(given, kept):
                # Released on some success returns, handed to a keeper on others (ijson's
                # `add_event_and_value`: `Py_DECREF (val)` or `PyTuple_SET_ITEM (tuple, 1, val)`
                # before its `return 1`s): taken over there, maybe given on the other result
                # where some of its returns give it up too; where none does (libsoup's
                # `soup_connection_connected`: unref, or a clear-then-store setter, before each
                # `return TRUE`; untouched before `return FALSE`), the other result keeps it.
                return Effect.CONSUME, when, bool(kept - {"borrowed"})
        return self.negative(i)

    def negative(self, i: int) -> tuple[Effect, When, bool] | None:
        """(RELEASE or CONSUME, NEGATIVE, False) where parameter i is given up on every return of
        a negative constant and kept (borrowed) on every return of 0 and of a positive one, each
        sign returned somewhere: cffi's `check_bytes_for_float_compatible (io, &value)` releases
        `io` before its `return -1` and returns 0 or 1 with it untouched; its callers test `res
        == -1` and go on using `io` on the other two. Where 0 is never returned, given up on
        every positive return and kept on every negative one is (effect, NONNEGATIVE, False):
        fastcache's `insert_first` links `key` into a node and returns 1, or returns -1."""
        by = self.by_sign[i]
        if set(by) == {-1, 1}:
            given, kept = by[1] - {"null"}, by[-1] - {"null"}
            for fate, effect in (("released", Effect.RELEASE), ("consumed", Effect.CONSUME), ("sunk", self.sunk(i))):
                if given == {fate} and effect is not None and kept <= {"borrowed"}:
                    return effect, When.NONNEGATIVE, False
            return None
        if set(by) != {-1, 0, 1}:
            return None
        given, kept = by[-1] - {"null"}, (by[0] | by[1]) - {"null"}
        for fate, effect in (("released", Effect.RELEASE), ("consumed", Effect.CONSUME)):
            if given == {fate} and kept <= {"borrowed"}:
                return effect, When.NEGATIVE, False
        return None
