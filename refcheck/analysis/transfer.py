"""Transfer functions: one per IR op, and one per kind of node end (return, exit, branch, ...).

Each takes the state (mutated in place on a copy the caller owns) and appends typed events for
what it observed; it never names a rule and never narrates a path. `Transfer.step` runs a whole
node and returns its successors with their states.
"""

from __future__ import annotations

from dataclasses import replace

from refcheck import ir
from refcheck.analysis import bounds, sizes
from refcheck.analysis.assume import Assumptions, loop_tests, nulled_loads
from refcheck.analysis.conditions import condition_tables
from refcheck.analysis.doomed import asserted_edges, doomed_edges
from refcheck.analysis.endings import Endings
from refcheck.analysis.floating import floating_callee, sunk_in_place
from refcheck.analysis.graphtables import GraphTables
from refcheck.analysis.argtests import argument_tests
from refcheck.analysis.flagresults import flag_tests
from refcheck.analysis.unread import overwritten_unread
from refcheck.analysis.identity import IdentityTests
from refcheck.analysis.locations import Locations
from refcheck.analysis.nullness import fated_parameters
from refcheck.analysis.outslots import flag_targets
from refcheck.analysis.state import (MAX_GENERATIONS, MAX_OWNED, Bound, Facts, Kind, Obj, ObjId, State, made,
                                     param_fate, stale_view)
from refcheck.ir.cfg import FunctionCFG, FunctionRole
from refcheck.ir.digraph import out_edges
from refcheck.conventions import Conventions
from refcheck.conventions.summary import Effect, Source
from refcheck.rules.events import Event, EventKind, Gone, Nullness, Origin, Via
from refcheck.findings import Location

NULL, NONNULL, MAYBE = Nullness.NULL, Nullness.NONNULL, Nullness.MAYBE




class Transfer(Assumptions, Endings, IdentityTests, GraphTables, Locations):
    def __init__(self, cfg: FunctionCFG, conv: Conventions, relevant: set[int] | None = None,
                 untracked: frozenset = frozenset(), stolen: frozenset = frozenset()):
        """`relevant`: the branch nodes whose conditions may matter (`slicing`); None: all.
        `untracked`: variables that take no part in ownership (`slicing.untracked_values`).
        `stolen`: the parameters the function owns from its entry (`Summarizer.stolen`)."""
        self.stolen = stolen
        self.cfg = cfg
        self.untracked = untracked
        self.stale_made = False  # a view went stale on some path: keys may be renumbered (`symmetry`)
        self.conv = conv
        # Read at every step: the graph's views cost a Python call per lookup.
        self.data = dict(cfg.graph.nodes(data="data"))
        # The parameters whose fate (released, stored, NULL) a summary may read at a path's end.
        self.fated = fated_parameters(cfg)
        # Keys of the slots parameters point to (`*op` with `PyObject **op` a parameter).
        params = {p for p, _ in cfg.params}
        self.slots = frozenset(op.key for d in self.data.values() for op in (*d.ops, *d.post)
                               if type(op) is ir.Load and op.key and op.through in params)
        # Keys of the slots stored through (`*result = PyObject_GetItem(...)`): what one holds
        # is kept while it does, so that its tests and a summary read the stored object. The
        # slots a sink call keeps a reference in (not memory the function can clear): a release
        # of what they hold is never taken back from them. The locations a cleanup variable's
        # value was stored into (an alias while it holds it).
        self.out_slots, self.sink_slots, self.alias_slots = self.store_targets(params)
        # The variables a load of such a slot writes (`g_strfreev (*array)`'s argument).
        self.slot_values = frozenset(op.dst for d in self.data.values() for op in (*d.ops, *d.post)
                                     if type(op) is ir.Load and op.key in self.out_slots) if self.out_slots else frozenset()
        self.out = out_edges(cfg.graph)
        # THAlloc and THRealloc return owned memory by definition, like any new* function, and so
        # do the allocator implementations (conventions.primitive).
        # So does a function the unit's tables say returns a new reference (CPython's slots).
        self.is_new = conv.returns_owned(cfg.name) or cfg.role is FunctionRole.RETURNS_NEW
        # The implementations of release/consume/retain and of the allocators manipulate the count
        # they are handed: whether they "own" their parameter depends on the count, so we do not
        # track parameters there.
        # A destructor slot's function (tp_dealloc) frees what it is handed, whatever its name.
        self.primitive = conv.is_primitive(cfg.name) or cfg.role is FunctionRole.DESTROYS
        # A function that is a sink itself (`THStorage_newWithData` forwarding `data` to
        # newWithDataAndAllocator) hands on what its own caller handed it: no RC009 there.
        self.forwards = self.primitive or conv.is_sink(cfg.name)
        # Sees every path's end and every store through a pointer (`analysis.summarize`), or None.
        self.summarizer = None
        # The bindings' liveness (`liveness.Liveness`, the pruner's), or None: every holder counts.
        self.live = None
        # Which conditions the branches test, and which can correlate (`conditions`).
        tables = condition_tables(self.data, relevant)
        self.cond_vars, self.const_vars = tables.cond_vars, tables.const_vars
        self.stored_deps: dict[str, frozenset] = {}
        self.stored_places: dict[str, tuple] = {}  # owning field's key -> (its text, a store's place)
        self.null_tested, self.null_read = self.null_tables()
        self.pair_keys = tables.pair_keys
        self.correlated = tables.correlated  # extended below: the tables are this call's own
        self.correlated.update(loop_tests(cfg.graph, self.data, relevant))
        self.correlated.update(nulled_loads(cfg.graph, self.data))
        # `*is_copy = true;` kept to the return, whose result it may say is owned (`Summarizer.flags`).
        self.flag_targets = flag_targets(cfg, self.data) if cfg.returns_value else {}
        self.correlated.update(self.flag_targets)
        # Tests of a parameter the function may return itself, remembered to its returns (`argtests`).
        self.argument_tests = argument_tests(cfg, self.data, tables.kept)
        self.unread = overwritten_unread(cfg)  # parameters replaced before any read (`analysis.unread`)
        self.correlated.update(self.argument_tests)
        # Truth tests of an integer parameter, remembered to the returns (`flagresults`).
        self.flag_tests = flag_tests(cfg, self.data, tables.kept)
        self.correlated.update(self.flag_tests)
        self.identity_tests = self.find_identity_tests(tables.kept)
        self.correlated.update(k for keys in self.identity_tests.values() for k, _ in keys)
        # Branch edges that can only abort: the condition's temporaries die there unreported.
        self.doomed = doomed_edges(cfg, conv.errors, self.const_vars)
        # Equal edges of asserted pointer comparisons: the two sides are one object there.
        self.asserted = asserted_edges(cfg, conv.errors, self.const_vars)
        # The objects an op makes, each a function of the op, its node and what the op names
        # alone: made once and shared by every state passing there (`state.made`).
        self.made: dict = {}
        # Per node explored, its ops with their transfer functions (`_plan`).
        self.plans: dict[int, tuple] = {}

    def initial(self) -> State:
        st = State({}, {}, Facts())
        taken = self.taken_parameters()
        for i, (var, is_ptr) in enumerate(self.cfg.params):
            if var is None or not is_ptr or self.primitive:
                continue
            oid = ObjId(Kind.PARAM, var)
            st.env[var] = oid
            # Owned from entry: a parameter the function steals (inferred, cpython) or one its own
            # configured record says it takes over (a project's .gir: transfer full).
            st.objs[oid] = Obj(1 if var in self.stolen or i in taken else 0, Gone.NO, MAYBE, Origin.PARAM,
                               self.cfg.loc, self.cfg.names.get(var, var), self.cfg.entry)
        return st

    def taken_parameters(self) -> frozenset[int]:
        """The parameters this function's own record (configured: a project's .gir saying
        `(transfer full)`, a summaries table) says it takes over: its callers hand it their
        reference, so it starts owning one (to store, release or leak). The record inferred
        from this very body is not asked: that would be circular."""
        own = self.conv.summary(self.cfg.name, library=False)
        if own.source is not Source.CONFIGURED:
            return frozenset()
        return own.positions(Effect.CONSUME, len(self.cfg.params))

    # -- a node ---------------------------------------------------------------------------------
    def step(self, node: int, st: State, events: list) -> list:
        """The node's ops on `st`, which the step consumes (each work item owns its state, and
        the worklist keeps none it hands out); its successors as (node, state, edge label)."""
        data = self.data[node]
        plan = self.plans.get(node)
        if plan is None:
            plan = self.plans[node] = _plan(data.ops)
        for f, op, i in plan:
            if f(self, st, op, node, i, events) is False:
                return []  # the path ends inside the node (a NULL dereferenced)
        kind = data.kind
        ops = _OPS
        if kind in _ENDS and self.summarizer is not None:
            self.summarize_end(node, st, kind, data.value)
        if kind == "return":
            self.on_return(st, data.value, data.loc, events)
            return []
        if kind == "exit":  # the closing brace, fallen off: a return as much as `return;`
            self.dangling(st, events)
            self.on_exit(st, data.loc, Via.END, events)
            return []
        if kind == "error":
            if self.conv.errors == "unwind":
                self.on_exit(st, data.loc, Via.UNWIND, events, data.text)
            return []
        if kind == "stop":
            return []
        out = []
        edges = self.out[node]
        if kind == "branch":
            for succ, edge in edges:
                b = edge.get("branch")
                if b is None:
                    out.append((succ, st.copy(), None))
                    continue
                st2 = self.assume(st, data.cond, b)
                if st2 is None:
                    continue
                if (node, succ) in self.asserted:
                    self.equate(st2, data.cond)
                # On an edge that can only abort, the temporaries die unreported: the path ends
                # before anything is checked (what another holder keeps stays, and is checked).
                told = [] if (node, succ) in self.doomed else events
                if any(f(self, st2, op, node, -1, told) is False
                       for op in data.post if (f := ops.get(type(op))) is not None):
                    continue
                shown = edge.get("shown", b)
                out.append((succ, st2, ("true" if shown else "false", data.loc, edge.get("label") or data.text)))
        elif kind == "switch":
            cases = self.case_values(node)
            for succ, edge in edges:
                st2 = self.assume_case(st, data.value, edge, cases)
                if st2 is not None:
                    out.append((succ, st2, ("case", data.loc, edge.get("label", ""))))
        else:
            last = len(edges) - 1
            for i, (succ, edge) in enumerate(edges):
                out.append((succ, st if i == last else st.copy(), None))
        return out

    def summarize_end(self, node: int, st: State, kind: str, value: str | None) -> None:
        if kind == "return":
            self.summarizer.at_return(node, st, value)
        elif kind == "exit":
            self.summarizer.at_return(node, st, None)
        elif kind == "error":
            self.summarizer.at_error()
        else:
            self.summarizer.at_stop()

    # -- ops ------------------------------------------------------------------------------------
    def op_same_size(self, st: State, op: ir.SameSize, node: int, index: int, events: list) -> None:
        sizes.on_same_size(st, op)

    def op_count(self, st: State, op: ir.Count, node: int, index: int, events: list) -> None:
        sizes.on_count(st, op)

    def op_call(self, st: State, op: ir.Call, node: int, index: int, events: list) -> None:
        sizes.on_call(st, op, self.conv)

    def op_acquire(self, st: State, op: ir.Acquire, node: int, index: int, events: list) -> None:
        if op.source is not None and self.guarded_fresh(st, op):
            self.acquire(st, op.dst, op.loc, op.callee, node, index, op.family)
            dst = st.env[op.dst]
            st.objs[dst] = replace(st.objs[dst], fresh=True)
            return
        source = st.env.get(op.source) if op.source is not None else None
        if source is not None and self.reacquired(st, source, op.callee):
            # newContiguous of its own result: that object again, one more reference on it.
            o = st.objs[source]
            if o.null != NULL:
                st.objs[source] = replace(o, owned=min(MAX_OWNED, o.owned + 1), gone=Gone.NO)
            st.env[op.dst] = source
            return
        chain = ()
        if source is not None:
            if source.kind is Kind.PARAM or self.fresh_object(st, source):
                chain = (source,)
            elif source.kind is Kind.ACQUIRE and st.objs[source].may_be:
                chain = (source, *st.objs[source].may_be)
        self.acquire(st, op.dst, op.loc, op.callee, node, index, op.family, not op.scalars, op.nonnull)
        if op.held:  # a holder keeps its own reference too: our last release leaves it alive
            dst = st.env[op.dst]
            st.objs[dst] = replace(st.objs[dst], shared=True)
            if self.summarizer is not None:
                self.summarizer.held.add(dst)
        if chain:
            dst = st.env[op.dst]
            st.objs[dst] = replace(st.objs[dst], may_be=chain)
        elif op.fresh:
            dst = st.env[op.dst]
            st.objs[dst] = replace(st.objs[dst], fresh=True)

    def op_assign(self, st: State, op: ir.Assign, node: int, index: int, events: list) -> None:
        if op.dst in self.untracked:
            self.bind(st, op.dst, None, op.loc, False, events)
            return
        new = st.env.get(op.src) if op.src is not None else None
        if op.null:  # a known NULL, so that later tests of the variable are decided
            new = ObjId(Kind.NULL, op.dst)
            st.objs[new] = made(self.made, 0, Gone.NO, NULL, Origin.NULL, op.loc, "NULL", node)
        elif op.nonnull:  # an address inside an object (`&p->f[0]`): memory, never NULL
            new = self.fresh(st, Kind.LOAD, (node, index))
            st.objs[new] = made(self.made, 0, Gone.NO, NONNULL, Origin.FIELD, op.loc, "address", node)
        self.bind(st, op.dst, new, op.loc, not op.dst.startswith("$"), events)

    def op_kill(self, st: State, op: ir.Kill, node: int, index: int, events: list) -> None:
        self.bind(st, op.var, None, op.loc, False, events)

    def op_use(self, st: State, op: ir.Use, node: int, index: int, events: list) -> bool | None:
        oid = st.env.get(op.var)
        if oid is None:
            return None
        self.check_alive(st, oid, op.loc, Via.USE, events)
        if not op.deref:
            if not op.unkept:
                self.escape(st, oid)  # passed to a call that may keep it
            return None
        null = st.objs[oid].null
        if null == NULL:
            return False  # a NULL dereferenced: the program crashes here, no exit to check
        # Not NULL from here on, as on a null test's true edge. Only where a branch can ask
        # (a holder null-tested or compared): leak and use checks do not read nullness, and
        # refining it everywhere split the TH_TENSOR_APPLY loops' states (renorm past the bound).
        if null == MAYBE and any(v in self.null_read for v, o in st.env.items() if o == oid):
            st2 = self.assume(st, ir.NullTest(op.var), True)
            if st2 is None:
                return False
            st.env, st.objs, st.facts = st2.env, st2.objs, st2.facts
        return None

    def op_release(self, st: State, op: ir.Release, node: int, index: int, events: list) -> None:
        for oid in dict.fromkeys(st.env.get(v) for v in op.vars):
            if oid is not None:
                if self.summarizer is not None:
                    self.summarizer.at_given(st, oid)
                    if oid.kind is Kind.PARAM:
                        self.summarizer.freed.add(oid.site)
                self.release(st, oid, op, events)
        self.free_locations(st, op)

    def op_retain(self, st: State, op: ir.Retain, node: int, index: int, events: list) -> None:
        oid = st.env.get(op.var)
        if oid is None:
            return
        self.check_alive(st, oid, op.loc, Via.RETAIN, events)
        o = st.objs[oid]
        if o.null == NULL:
            # A known NULL counts nothing (`Py_XINCREF (NULL)`; a plain retain of it has no path
            # on), as its release releases nothing (`Endings.release`). Counted, each loop
            # iteration's NULL borrowed result retained (pylibmc's `key_obj = PyDict_GetItem (map,
            # k); Py_INCREF (key_obj);` on the indicator's NULL edge) stayed live past the bound.
            return
        if op.kept:  # the callee's own reference, kept by it: ours is unchanged
            st.objs[oid] = replace(o, shared=True, kept=True)
            if op.lasting and self.summarizer is not None:
                self.summarizer.held.add(oid)
            return
        sinks = self.conv.matches("ref_sink", op.callee)
        if sinks:
            if self.floating(o):
                # A floating reference sunk: still the one reference we owned, now a full one.
                st.objs[oid] = replace(o, name=op.callee)
                return
            if sunk_in_place(self.conv, self.data, st, oid):
                return  # the location's floating reference, now its full one (analysis.floating)
            if self.conv.matches("take_ref", op.callee):
                return  # take_ref of a full reference: "Otherwise, do nothing"
            if oid.kind is Kind.PARAM:
                o = replace(o, floated=True)  # the caller's reference, had it been floating, is ours
        if o.debt:  # this retain is a stored copy's reference, not ours (one per copy stored)
            st.objs[oid] = replace(o, debt=o.debt - 1, paid=min(MAX_OWNED, o.paid + 1))
            return
        keep = o.origin is Origin.ACQUIRE or o.owned
        # A location's own expression retained (`Py_XINCREF(entry->key)`), its value in no
        # variable of the user's: if the address moves on, the reference is the location's.
        located = oid.kind is Kind.FIELD and not o.owned and all(v.startswith("$") for v in st.holders(oid))
        # A reference taken of one a callee keeps while we own none (`agent_new (.., subject)`
        # keeping its own, then `g_hash_table_insert (t, g_object_ref (subject), agent)`, polkit) is
        # for the next location, not a borrowed alias of the keeper's (`locations`): `kept` cleared.
        st.objs[oid] = replace(o, owned=min(MAX_OWNED, o.owned + 1), gone=Gone.NO, by_location=located or o.by_location,
                               site=o.site if keep else op.loc, node=o.node if keep else node,
                               origin=Origin.ACQUIRE if o.origin is Origin.ACQUIRE else Origin.RETAIN,
                               kept=o.kept and o.owned > 0)

    def op_touch(self, st: State, op: ir.Touch, node: int, index: int, events: list) -> None:
        self.invalidate(st, op.var)

    def op_const(self, st: State, op: ir.Const, node: int, index: int, events: list) -> None:
        if op.var in self.const_vars and op.nonzero:
            st.facts.consts.pop(op.var, None)
            st.facts.excluded[op.var] = frozenset((0,))
        elif op.var in self.const_vars:
            st.facts.consts[op.var] = op.value
            st.facts.excluded.pop(op.var, None)  # exactly this value now

    def op_shift(self, st: State, op: ir.Shift, node: int, index: int, events: list) -> None:
        known, excluded = st.facts.consts.get(op.src), st.facts.excluded.get(op.src, frozenset())
        self.bind(st, op.dst, None, op.loc, False, events)
        # Only to a value the variable is compared with: a loop's `i = i + 1` would otherwise
        # make a state per trip (the values compared with are finite, so the states are).
        if op.dst not in self.const_vars:
            return
        compared = self.compared_values(op.dst)
        if known is not None and known + op.delta in compared:
            st.facts.consts[op.dst] = known + op.delta
        elif marks := bounds.shifted(known, excluded, op.delta, compared):
            st.facts.excluded[op.dst] = marks  # past them: which side it stays on (bounds)

    # -- helpers --------------------------------------------------------------------------------
    def event(self, kind: EventKind, via: Via, loc: Location, st: State, oid: ObjId, events: list,
              holder: str | None = None, text: str = "") -> None:
        if kind is EventKind.LOST and oid.kind is Kind.PARAM and oid.site in self.cfg.closures:
            # The user data of the caller's own callback (GLib's closure data, no destroy notify:
            # `gom_adapter_open_async (..., callback, user_data)`), taken over where it is handed
            # on with that callback: a path that hands it nowhere leaves it the caller's.
            return
        if kind is EventKind.SUNK_BORROWED and oid.kind is Kind.PARAM and oid.site in self.cfg.closures \
                and any(d == oid.site for d, _ in self.cfg.forwards):
            # Nor is it a reference when handed on with that callback by a function with a result
            # (libsoup's `..._already_in_queue (...)` returns FALSE before its `g_task_new (session,
            # cancellable, callback, user_data)`, so it takes nothing over): no RC009.
            return
        if holder is None:
            # A macro's hidden temporary (`__p` inside g_new) only when no variable of the user's
            # holds it: reserved names start with two underscores.
            named = sorted((v for v in st.holders(oid) if not v.startswith("$")), key=lambda v: v.startswith("__"))
            holder = named[0] if named else None
        events.append(Event(kind, via, loc, st.objs[oid], holder, self.is_new, text))

    def check_alive(self, st: State, oid: ObjId, loc: Location, via: Via, events: list) -> None:
        o = st.objs[oid]
        if o.owned == 0 and o.gone and o.null != NULL:
            self.event(EventKind.USED_AFTER_RELEASE, via, loc, st, oid, events)

    def floating(self, o: Obj) -> bool:
        """An owned reference that may be floating: a floating acquirer's (g_variant_new_*), a body's
        returning one unsunk (its record's `floating`), or one no table nor body describes. A table's
        owned result (g_variant_get_child_value), a sunk one, or a body's full one is a full reference."""
        return o.owned != 0 and o.origin is Origin.ACQUIRE and floating_callee(self.conv, o.name)

    def drop_ref(self, st: State, oid: ObjId, loc: Location) -> None:
        o = st.objs[oid]
        st.objs[oid] = replace(o, owned=max(0, o.owned - 1), gone=Gone.RELEASED if o.owned <= 1 else Gone.NO,
                               released_at=loc, dropped_at=loc)

    def forget(self, st: State, oid: ObjId, moved: bool = False) -> None:
        """A loaded location changed (`moved`: a variable in its address did, `entry++`): later
        loads of the same text are a different object."""
        o = st.objs.get(oid)
        if o is None:
            return
        holders = st.holders(oid)
        # Still what another location holds (`d->key = items[l]; l++; Py_INCREF (d->key)`, BTrees'
        # setstate): that location's value, whatever the index names now (`pins`). Only one
        # stored unpaid, whose retain is still to come: one whose reference the location already
        # has goes as before (kept, a loop storing each turn's retained item into one out slot
        # piled one more per turn past the generations bound: fixtures/glib_faulty_parameter.c).
        pins = self.pins(st, oid) if moved and o.owned == 0 and o.debt and not o.paid else ()
        # Retained through its location only and the address walked on (a copied table's
        # `Py_XINCREF(entry->key); entry++`): that location's reference, not ours to release.
        if not holders and not pins and (o.owned == 0 or (moved and o.by_location)):
            del st.objs[oid]
            return
        new = stale_view(st, oid, o) if moved and o.ident is not None else None
        if new is not None:  # an earlier one alike: one object from here on
            del st.objs[oid]
        else:
            new = self.fresh(st, Kind.STALE, oid.site)
            st.objs[new] = st.objs.pop(oid)
            self.stale_made = True
        for v in holders:
            st.env[v] = new
        for k in pins:
            st.facts.stored[k] = new

    @staticmethod
    def pins(st: State, oid: ObjId) -> list:
        """The stored facts whose location holds `oid` (other than its own text's)."""
        stored = st.facts.stored
        return [k for k, v in stored.items() if v == oid and k != oid.site] if stored else []

    def fresh(self, st: State, kind: Kind, site) -> ObjId:
        for k in range(MAX_GENERATIONS):
            oid = ObjId(kind, site, k)
            if oid not in st.objs:
                return oid
        raise Bound(f"more than {MAX_GENERATIONS} live objects from one site (in a loop)")

    def acquire(self, st: State, dst: str, loc: Location, callee: str, node: int, index: int,
                record: str = "", by_prefix: bool = True, nonnull: bool = False) -> None:
        oid = self.fresh(st, Kind.ACQUIRE, (node, index))
        # A family table entry (malloc, THAlloc) first, then the record type, then the name.
        key = (loc, callee, node, record, by_prefix, nonnull)
        o = self.made.get(key)
        if o is None:
            family = self.conv.family(callee, record, by_prefix)
            o = self.made[key] = Obj(1, Gone.NO, NONNULL if nonnull else MAYBE, Origin.ACQUIRE, loc, callee, node,
                                     family=family)
        st.objs[oid] = o
        st.env[dst] = oid

    def bind(self, st: State, var: str, new: ObjId | None, loc: Location, overwrite: bool, events: list) -> None:
        old = st.env.get(var)
        if new is None:
            st.env.pop(var, None)
        else:
            st.env[var] = new
        if not var.startswith("$"):
            self.invalidate(st, var)
        # invalidate() may have forgotten old itself (`col = conv (col)` in a loop: the borrowed
        # result's key names col): a FIELD object it drops or renames owes nothing lost() reports.
        if old is not None and old != new and old in st.objs:
            self.lost(st, old, loc, var if overwrite else None, events)

    def lost(self, st: State, oid: ObjId, loc: Location, overwritten: str | None, events: list) -> None:
        """`oid` lost a holder: an object nobody holds any more is dropped (and reported if owned)."""
        if st.holders(oid):
            return
        o = st.objs[oid]
        if self.findable(st, oid, o):
            return
        if oid.kind is Kind.PARAM and oid.site in self.unread:
            del st.objs[oid]  # replaced before anything read it: its caller passed none there (`unread`)
            return
        if o.owned == 1 and self.alias_slots and any(st.facts.stored.get(t) == oid for t in self.alias_slots):
            # A cleanup variable cleared while a location it was stored into still holds its
            # object (`h->kept = obj; obj = NULL;`): the location takes the reference over.
            del st.objs[oid]
            return
        if o.owned > 0 and o.null != NULL:
            if overwritten is not None:
                self.event(EventKind.OVERWRITTEN, Via.ASSIGN, loc, st, oid, events, overwritten)
            else:
                self.event(EventKind.LOST, Via.DISCARD, loc, st, oid, events)
        del st.objs[oid]

    def findable(self, st: State, oid: ObjId, o: Obj) -> bool:
        """Whether an object nobody holds is still found or read later, so is kept (`lost`)."""
        if oid.kind is Kind.FIELD and o.owned > 0:
            return True  # retained, and still reachable by loading the same expression again
        if o.owned == 0 and o.debt and (oid.kind in _RELOADABLE or oid in st.facts.stored.values()):
            return True  # stored, unpaid: a load of the location gives it back for the retain
        return (oid.site in self.fated and param_fate(oid, o)) or self.in_slot(st, oid, o)

    def collect(self, st: State, oid: ObjId) -> None:
        # Not an object a store still owes a reference (a borrowed call result stored into a
        # field before the retain through that field that pays it: precision 4).
        o = st.objs[oid]
        if not st.holders(oid) and o.owned == 0 and not o.debt and not (oid.site in self.fated and param_fate(oid, o)) \
                and not self.in_slot(st, oid, o):
            del st.objs[oid]

    def in_slot(self, st: State, oid: ObjId, o: Obj) -> bool:
        """A reference handed to a parameter's slot that still holds it (`*result = v`)."""
        return bool(self.out_slots) and o.owned == 0 and bool(o.paid) \
            and any(st.facts.stored.get(k) == oid for k in self.out_slots)

    def invalidate(self, st: State, var: str) -> None:
        # A call's result nothing was done to (a view) keeps its identity: kept apart per value
        # of its arguments, the loop of fixtures/state_bound_names.c took 5.5 times the states.
        # Not an element read in place (`PySequence_Fast_GET_ITEM (seq, i)`, `borrowed_items`):
        # a location, the next index's is another object (py-spidev's loop released each).
        for oid in [k for k, o in st.objs.items() if o.deps and var in o.deps and k.kind is Kind.FIELD
                    and not (o.origin is Origin.RESULT and o.ident is not None
                             and not self.conv.matches("borrowed_items", o.name))]:
            self.forget(st, oid, moved=True)
        dropped = st.facts.invalidate(var, self.cond_vars, self.stored_deps)
        if dropped:
            self.unpinned(st, dropped)

    def unpinned(self, st: State, oids) -> None:
        """Objects whose stored fact `var`'s change dropped: one nobody holds, stored unpaid and
        found only through that fact is gone, as `lost` drops it when its last holder goes after
        the fact (`a[i] = new_item (...)` in a loop: the store's temporary went first, then `i++`
        forgot the location; kept, each trip's item piled up past the bound of live objects)."""
        for oid in oids:
            o = st.objs.get(oid)
            if o is not None and o.owned == 0 and o.debt and not st.holders(oid) and not self.findable(st, oid, o):
                del st.objs[oid]


_ENDS = frozenset(("return", "exit", "error", "stop"))
# Found with no holder: by a location's own load text, or (a parameter) by the summary. Any other
# object stored unpaid only through a stored fact: that gone too (`a[j] = p; j++`), no retain can
# pay its debt, and kept each loop iteration's would pile up (gom's discover_cursor_mapping).
_RELOADABLE = (Kind.FIELD, Kind.PARAM)


# One transfer function per IR op, as plain functions: a table of bound methods on each Transfer
# made every one a reference cycle (the table holds the Transfer), so each function's graph, held
# by its Transfer, waited for the cyclic collector instead of being freed when its check ended.
_OPS = {
    ir.Acquire: Transfer.op_acquire, ir.Assign: Transfer.op_assign, ir.Kill: Transfer.op_kill,
    ir.Use: Transfer.op_use, ir.Release: Transfer.op_release, ir.Retain: Transfer.op_retain,
    ir.Load: Transfer.op_load, ir.Store: Transfer.op_store, ir.Escape: Transfer.op_escape,
    ir.Realloc: Transfer.op_realloc, ir.Touch: Transfer.op_touch, ir.Const: Transfer.op_const,
    ir.Shift: Transfer.op_shift,
    ir.SameSize: Transfer.op_same_size, ir.Count: Transfer.op_count, ir.Call: Transfer.op_call,
}


def _plan(ops: tuple) -> tuple:
    """A node's ops as (transfer function, op, index), those with none left out: looked up once
    per node, not once per op and state (`Transfer.step`; 118,000 ops on THTensor.c in unwind mode)."""
    return tuple((f, op, i) for i, op in enumerate(ops) if (f := _OPS.get(type(op))) is not None)
