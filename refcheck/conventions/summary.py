"""One typed record per callee: what a call does to each argument, what it returns, how it ends.

Every source of ownership knowledge writes this record: the conventions' name patterns and
tables (`Conventions.summary`), a `[tool.refcheck.summaries.NAME]` table or a generated preset
table (`records.parse_record`), and, later, the analysis of the callee's own body. The frontend lowers a
call from the record alone, so a new source of summaries needs no change to the lowering.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields, replace
from enum import Enum


class Effect(Enum):
    """What a call does to the reference passed in one argument."""

    BORROW = "borrow"  # reads it (the default)
    RELEASE = "release"  # gives up the caller's reference (free, decref)
    CONSUME = "consume"  # takes it over: no release after (move, freeCopyTo, a steal)
    SINK = "sink"  # keeps it in memory that outlives the call: a hand-over, like a store
    # Keeps it as a container keeps an element: an owned reference is handed over, a borrowed one
    # is fine (a GList of borrowed strings), exactly like a store into a field; no RC009.
    STORE = "store"
    RETAIN = "retain"  # adds a reference
    # Takes its own reference and keeps it (json_node_set_array stores json_array_ref (array)):
    # the caller's reference stays the caller's, and the object outlives the caller's release.
    KEEP = "keep"
    # Sinks a floating reference (GLib's GVariant: g_variant_builder_add_value): an owned one a
    # `floating` acquirer gave is handed over; any other is only read (the callee takes its own).
    SINK_FLOATING = "sink-floating"
    ACQUIRE_OUT = "acquire-out"  # `*arg` receives a fresh owned reference
    # `*arg` (a `T **`) gives its old reference up and receives a fresh owned one: an `(inout)`
    # parameter documented `(transfer full)` or `(transfer container)`, GObject-Introspection's
    # in-out rule (the callee takes the input value over, the caller owns the output value:
    # grilo's `filter_slow (source, &keys, FALSE)` frees `*keys` and stores a new list). On a
    # local `&x` x's old value is consumed and x holds the new one; on a forwarded parameter only
    # the fill is the caller's (as ACQUIRE_OUT); on memory nothing the caller tracks.
    RENEW = "renew"
    # `*arg` (a `T **`) gives its old reference up and holds the next argument with a reference of
    # the callee's own (GLib's g_set_object (&x, y): ref y, `*arg = y`, unref the old value). On a
    # local `&x` x now owns y; on memory (`&priv->x`) the next argument is only kept (KEEP).
    REPLACE = "replace"
    # `arg`, a node of the list the call works on, comes out unlinked: a one-node list of the
    # caller's own (GLib's g_list_remove_link (list, llink): "the removed element's prev and next
    # links are set to NULL, so that it becomes a self-contained list with one element"). On a
    # local, the local holds that fresh list; anything else is only read.
    DETACH = "detach"
    # `*arg` (a `T **`) gives its reference up and is left NULL (GLib's g_clear_error (&e), a
    # project's `dex_clear (&x)`: `obj = *p; *p = NULL; if (obj) unref (obj)`). On a local `&x`
    # x's object is released and x is NULL; on memory (`&priv->x`) nothing the caller tracks.
    CLEAR = "clear"


class When(Enum):
    """The result of the call on which a conditional argument effect happens (the other result
    leaves the argument the caller's): CPython's PyModule_AddObject steals its value when it
    returns 0, a gboolean helper that frees its buffer and returns FALSE releases it on 0."""

    ZERO = "zero"  # 0, FALSE
    NONZERO = "nonzero"  # anything else: TRUE, -1, a count
    # Above 0 (CPython's 1, "found"); the other results are 0 (absent) and -1 (error). Only an
    # out-parameter's fill: PyMapping_GetOptionalItem's `*result` is a new reference on 1 only.
    POSITIVE = "positive"
    # Below 0 (CPython's -1) where the function also returns 0 and 1: cffi's
    # `check_bytes_for_float_compatible (io, &value)` releases `io` on -1 only and keeps it on
    # 0 ("not a string") and 1 ("converted"). Read from bodies only.
    NEGATIVE = "negative"
    # 0 or above, where the function returns -1 and 1 only: fastcache's `insert_first (root, key,
    # result)` links `key` into a new node and returns 1, or returns -1 with it untouched; its
    # callers test `< 0`. Read from bodies only.
    NONNEGATIVE = "nonnegative"

    def holds(self, k: int) -> bool:
        """Whether the result `k` is of this class."""
        return (k == 0 if self is When.ZERO else k > 0 if self is When.POSITIVE
                else k < 0 if self is When.NEGATIVE else k >= 0 if self is When.NONNEGATIVE else k != 0)


# The effects a call may have on one of its results only: it gives the reference up or not.
# ACQUIRE_OUT: `*arg` receives a new reference on that result, NULL on the others.
# KEEP: the callee keeps a reference of its own on that result (the caller's stays its own).
# RENEW: `*arg`'s old reference is given up on every result, the fresh one stored on that result
# only, NULL on the others (CPython's `_PyBytes_Resize (&b, n)`: 0, or -1 with `*b` freed and NULL).
CONDITIONAL_EFFECTS = (Effect.RELEASE, Effect.CONSUME, Effect.SINK, Effect.STORE, Effect.KEEP, Effect.ACQUIRE_OUT,
                       Effect.RENEW)
# The effects that fill `*arg` (`&local` takes the call's new reference, on one result where conditional).
FILL_EFFECTS = (Effect.ACQUIRE_OUT, Effect.RENEW)
# Readable names of conditional effects, read as (and written back for) the general form.


class Returns(Enum):
    BORROWED = "borrowed"  # the caller does not own the result (also: no pointer result)
    OWNED = "owned"  # +1: fresh, unless `returned` names an argument it may hand back
    REALLOCATED = "reallocated"  # +1, replacing the first tracked argument (realloc)
    ARGUMENT = "argument"  # argument `returned` itself, ownership unchanged (retain)
    UNKNOWN = "unknown"


class Ends(Enum):
    RETURNS = "returns"
    ERROR = "error"  # raises: no cleanup needed with errors="abort", an exit with "unwind"
    EXIT = "exit"  # leaves the process


class Tracked(Enum):
    """Positions among a call's reference-carrying arguments rather than by index."""

    EVERY = "every"
    FIRST = "first"


class Source(Enum):
    CONVENTIONS = "conventions"  # the name patterns and tables
    CONFIGURED = "configured"  # a [tool.refcheck.summaries] table or a generated preset table
    INFERRED = "inferred"  # the callee's body, analysed
    DEFAULT = "default"  # nothing known: borrows everything, returns borrowed


class Counts(Enum):
    """What a declaration's name tells of the types a unit counts (`Conventions.counts`)."""
    NOTHING = 0
    RESULT = 1  # an acquirer or reallocation: its result's pointee
    ARGUMENT = 2  # a releaser or retainer: its last pointer parameter's pointee



@dataclass(frozen=True)
class ErrorCondition:
    """A call that raises when argument `index` has truth value `raises_when`, else returns."""

    index: int
    raises_when: bool


@dataclass(frozen=True)
class Summary:
    returns: Returns = Returns.BORROWED
    # (position, effect) pairs; a position not listed borrows.
    arguments: tuple = ()
    # OWNED: an argument it may hand back +1 (newContiguous); ARGUMENT: the one it returns.
    returned: int | Tracked | None = None
    ends: Ends = Ends.RETURNS
    error_condition: ErrorCondition | None = None
    may_fail: bool = False  # REALLOCATED: NULL on failure, the old block still owned
    may_raise: bool = False  # errors="unwind": the call may raise before it returns
    pure: bool = False  # no side effect on its arguments
    family: str | None = None  # acquirer/releaser family; None: any
    # Inferred from a body whose owned results come from allocators of several families, or of
    # one the caller's own reading (the result's record type, the name's prefix) does not give
    # (a helper handing out PyMem_Calloc'd `cairo_glyph_t *`): any releaser may release it.
    any_family: bool = False
    # (position, effect, When): an effect that happens only when the call's (integer) result is
    # zero, or non-zero; the position borrows on the other result. Written in `arguments`.
    conditional: tuple = ()
    # The argument indices of a conditional RELEASE or CONSUME that the other result may have
    # given up too (released on some of its returns, left on others: mwparserfromhell's
    # `Tokenizer_emit_style_tag (self, tag, ticks, body)` releases `body` on 0 and on its late
    # -1 returns only). After that result the caller's reference is unknown: not tracked, so
    # neither a leak nor a release there is reported (the callee's own leak is, in its body).
    maybe_given: tuple = ()
    # OWNED only when this argument is NULL at the call (libc's `realpath (p, NULL)`, `getcwd
    # (NULL, 0)` allocate the result); given a buffer, the call returns that buffer itself.
    owned_if_null: int | None = None
    # OWNED only where this (integer) argument is set: a 0 constant there gets NULL, nothing owned
    # (libsoup's `parse_value (&p, FALSE)` only skips the value; `analysis.flagresults`).
    owned_if_flag: int | None = None
    # OWNED only where this argument is NULL at the call; given an object, the call hands what it
    # returns to a keeper reached from it and returns the keeper's (librest's `rest_xml_node_add_child
    # (parent, tag)`: the root, or the parent's new child). Inferred (`analysis.nullkept`).
    kept_unless_null: int | None = None
    # OWNED except on the paths that return this singleton bare (simplejson's
    # encoder_encode_dict_key: `return Py_None;` after a skip): where the caller's result equals
    # it, the result is borrowed (the global's name, `_Py_NoneStruct`).
    unless_singleton: str | None = None
    # A struct returned by value: (field, Returns) of the members that hold a reference the
    # caller now owns (python-zstandard's `result.chunk = chunk; return result;`).
    members: tuple = ()
    # OWNED: the reference it returns may be floating (a g_variant_new_* result handed back
    # unsunk, GLib): a call that sinks floating references takes it over. An inferred record
    # without it returns a full one (a g_variant_ref_sink'ed or g_variant_get_variant result).
    floating: bool = False
    # The argument indices the call keeps nowhere (inferred from a body that neither stores,
    # returns, takes the address of, nor passes on to a call that may keep the parameter): the
    # pointer does not outlive the call anywhere, so a fresh object the caller passed only there
    # is still no value memory holds (xdg-dbus-proxy's `buffer_read (side, buffer, socket)`).
    unkept: tuple = ()
    # The argument indices whose pointees' objects the call releases (pyahocorasick's
    # `list_delete (&queue)` frees every item `list_append (&queue, item)` put in): a struct of
    # the caller's frame passed there owns what a setter stores into it (`frontend.owning`).
    # Stays in its own unit, as `unkept` does (`exported`).
    frees_contents: tuple = ()
    # OWNED only where the call writes this integer value through the argument at this index,
    # borrowed (the argument it may hand back, or a borrowed object) where it writes the other:
    # (index, value as a bool). pyahocorasick's `pymod_get_string (obj, &word, &len, &is_copy)`
    # returns `obj` with a reference of its own and `*is_copy = false`, or bare with `true`.
    owned_by_flag: tuple = ()
    # OWNED, except where a test of the argument at `index` holds at the call: there the call
    # returns that argument itself, no reference of the caller's (cvxopt's `create_indexlist
    # (dim, A)` hands `A` back where `Matrix_Check (A)`, a new index matrix elsewhere; its callers
    # release the result under `!Matrix_Check (A)`). (index, the test's condition key with `@`
    # for the argument); inferred from bodies (`analysis.argtests`, `frontend.argtests`).
    argument_when: tuple = ()
    # The argument indices of a conditional ACQUIRE_OUT whose `*p` holds a new reference or NULL
    # on its result and is left as it was (or released again) on the others: python-xxhash's
    # `_get_buffer_or_str (obj, buf, owner)` fills `*owner` on its unicode path, NULL on its other
    # success path, and returns -1 with `*owner` untouched or released.
    fills_kept: tuple = ()
    # (index, leader) pairs of plain ACQUIRE_OUTs: `*index` is NULL where `*leader` is (PyErr_Fetch:
    # "If the error indicator is not set, set all three variables to NULL"), else filled.
    fills_with: tuple = ()
    # A record a cycle's rounds assume or settled on (refcheck.driver.cycles), not one its body
    # alone gave: a hand-over to it is that assumption, no evidence that the caller steals
    # (`Summarizer.partly_handed`). Part of the record's equality and digest, so that a check is a
    # function of the records it asked (the cache, replayed checks, shared instances); no table
    # key, and left out of the record another unit gets (`exported`).
    assumed: bool = False
    # (index, names): a parameter this record gives up only by handing it to those records, each
    # a cycle's assumption (`Summarizer.leans`); the cycle confirms it only where one of them gives
    # something up for real (refcheck.driver.cycles). Like `assumed`, in the digest, no table key,
    # not exported.
    leans: tuple = ()
    # (index, effect): every argument from that index on, the variadic ones of `T *first, ...`,
    # has that effect (libdex's `dex_future_first (a, b, NULL)` takes every future it is given:
    # gtk-doc's `@...: (transfer full)`, or its NULL-terminated list's first element's).
    variadic: tuple = ()
    # The `void *` parameter indices the body gives up on some paths only, no result telling which:
    # a callback's data freed on its last call (grilo's relays; `frontend.userdata.partly_taken`).
    given_some: tuple = ()
    # (data, callback) index pairs: the parameter at `data` is handed to an async call as the user
    # data of the function's own callback parameter at `callback`, no destroy notify beside it
    # (libgweather's `_gweather_info_queue_request (info, msg, callback)`). Where a caller passes
    # a callback whose body neither gives its data up nor keeps it, the data is lent, whatever
    # `arguments` says (`frontend.userdata.lent_to_callback`).
    forwards: tuple = ()
    # (index, field) pairs: the call sets the integer `field` of the struct its argument at that
    # index points to (a failure flag) only on paths that return NULL, so where its result is not
    # NULL the flag is as the caller left it (mwparserfromhell's `Tokenizer_parse (self, ...)`
    # returns `Tokenizer_fail_route (self)`'s NULL after `self->route_state = 1`; its callers test
    # `BAD_ROUTE` before the result). Inferred from a body that returns a pointer
    # (`analysis.flagfail`).
    null_when_flags: tuple = ()
    # The argument indices that are NULL wherever the call returns non-zero: an integer test of
    # its argument (pylibmc's `_PylibMC_cache_miss_simulated (r)` returns 1 only where `r ==
    # NULL` and a cache-miss error is set, else 0). Where the argument is not NULL the result is
    # 0, so a caller's `if (f (val)) continue;` has nothing of val's to release on that edge.
    null_when_nonzero: tuple = ()
    # BORROWED: every object it returns is a fresh one its body handed to a keeper first (a list
    # or table that a parameter or a global holds: libnice's `priv_add_new_check_pair` inserts
    # its pair into `stream->conncheck_list`, libmbim's `transaction_new` registers what it makes
    # in its device's table, and each returns it): the keeper's reference, not the caller's.
    # Inferred; where a name's pattern alone says owned (a `_new`), the body is believed.
    result_kept: bool = False
    # OWNED, and every object it returns is also held by a holder that outlives the call, which
    # the body read it from or stored it into with a reference of the holder's own (gmpy2's
    # `GMPy_CTXT_Get`: `PyContextVar_Get`'s value, or a fresh context `PyContextVar_Set` keeps):
    # the caller's one release leaves the object alive, borrowed (later uses are no RC003, a
    # second release is still a finding). Inferred only (`Summarizer.held`).
    result_held: bool = False
    # An integer result every return of the body gives (multidict's `_md_del_at`: 0), and the
    # (index, constant) pairs of a pointer parameter whose NULL makes the body return that constant
    # (numexpr's `add_symbol (d, NULL, ...)`: 0). Read off the graph (`analysis.constresults`);
    # a caller's test of such a result is decided (`frontend.constcalls`). Stay in their unit.
    result_constant: int | None = None
    constant_if_null: tuple = ()
    source: Source = Source.DEFAULT

    def at_call(self, nargs: int, is_null) -> Summary:
        """The record at one call: resolves `owned_if_null` by `is_null(index)` (the argument is
        a NULL constant there): owned, or returning that argument (ownership unchanged)."""
        if self.kept_unless_null is not None:
            i = resolve(self.kept_unless_null, nargs)
            kept = replace(self, kept_unless_null=None)
            if i is None or not is_null(i):  # an object given: the keeper's result, borrowed
                kept = replace(kept, returns=Returns.BORROWED, returned=None, family=None, any_family=False,
                               floating=False, owned_if_null=None, owned_if_flag=None)
            return kept.at_call(nargs, is_null)
        if self.owned_if_flag is not None:
            i = resolve(self.owned_if_flag, nargs)
            flagged = replace(self, owned_if_flag=None)
            if i is not None and is_null(i):  # a 0 constant: NULL, nothing to own
                flagged = replace(flagged, returns=Returns.UNKNOWN, returned=None, owned_if_null=None)
            return flagged.at_call(nargs, is_null)
        if self.owned_if_null is None:
            return self
        i = resolve(self.owned_if_null, nargs)
        if i is not None and is_null(i):
            return replace(self, owned_if_null=None)
        if i is None:  # a call with fewer arguments than the record's: nothing to say of it
            return replace(self, returns=Returns.BORROWED, returned=None, owned_if_null=None)
        return replace(self, returns=Returns.ARGUMENT, returned=i, owned_if_null=None)

    def unkept_positions(self, nargs: int) -> frozenset[int]:
        """The indices (resolved against nargs) the call keeps nowhere."""
        return frozenset(i for p in self.unkept for i in [resolve(p, nargs)] if i is not None)

    def effect_of(self, position: int | Tracked) -> Effect | None:
        for p, e in self.arguments:
            if p == position:
                return e
        return None

    def effects(self, nargs: int) -> dict:
        """Position -> effect, integer positions resolved against nargs (out of range: dropped)."""
        out: dict = {}
        for p, e in self.arguments:
            i = p if isinstance(p, Tracked) else resolve(p, nargs)
            if i is not None:
                out[i] = e
        if self.variadic:
            for i in range(self.variadic[0], nargs):
                out.setdefault(i, self.variadic[1])
        return out

    def kept_fills(self, nargs: int) -> frozenset[int]:
        """The indices (resolved against nargs) of `fills_kept`."""
        return frozenset(i for p in self.fills_kept for i in [resolve(p, nargs)] if i is not None)

    def maybe_positions(self, nargs: int) -> frozenset[int]:
        """The indices (resolved against nargs) of `maybe_given`."""
        return frozenset(i for p in self.maybe_given for i in [resolve(p, nargs)] if i is not None)

    def conditional_effects(self, nargs: int) -> dict[int, tuple[Effect, When]]:
        """Index -> (effect, the result it happens on), resolved against nargs."""
        return {i: (e, w) for p, e, w in self.conditional for i in [resolve(p, nargs)] if i is not None}

    @property
    def says_something(self) -> bool:
        """Anything but the default record (a borrowing call that returns): worth handing on."""
        # Field by field against DEFAULT, as `replace(self, source=..., assumed=False) !=
        # DEFAULT` compares: asked at every call a graph lowers, where a replace costs ~25 us.
        return any(getattr(self, name) != getattr(DEFAULT, name) for name in _SAYING)

    def digest(self) -> str:
        """Stable text of the record, for cache keys."""
        # Every field but the source, at its value (reprs of enums, tuples and ints are stable
        # across processes), the ones at their default left out.
        text = "|".join(f"{n}={getattr(self, n)!r}" for n in _DIGESTED if getattr(self, n) != getattr(DEFAULT, n))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def positions(self, effect: Effect, nargs: int) -> frozenset[int]:
        """The argument indices (resolved against nargs) given `effect` by index."""
        said = frozenset(i for p, e in self.arguments if e is effect and isinstance(p, int)
                         for i in [resolve(p, nargs)] if i is not None)
        if self.variadic and self.variadic[1] is effect:
            # As in `effects`: a position named with its own effect keeps it.
            named = {i for p, _ in self.arguments if isinstance(p, int)
                     for i in [resolve(p, nargs)] if i is not None}
            return said | frozenset(i for i in range(self.variadic[0], nargs) if i not in named)
        return said

    @property
    def role(self) -> str | None:
        """The call's role as `Conventions.classify` has always named it (None: it borrows)."""
        if self.effect_of(Tracked.EVERY) is Effect.RELEASE:
            return "release"
        if self.effect_of(Tracked.FIRST) is Effect.CONSUME:
            return "consume"
        if self.effect_of(Tracked.EVERY) is Effect.RETAIN:
            return "retain"
        if self.returns is Returns.REALLOCATED:
            return "reallocate"
        if self.ends is not Ends.RETURNS:
            return self.ends.value
        if self.returns is Returns.OWNED:
            return "acquire"
        return None


def exported(s: Summary) -> Summary:
    """The record another unit gets: `unkept` (and `frees_contents`, `assumed`) stays in its own
    unit. Most bodies keep some
    parameter nowhere, so exported it would make nearly every record say something, and every
    unit that used one before it was known be checked again in phase 2 (gcab's units parsed
    twice); another unit's call then counts as one that may keep the pointer, as before."""
    return replace(s, unkept=(), frees_contents=(), assumed=False, leans=(), result_constant=None,
                   constant_if_null=()) \
        if s.unkept or s.frees_contents or s.assumed or s.leans or s.result_constant is not None \
        or s.constant_if_null else s


def agreed(a: Summary, b: Summary) -> Summary:
    """What two records of one name agree on (a function defined twice, in programs linked
    apart: dconf's D-Bus calls, in its library and in its tests' mock): the argument effects
    both name; the result where both say the same, else UNKNOWN (neither owned nor borrowed:
    a caller neither leaks nor over-releases it); the other fields where equal, else their
    default (may_raise where either may). Commutative and associative, so units fold in any order."""
    if a == b:
        return a
    same = _result_of(a) == _result_of(b)
    # A fill both name, with NULL elsewhere in both or left as it was in both.
    kept = tuple(i for i in a.fills_kept if i in b.fills_kept)
    differ = set(a.fills_kept) ^ set(b.fills_kept)
    return Summary(
        returns=a.returns if same else Returns.UNKNOWN, returned=a.returned if same else None,
        may_fail=a.may_fail and same, owned_if_null=a.owned_if_null if same else None,
        owned_if_flag=a.owned_if_flag if same else None,
        kept_unless_null=a.kept_unless_null if same else None,
        unless_singleton=a.unless_singleton if same else None, members=a.members if same else (),
        floating=a.floating and same,
        arguments=tuple(x for x in a.arguments if x in b.arguments),
        conditional=tuple(x for x in a.conditional if x in b.conditional and x[0] not in differ), fills_kept=kept,
        fills_with=tuple(x for x in a.fills_with if x in b.fills_with),
        maybe_given=tuple(i for i in a.maybe_given if i in b.maybe_given),
        ends=a.ends if a.ends is b.ends else Ends.RETURNS,
        error_condition=a.error_condition if a.error_condition == b.error_condition else None,
        may_raise=a.may_raise or b.may_raise, pure=a.pure and b.pure,
        family=a.family if a.family == b.family else None, any_family=a.any_family or b.any_family,
        unkept=tuple(i for i in a.unkept if i in b.unkept),
        given_some=tuple(i for i in a.given_some if i in b.given_some),
        forwards=tuple(x for x in a.forwards if x in b.forwards),
        null_when_flags=tuple(x for x in a.null_when_flags if x in b.null_when_flags),
        null_when_nonzero=tuple(i for i in a.null_when_nonzero if i in b.null_when_nonzero),
        variadic=a.variadic if a.variadic == b.variadic else (),
        result_held=a.result_held and b.result_held and same,
        argument_when=a.argument_when if same else (),
        result_constant=a.result_constant if a.result_constant == b.result_constant else None,
        constant_if_null=tuple(x for x in a.constant_if_null if x in b.constant_if_null), source=Source.INFERRED)


def with_maybe_given(first: Summary, second: Summary) -> Summary:
    """The record of a second exploration, owning the parameters the first found stolen, with
    the effects the first read for its `maybe_given` parameters: owned from entry, their
    releases leave the second nothing to tell a release on one result from a steal on all."""
    if not first.maybe_given:
        return second
    maybe = set(first.maybe_given)
    return replace(second, arguments=tuple(a for a in second.arguments if a[0] not in maybe),
                   conditional=tuple(c for c in second.conditional if c[0] not in maybe)
                   + tuple(c for c in first.conditional if c[0] in maybe),
                   maybe_given=first.maybe_given, source=Source.INFERRED)


def with_freed_holder_result(first: Summary, second: Summary, stolen: frozenset) -> Summary:
    """The second exploration's record with the first's owned result where the first read one
    and the second, owning the stolen parameters, read a borrowed one: the result is a field of a
    holder the function frees (`Summarizer.left_by_freed_holder`), which the second drops at its
    release. Only where the first saw every stolen parameter released, none handed over."""
    if first.returns is not Returns.OWNED or second.returns is not Returns.BORROWED:
        return second
    effects = dict(first.arguments)
    if not stolen or any(effects.get(i) is not Effect.RELEASE for i in stolen):
        return second
    return replace(second, returns=Returns.OWNED, returned=None, source=Source.INFERRED)


def _result_of(s: Summary) -> tuple:
    """The fields that say what a call returns."""
    return s.returns, s.returned, s.may_fail, s.owned_if_null, s.unless_singleton, s.members, s.floating, \
        s.argument_when, s.owned_if_flag, s.kept_unless_null


DEFAULT = Summary()
# The fields `says_something` compares: all but where the record came from and the cycle's mark.
_SAYING = tuple(f.name for f in fields(Summary) if f.name not in ("source", "assumed", "leans"))
_DIGESTED = tuple(f.name for f in fields(Summary) if f.name != "source")


def resolve(index: int, nargs: int) -> int | None:
    """A table index (negative counts from the end) as a 0-based position, None if out of range."""
    i = index + nargs if index < 0 else index
    return i if 0 <= i < nargs else None


class SummaryTable:
    """The inferred summaries a unit's check may use, by callee name, filling as callees are
    analysed; it notes every name asked for (where the names said nothing), so that the engine
    knows which summaries a function's check used (its cache key, a re-check when one changes).
    Mutable on purpose: one per unit, owned by the engine."""

    def __init__(self, known: dict | None = None):
        self.known: dict[str, Summary] = dict(known or {})
        self.asked: set[str] = set()
        self.ever: set[str] = set()  # every name asked for during the unit's check
        # The names at whose calls the check being made handed something over: the only place
        # the lowering reads a record's `assumed` mark (`CallLowering.hand_over`), so a check
        # that read no mark of a name is the same under that name's record marked or not
        # (`driver.repeats`). Reset with `asked`.
        self.marks_read: set[str] = set()

    def get(self, name: str) -> Summary | None:
        self.asked.add(name)
        self.ever.add(name)
        return self.known.get(name)

    def used(self, names) -> tuple[tuple[str, str], ...]:
        """(name, digest) of each name's summary now ("-": none), sorted: what a check used."""
        return tuple(sorted((n, self.known[n].digest() if n in self.known else "-") for n in names))
