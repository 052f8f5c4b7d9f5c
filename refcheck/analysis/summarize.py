"""What a function does to its caller's references, read off its own exploration (issue 26).

The worklist hands every state that ends a path (a return, the end of the body, an error call,
a stop) and every store through a parameter (`*out = ...`) to a `Summarizer`; once the function
is explored, `summary()` folds them into a `refcheck.conventions.summary.Summary` with Source.INFERRED:

- returns: OWNED when some path returns a reference the function owns (`returned`: a parameter
  it may hand back +1: a retained one, newContiguous of one); ARGUMENT when every path that
  returns a non-NULL value returns one parameter itself, unowned; BORROWED otherwise.
  unless_singleton: OWNED whose only other results are one singleton returned bare (Py_None).
  members: of a local struct returned by value, those holding an owned reference at a return.
- arguments: RELEASE (CONSUME) of a parameter released (consumed) on every returning path on
  which it is not NULL, and on one at least; SINK of one stored without a reference of its own
  (a hand-over into memory that outlives the call) on every such path; ACQUIRE_OUT of a
  parameter `p` when `*p` receives an owned reference in every state at a store that every
  reached return passes (dominance).
- ends ERROR/EXIT: no path returns, some raise (ERROR) or all stop (EXIT); may_raise: some
  path reaches an error call (unwind mode reads it).
- a parameter whose handling the body's own findings report (`faulty`: released twice, used
  after its release) gets no partial effect (count helper, conditional): the defect is the
  body's, reported there once, not echoed into correct callers.

A function not fully checked gets no summary (its states are not all known).
"""

from __future__ import annotations

from refcheck import ir

from refcheck.analysis.argtests import ArgumentTests, result_kind
from refcheck.analysis.clears import Clears, given_as_documented, released_or_kept
from refcheck.analysis.failures import success_class
from refcheck.analysis.flagresults import FlagResults
from refcheck.analysis.nullkept import NullKept
from refcheck.analysis.observer import PathObserver
from refcheck.analysis.outslots import Renewals, slot_keys
from refcheck.analysis.paramfates import ParameterEffects
from refcheck.analysis.resultfacts import ResultFacts
from refcheck.analysis.state import Kind, ObjId, State, singleton_site
from refcheck.rules.events import EventKind, Gone, Nullness, Origin
from refcheck.ir import SINGLETON_KEY
from refcheck.conventions.summary import DEFAULT, Effect, Ends, Returns, Source, Summary, When

# What the body's own findings say of a parameter's handling: released twice, used or released
# after its release (`faulty`).
_FAULTS = frozenset({EventKind.RELEASED_TWICE, EventKind.USED_AFTER_RELEASE, EventKind.RELEASED_AFTER_CONSUME})


def singleton_of(st: State, oid: ObjId) -> str | None:
    """The singleton's name when oid is one: its load, or an object this path found equal to it
    (`if (kstr == Py_None) { Py_DECREF (kstr); return Py_None; }` returns kstr's object)."""
    name = singleton_site(oid)
    if name is not None:
        return name
    for key, held in st.facts.stored.items() if st.facts.stored else ():
        if held == oid and isinstance(key, str) and key.startswith(SINGLETON_KEY):
            return key[len(SINGLETON_KEY):]
    return None


class Summarizer(NullKept, PathObserver, ParameterEffects, ResultFacts, ArgumentTests, FlagResults):
    """Collects, per path end, what happened to the parameters and what was returned."""

    def __init__(self, cfg, raises: bool = False, stolen: frozenset = frozenset(), counts: bool = False,
                 setters: bool = False, lends: bool = False, floating=None, releaser: bool = False,
                 unkept: bool = False):
        """`raises`: record may_raise (errors="unwind" with may-raise summaries, where callers
        read it); elsewhere it would only make records differ that no caller reads. `stolen`: the
        parameters the function was explored as owning (`stolen()` of a first exploration).
        `counts`: infer count helpers (`counted`; with infer_steals, the cpython preset: in TH
        code a retained parameter never freed is a leak, whatever the function returns)."""
        super().__init__()  # the sets the transfer fills (PathObserver)
        self.cfg = cfg
        self.counts = counts
        # Whether an owned object may be a floating reference (`Transfer.floating`); `floats`:
        # one returned at some path's end was.
        self.is_floating = floating
        self.floats = False
        # A releaser by name: its body is a primitive (parameters untracked); the record says
        # which parameters it hands to a release (`released_parameters`).
        self.releaser = releaser
        self.raises = raises
        self.stolen_vars = stolen
        self.params = [(i, var) for i, (var, is_ptr) in enumerate(cfg.params) if var is not None and is_ptr]
        self.index = {var: i for i, var in self.params}
        self.params_by_index = dict(self.params)
        # Per parameter index: the set of fates seen at returning ends.
        self.fates: dict[int, set] = {i: set() for i, _ in self.params}
        # Per parameter index: (the integer constant returned, or None) -> fates at those returns.
        self.by_result: dict[int, dict] = {i: {} for i, _ in self.params}
        # Per parameter index: the sign (-1, 0, 1) of the integer constant returned -> fates at
        # those returns, where every return's constant is known (`ParameterEffects.negative`).
        self.by_sign: dict[int, dict] = {i: {} for i, _ in self.params}
        # Per parameter index, of a function returning a pointer: the fates at returns of NULL,
        # of a value that may be NULL, and of one known not to be (`dropped_on_failure`).
        self.by_null: dict[int, dict] = {i: {k: set() for k in Nullness} for i, _ in self.params}
        self.consts = {n: d.const for n, d in cfg.graph.nodes(data="data") if d.kind == "return"}
        self.setters = setters
        # GLib code (steals inferred, setters not: the glib preset): `dropped_on_failure`.
        self.glib = lends and not setters
        self.documented: frozenset = frozenset()  # indices its gtk-doc says `(transfer full)`
        self.setter, self.lent, self.read_only = self.only_stored(cfg, setters, lends)
        # The parameters through which the body released (or handed over) an object it loaded (`list_delete
        # (list)` freeing `list->head`'s chain): `Summary.frees_contents`, where setters are
        # inferred (the records whose stores into a caller's struct that record settles).
        self.contents: set[int] = set()
        # Location key -> parameter index of `*p = k` integer stores (set by the exploration:
        # `transfer.flag_targets`), and per index the (result owned or borrowed, value written)
        # pairs seen at returns: `owned_by_flag`.
        self.flag_targets: dict = {}
        self.flags: dict[int, set] = {}
        self.init_argument_tests()  # `Summary.argument_when`
        self.init_flag_results()  # `Summary.owned_if_flag`
        self.init_null_kept()  # `Summary.kept_unless_null`
        self.unread: frozenset = frozenset()  # set by the exploration (`Transfer.unread`)
        # ("owned", index|None[, "held"]) ("argument", i) ("borrowed",) ("null",) ("singleton", global name)
        self.results: set = set()
        # Per owned return, whether it handed back a singleton (`Py_RETURN_NONE`): `returned`.
        self.owned_singletons: set[bool] = set()
        # Whether some return hands back a borrowed object other than the result of a call that
        # always returns NULL (`return PyErr_SetFromErrno (...)`): `null_result`, set by the exploration.
        self.lends = False
        self.null_result = lambda name: False
        self.filled_with: set = set()  # objects stored through an out-parameter (`*out = obj`)
        # The families of the owned objects its returning paths hand out (`Obj.family`).
        self.result_families: set = set()
        # Per member of a struct returned by value: what its stores at returns held ("owned",
        # "borrowed"; NULL or never set: nothing).
        self.members: dict[str, set] = {}
        self.returns: set[int] = set()  # return nodes reached
        self.errors = False
        self.stops = False
        # (node, param index) -> every state at that store handed an owned reference to *param.
        self.stores: dict[tuple[int, int], bool] = {}
        # Per parameter index: the keys of `*p` stored to; per (index, constant returned or
        # None): whether `*p` held NULL ("null"), an object ("set") or unknown at those returns.
        self.slots: dict[int, set] = slot_keys(cfg, self.index)
        self.renewals = Renewals(self.slots)  # the in-out ones (`Effect.RENEW`)
        # The parameters `*p` of which some store gave a non-NULL object the body did not own.
        self.lent_into: set[int] = set()
        # The parameters `*p` whose value on entry the body releases or hands over: a replace, no
        # fill of a slot the caller left empty (`stored_owned`).
        self.replaced: set[int] = set()
        self.slot_states: dict[tuple, set] = {}
        # Per parameter index: where it was retained (a retained fate) or released (released),
        # for the count helpers' own findings (`settles`).
        self.where: dict[int, set] = {i: set() for i, _ in self.params}
        # Whether to say which parameters the body keeps nowhere (Summary.unkept; the parameters
        # are tracked; `escaped`, PathObserver's).
        self.infer_unkept = unkept
        # The parameters (indices) whose handling the body's own findings report (`at_event`).
        self.faulty: set[int] = set()
        self.param_names = {cfg.names.get(var, var): i for i, var in self.params}
        # The parameters whose `*p` the body gives up and leaves NULL (`Effect.CLEAR`).
        self.clears = Clears(cfg, self.index)
        # The result on which a parameter given up on every such return is taken over (`split`).
        self.success = success_class(cfg) if counts else When.NONZERO if cfg.returns_truth else When.ZERO

    def only_stored(self, cfg, setters: bool, lends: bool) -> tuple[frozenset, frozenset, set]:
        """The parameters the body gives up only by stores, read off the graph before its
        exploration: a setter's (`setters`), those lent (`lends`), and the read-only ones."""
        # A node the body links into an intrusive list is the list's, a container's element
        # (frontend.intrusive): a store, neither lent nor sunk.
        setter = (self.stored_only(cfg) if setters else frozenset()) | cfg.links
        # GLib code (`lends`): a parameter only stored into memory other parameters reach (an
        # iterator's node, a back-pointer) is lent, as where such a body is not summarised at
        # all (`fixtures/glib_setters_lend.c`), whatever else the function calls; not by a
        # function taking a destroy notify, whose data is handed over with it (xb_opcode_init).
        # Nor one stored into a field whose old value the body released first (`g_clear_object
        # (&priv->c); priv->c = c;`): the field owns what it holds (`fixtures/glib_clear_then_store.c`).
        lent = self.stored_only(cfg) - cfg.replaces - cfg.links if lends and not setters and not cfg.takes_notify \
            else frozenset()
        # Pointer-to-const parameters the body gives up only by plain stores into memory (no call
        # keeps them: geocode-glib's `add_attr_string (ht, key, const gchar *value)` inserts the
        # value into a table that frees it, a hand-over through a cast): lent (`sunk`, `stolen`).
        read_only = cfg.read_only - {op.var for _, d in cfg.graph.nodes(data="data") for op in (*d.ops, *d.post)
                                     if type(op) is ir.Store and (op.sink or not op.target)}
        return setter, lent, read_only

    def at_return(self, node: int, st: State, value: str | None) -> None:
        """A returning end, before the return's own transfer (which gives the reference up)."""
        self.returns.add(node)
        oid = st.env.get(value) if value is not None else None
        if oid is not None and oid in st.objs:  # handed back: the caller's result may be it
            self.escaped.update(x.site for x in (oid, *st.objs[oid].may_be) if x.kind is Kind.PARAM)
        k = self.consts.get(node)
        if k is None and value is not None:
            k = st.facts.consts.get(value)  # `return ok;` where the path set ok = FALSE
        result = None if k is None else When.ZERO if k == 0 else When.NONZERO
        if result is None and value is not None and 0 in st.facts.excluded.get(value, ()):
            # `if (ret == 0) Py_DECREF(value); return ret;`: the other edge returns non-zero
            # (brotli's RegisterObject, emulating PyModule_AddObject over PyModule_AddObjectRef).
            result = When.NONZERO
        if result is None and oid is not None and oid.kind is Kind.PARAM and oid.site in self.index:
            # A parameter handed back where the other returns are NULL: the caller's own non-NULL
            # argument, so the non-NULL result (pyahocorasick's `trienode_set_next (node, letter,
            # child)` stores `child` and returns it, or NULL where its realloc fails).
            result = When.NONZERO
        if self.flag_targets:
            self.at_flags(st, oid)
        if self.argument_tests:
            self.at_tests(st, result_kind(st, oid, value, self.consts.get(node) == 0, self.index))
        if self.flag_tests:
            self.at_flag_return(st, oid, value is None or self.consts.get(node) == 0)
        # `return NULL;` is a constant, no object; an untracked value (a call nobody counts) may be NULL.
        nullness = Nullness.NULL if self.consts.get(node) == 0 else \
            st.objs[oid].null if oid is not None and oid in st.objs else Nullness.MAYBE
        # A known constant may be a non-number (a string literal's key, `return "none";`): no sign.
        sign = (k > 0) - (k < 0) if isinstance(k, (int, float)) else None
        for i, var in self.params:
            pid = ObjId(Kind.PARAM, var)
            fate = self.fate(st, pid)
            if var in self.unread and st.env.get(var) != pid:
                fate = "null"  # replaced before anything read it: the path never saw it (`unread`)
            if fate == "sunk" and self.glib and self.stored_with_own_ref(st.objs.get(pid)):
                fate = "kept"
            # Handing the parameter back is giving it up too, where the function owns it.
            fate = "returned" if fate in ("borrowed", "retained") and oid == pid else fate
            self.fates[i].add(fate)
            o = st.objs.get(pid)
            if fate in ("retained", "released") and o is not None:
                self.where[i].add(o.site if fate == "retained" else o.released_at)
            self.by_result[i].setdefault(result, set()).add(fate)
            self.by_sign[i].setdefault(sign, set()).add(fate)
            self.by_null[i][nullness].add(fate)
        for i, keys in self.slots.items():
            self.slot_states.setdefault((i, k), set()).add(self.slot_state(st, keys))
        self.clears.at_return(st)
        self.renewals.at_return(st, oid)
        if oid is None:
            # An untracked value (a call whose result nobody counts: g_string_free(s, FALSE)'s
            # buffer, an unknown container element) says nothing about ownership.
            self.results.add(("unknown",) if value is not None else ("none",))
            return
        o = st.objs[oid]
        if o.null == Nullness.NULL:
            self.results.add(("null",))
        elif o.owned > 0:
            # Also held by a holder that outlives the call (`Summary.result_held`): tagged.
            held = ("held",) if oid in self.held and o.shared else ()
            self.results.add(("owned", self.param_of(oid, o), *held))
            self.owned_singletons.add(singleton_of(st, oid) is not None)
            self.result_families.add(o.family)
            self.floats = self.floats or (self.is_floating is not None and self.is_floating(o))
        elif oid.kind is Kind.PARAM and oid.site in self.index:
            self.results.add(("argument", self.index[oid.site]))
        elif self.left_by_freed_holder(st, oid, o):
            # `message = builder->message; g_slice_free (builder); return message;` (libmbim's
            # command builder): the holder's reference leaves with the holder's end, to the caller.
            self.results.add(("owned", None))
        elif (name := singleton_of(st, oid)) is not None:
            # A bare `return Py_None;`: the interpreter's object, borrowed, one the caller can test.
            self.results.add(("singleton", name))
        elif oid.kind is Kind.ACQUIRE and o.shared and o.gone is Gone.NO and oid in self.in_containers \
                and oid not in self.filled_with:
            # Made here and put into a container before it is returned (`Summary.result_kept`):
            # not a plain field store (gdk-pixbuf's `pixdata->pixel_data = data; return data;`
            # hands the caller the data to free) nor a global registry (dconf's engine list).
            self.results.add(("kept",))
            self.at_kept_return(oid)
        elif self.glib and oid.kind is Kind.ACQUIRE and o.kept and not o.owned and oid in self.held \
                and oid not in self.filled_with:
            # Made here, handed to a callee that keeps a reference of its own in a holder that
            # outlives the call (a parameter's, a global's), ours dropped, then returned
            # (gnome-keyring's `gkm_secret_collection_new_item`: `add_item (self, NULL, item);
            # g_object_unref (item); return item;`): the keeper's reference, as for a container.
            self.results.add(("kept",))
            self.at_kept_return(oid)
        else:
            self.results.add(("borrowed",))
            if not (o.origin is Origin.RESULT and self.null_result(o.name)):
                self.lends = True  # a borrowed object, not an error return's NULL (`returned`)

    def at_event(self, ev) -> None:
        """An event the body's exploration reported: one that says the body mishandles a
        parameter's own reference (released twice, used after its release) marks it `faulty`."""
        o = ev.obj
        if ev.kind in _FAULTS and o.origin is Origin.PARAM and o.name in self.param_names:
            self.faulty.add(self.param_names[o.name])
        elif ev.kind is EventKind.SUNK_BORROWED and o.origin is Origin.PARAM and o.name in self.param_names:
            self.where[self.param_names[o.name]].add(ev.loc)  # `settles`, for `given_some` only

    def at_error(self) -> None:
        self.errors = True

    def at_stop(self) -> None:
        self.stops = True

    def at_store(self, node: int, st: State, through: str | None, oid: ObjId | None, target: str = "",
                 member: str = "") -> None:
        """A store through `through` (`*through = v`, at location key `target`), or of a returned
        local struct's `member`, before its transfer."""
        if through is not None and oid is not None:
            self.filled_with.add(oid)  # `*out = obj; return obj;`: no keeper's
        if member:
            o = st.objs.get(oid) if oid is not None else None
            if o is not None and o.null != Nullness.NULL:
                self.members.setdefault(member, set()).add("owned" if o.owned > 0 else "borrowed")
            return
        i = self.index.get(through)
        if i is None or st.env.get(through) != ObjId(Kind.PARAM, through):
            return
        if target:
            self.slots.setdefault(i, set()).add(target)
        owned = oid is not None and st.objs[oid].owned > 0 and st.objs[oid].null != Nullness.NULL
        if oid is not None and not owned and st.objs[oid].null != Nullness.NULL:
            self.lent_into.add(i)  # an object without a reference of its own: no kept fill
        key = (node, i)
        self.stores[key] = self.stores.get(key, True) and owned

    @staticmethod
    def slot_state(st: State, keys: set) -> str:
        """What `*p` (stored at one of `keys`) holds at a return: "null", "set" or "unknown"."""
        # The slot's own value as loaded back since (`op_load` of a location only a slot keeps):
        # tested NULL (`if (*owner == NULL) return -1;`) or released (`Py_DECREF (*owner)`).
        seen = [st.objs[f] for k in keys if (f := ObjId(Kind.FIELD, k)) in st.objs]
        if seen and all(o.null == Nullness.NULL for o in seen):
            return "null"
        if seen and all(o.gone is not Gone.NO for o in seen):
            return "gone"
        held = {st.facts.stored.get(k) for k in keys} - {None}
        if not held and any(st.facts.conds.get(k) is False for k in keys):
            return "null"  # `*p = NULL;` (ir.Store.null) on this path
        if len(held) != 1:
            return "unknown"
        o = st.objs.get(next(iter(held)))
        # `if (*result)` is a test of the location's text: its false edge says NULL too.
        if o is None or o.null == Nullness.NULL or any(st.facts.conds.get(k) is False for k in keys):
            return "unknown" if o is None else "null"
        # Released again before the return (`Py_DECREF (*owner); return -1;`): nothing held.
        return "gone" if o.owned == 0 and o.gone is not Gone.NO else "set"

    def fill_condition(self, i: int) -> When | None:
        """The result class on which `*p` holds the new reference, where it holds NULL at every
        return of the other results (PyMapping_GetOptionalItem's 1; 0 and -1 leave NULL), or
        what the function released again there (libpeas' `*params = g_new0 (...)`, `g_free
        (*params); return FALSE;`: no reference for the caller either)."""
        by = {k: v for (j, k), v in self.slot_states.items() if j == i}
        if not by or None in by:
            return None
        for when in (When.POSITIVE, When.ZERO, When.NONZERO):
            inside = [k for k in by if when.holds(k)]
            if inside and all(by[k] <= {"null", "gone"} for k in by if k not in inside) \
                    and len(inside) < len(by) and any("set" in by[k] for k in inside):
                return when
        return None

    def stored_owned(self) -> list[int]:
        """Parameters `p` whose `*p` got an owned reference at some store, never a lent object,
        and whose value on entry the body leaves alone."""
        return sorted({i for (_, i), ok in self.stores.items() if ok} - self.lent_into - self.replaced)

    def kept_condition(self, i: int) -> When | None:
        """The result class on which `*p` holds a new reference or NULL at every return (a new
        one at some), where the other results leave it as it was, NULL or released again at one
        return at least: a fill on some paths of that result only (`Summary.fills_kept`). A slot
        whose object was tested NULL or released through `*p` after its store still reads "set"
        (`op_load` loads such a slot as a location): the record then says the caller's variable
        is left as it was on that result, no fill, as callers read every such call before."""
        by = {k: v for (j, k), v in self.slot_states.items() if j == i}
        if not by or None in by or i in self.faulty:
            return None
        for when in (When.POSITIVE, When.ZERO, When.NONZERO):
            inside = [k for k in by if when.holds(k)]
            if inside and len(inside) < len(by) and all(by[k] <= {"set", "null"} for k in inside) \
                    and any("set" in by[k] for k in inside) \
                    and any(by[k] - {"set"} for k in by if k not in inside):
                return when
        return None

    def param_of(self, oid: ObjId, o) -> int | None:
        """The parameter an owned returned object may be: itself (retained) or newContiguous'ed."""
        for x in (oid, *o.may_be):
            if x.kind is Kind.PARAM and x.site in self.index:
                return self.index[x.site]
        return None

    def left_by_freed_holder(self, st: State, oid: ObjId, o) -> bool:
        """Whether the returned object was read from a field of one pointer parameter that this
        path released (a plain free of the holder, whose field's reference it did not release:
        a destructor that drops its fields leaves the object released, not borrowed). A holder
        explored as owned (`stolen`) is dropped at its release: `with_freed_holder_result`."""
        if oid.kind not in (Kind.FIELD, Kind.STALE) or o.gone is not Gone.NO or len(o.deps) != 1:
            return False
        var = next(iter(o.deps))
        return var in self.index and self.fate(st, ObjId(Kind.PARAM, var)) == "released"

    @staticmethod
    def stored_with_own_ref(o) -> bool:
        """A parameter the body retained and stored, and stored again without a second reference:
        `g_hash_table_insert (t, object, g_object_ref (object))`, or one reference for two tables
        of a pair (gnome-keyring's `take_object_ownership`). In GLib code the other stores are
        the same pointer beside the one reference the body took (a table's key that its value
        keeps alive): the caller's reference is not taken (`fixtures/glib_callee_refs.c`)."""
        return o is not None and o.owned == 0 and o.shared and o.origin is Origin.RETAIN and not o.kept

    @staticmethod
    def fate(st: State, oid: ObjId) -> str:
        o = st.objs.get(oid)
        if o is None:
            return "borrowed"  # dropped: neither released, stored nor NULL (`state.param_fate`)
        if o.null == Nullness.NULL:
            return "null"
        if o.floated:
            return "floated"  # a floating sink took it: whatever followed was the sunk reference's
        if o.owned == 0 and o.gone is Gone.RELEASED:
            return "released"
        if o.owned == 0 and o.gone is Gone.CONSUMED:
            return "consumed"
        if o.owned == 0 and o.debt:
            return "sunk"
        if o.owned == 0 and o.shared and o.origin is Origin.RETAIN:
            return "kept"  # retained, and that reference stored (`f->x = x_ref (x)`)
        if o.owned > 0 and o.origin is Origin.RETAIN and not o.shared and not o.debt:
            return "retained"  # a reference of its own still held: the caller's, or a leak
        return "borrowed"

    # -- the record -----------------------------------------------------------------------------
    def summary(self) -> Summary:
        if self.releaser:
            # All of them is what the name already says (THFree (ptr)): a record would only make
            # callers checked before it ask again (phase 2), for the same answer.
            released = self.released_parameters()
            if not released and self.frees_only_contents():
                # Explicitly borrowed: the body frees what they hold, none of them (`Conventions`).
                return Summary(arguments=tuple((i, Effect.BORROW) for i, _ in self.params), source=Source.INFERRED)
            return Summary(arguments=tuple((i, Effect.RELEASE) for i in released),
                           source=Source.INFERRED) if released and len(released) < len(self.params) else DEFAULT
        args = [(i, e) for i, _ in self.params if (e := self.effect(i)) is not None]
        fills = {i: self.fill_condition(i) for i in self.filled()}
        renewed = self.renewals.renewed(fills, self.replaced)
        args += [(i, Effect.RENEW if i in renewed else Effect.ACQUIRE_OUT) for i, w in fills.items() if w is None]
        args += [(i, Effect.CLEAR) for i in self.clears.cleared(self.faulty) if not any(a[0] == i for a in args)]
        # A store on some paths only: NULL on the other results (PyDict_GetItemRef's compat body:
        # its 1 stores the item, its 0 and -1 NULL), else left as it was there (`fills_kept`).
        partial = {i: (self.fill_condition(i), self.kept_condition(i)) for i in self.stored_owned() if i not in fills}
        kept = {i: w for i, (null, w) in partial.items() if null is None and w is not None}
        fills.update({i: null or w for i, (null, w) in partial.items() if (null or w) is not None})
        conditional = tuple((i, *c) for i, _ in self.params
                            if not any(a[0] == i for a in args) and (c := self.conditional(i)) is not None)
        conditional += tuple((i, Effect.ACQUIRE_OUT, w) for i, w in fills.items() if w is not None)
        returns, returned = self.returned()
        unless = self.unless_singleton() if returns is Returns.OWNED else None
        family, any_family = self.result_family() if returns is Returns.OWNED else (None, False)
        members = tuple(sorted((f, Returns.OWNED) for f, held in self.members.items() if held == {"owned"}))
        ends = Ends.RETURNS
        if not self.returns:
            ends = Ends.ERROR if self.errors else Ends.EXIT if self.stops else Ends.RETURNS
        named = {a[0] for a in args} | {c[0] for c in conditional}
        unkept = tuple(i for i, var in self.params if i not in named and var not in self.escaped) \
            if self.infer_unkept and self.returns else ()
        s = Summary(returns=returns, arguments=tuple(sorted(args, key=lambda a: a[0])), returned=returned,
                    ends=ends, may_raise=self.errors and self.raises, conditional=conditional,
                    unless_singleton=unless, members=members, floating=self.floats and returns is Returns.OWNED,
                    unkept=unkept, frees_contents=tuple(sorted(self.contents)),
                    owned_by_flag=self.owned_by_flag() if returns is Returns.OWNED else (),
                    argument_when=self.argument_when() if returns is Returns.OWNED and returned is None else (),
                    owned_if_flag=self.owned_if_flag() if returns is Returns.OWNED and returned is None else None,
                    kept_unless_null=self.kept_unless_null() if returns is Returns.OWNED else None,
                    fills_kept=tuple(sorted(kept)), family=family, any_family=any_family,
                    maybe_given=tuple(i for i, e, _ in conditional
                                      if e is not Effect.ACQUIRE_OUT and self.maybe_given(i)),
                    given_some=self.given_some(), leans=self.leans(args), forwards=self.forwards(args),
                    null_when_flags=self.cfg.null_when_flags, null_when_nonzero=self.null_when_nonzero(),
                    result_kept=returns is Returns.BORROWED and self.results - {("null",), ("none",)} == {("kept",)},
                    result_held=returns is Returns.OWNED and all(r[2:] for r in self.results if r[0] == "owned"),
                    source=Source.INFERRED)
        return s if s.says_something else DEFAULT

    def at_given(self, st: State, oid: ObjId) -> None:
        """An object released, or handed to a call that takes it (`memory_free (tmp)`): one loaded
        through a pointer parameter is that parameter's contents (`frees_contents`)."""
        if oid.kind is Kind.FIELD and st.facts.stored.get(oid.site) is None:
            # The caller's own `*p`, given up before this path stored into it (simplejson's
            # `json_memo_intern_key (memo, &key)` drops the old key for the canonical one).
            self.replaced.update(i for i, keys in self.slots.items() if oid.site in keys)
        self.clears.given(st, oid)
        o = st.objs.get(oid) if self.setters else None
        if o is not None and oid.kind is not Kind.PARAM and o.origin is Origin.FIELD:
            self.contents.update(self.index[v] for v in o.deps if v in self.index)

    def released_parameters(self) -> list[int]:
        """The pointer parameters a releaser's body hands to a release call itself (`g_free
        (sources)` in dconf's `verify_and_free (sources, n, expected_names, k)`), on any path."""
        given = {v for _, d in self.cfg.graph.nodes(data="data") for op in (*d.ops, *d.post)
                 if type(op) is ir.Release and not op.consume for v in op.vars}
        return [i for i, var in self.params if var in given]

    def frees_only_contents(self) -> bool:
        """A releaser by name whose body releases things, none of them a parameter or a local
        copied from one, and hands no parameter to a call that keeps it: it frees what its
        parameters hold (libnice's `discovery_free (agent)`: `g_slist_free_full
        (agent->discovery_list, ...)`, the timer source; `conn_check_free (agent)`), not them.
        A body that frees nothing visible (an indirect `self->klass->free (self)`) keeps its name's
        reading, as does one releasing a local that a parameter was copied to (`Foo *foo = data;
        ... g_free (foo);`, a GDestroyNotify's shape)."""
        if not self.params:
            return False
        ops = [op for _, d in self.cfg.graph.nodes(data="data") for op in (*d.ops, *d.post)]
        aliases = {var for _, var in self.params}
        for _ in range(len(ops)):  # locals copied from a parameter, transitively
            more = {op.dst for op in ops if type(op) is ir.Assign and op.src in aliases} - aliases
            if not more:
                break
            aliases |= more
        released = [v for op in ops if type(op) is ir.Release for v in op.vars]
        handed = any(type(op) in (ir.Store, ir.Escape) and getattr(op, "var", None) in aliases for op in ops)
        return bool(released) and not aliases & set(released) and not handed

    def stolen(self) -> frozenset:
        """The parameters the function treats as its own: given up (released or handed over) on
        some path and on every other returning path where they are not NULL given up or returned."""
        # One only ever stored into memory (`pc->dictObj = dictObj`) is no steal: a store the
        # caller settles (`effect`), which a borrowed argument followed by Py_INCREF pays.
        # A function that tells its caller nothing (no result) and hands a parameter to a keeper
        # on some paths: the caller cannot know which ran, so the parameter is the function's own
        # and a path that keeps it nowhere is the function's leak (libportal's do_print: `call`
        # handed to the async call's callback, forgotten where g_open fails), reported there.
        # Not one only stored into memory (`d->data = data` on one path: a pointer lent). The
        # user data of the caller's own callback is taken over so too, but a path that hands it
        # nowhere is no leak of this function's (`Transfer.event`, `cfg.closures`).
        silent = self.results <= {("none",)}
        # Not a `void *` of a function with a result (a source's callback returning FALSE on every
        # path, `given_some`): handed to a keeper on one branch, its data follows its protocol.
        data = self.cfg.untyped if self.cfg.returns_value else frozenset()
        # One given up on every success return and some others (`maybe_given`) too: the rest leak it.
        return frozenset(var for i, var in self.params
                         if self.maybe_given(i) or self.fates[i] & {"released", "consumed", "sunk"}
                         and (self.fates[i] <= {"released", "consumed", "sunk", "returned", "null"}
                              or (silent and var in self.partly_handed() - data
                                  and self.fates[i] <= {"sunk", "borrowed", "null"})
                              or (not self.cfg.returns_value and released_or_kept(self.fates[i]))
                              or i in self.documented and given_as_documented(self.fates[i])
                              or self.dropped_on_failure(i))
                         and not (var in self.setter | self.lent | self.read_only
                                  and self.fates[i] <= {"sunk", "null"}))

    def given_some(self) -> tuple:
        """The `void *` parameters given up on some paths and left on others, no result telling
        which (not `conditional`): a callback's data freed on its last call (`Summary.given_some`)."""
        given = {"released", "consumed", "sunk"}
        return tuple(i for i, var in self.params if var in self.cfg.untyped and self.fates[i] & given
                     and self.fates[i] - given - {"null"} and self.conditional(i) is None)

    def partly_handed(self) -> set[str]:
        """The parameters whose hand-over on some paths makes them the function's own: any keeper
        where it returns nothing (libportal's do_print), else one whose record is not a cycle's
        assumption. An int or enum result with the parameter handed to the cycle's optimistic
        record (`Summary.assumed`) on some paths only would confirm that assumption by
        itself: immutables' `map_node_find (node, shift, hash, key, val)` returns F_NOT_FOUND
        before its recursive call, and its `PyObject **val` is a slot, no reference."""
        return self.handed if not self.cfg.returns_value else self.confirmed

    def stored_only(self, cfg) -> frozenset:
        """The pointer parameters written by plain stores into memory another pointer parameter
        reaches (`pc->dictObj = dictObj`: the out-object), and kept nowhere else (a local
        struct's field, a global, a call that keeps them: a steal, a sink, an `N` format unit)."""
        plain, kept = set(), set()
        for _, d in cfg.graph.nodes(data="data"):
            for op in (*d.ops, *d.post):
                if type(op) is ir.Store and op.var in self.index:
                    out = op.target and not op.sink and any(v in self.index or v in cfg.reaching
                                                            for v in op.deps - {op.var})
                    (plain if out else kept).add(op.var)
        return frozenset(plain - kept)
