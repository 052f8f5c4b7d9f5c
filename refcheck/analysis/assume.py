"""Branch edges: what taking one edge of a condition says of the state (a null test, a pointer
comparison, a status or size test, a switch case), or that the edge cannot be taken (None).

A mixin of `transfer.Transfer`, which holds the per-function tables these read (`out`,
`null_tested`, `const_vars`, `correlated`, the conventions) and the object operations they use.
"""

from __future__ import annotations

from dataclasses import replace

from refcheck import ir
from refcheck.analysis import bounds, sizes
from refcheck.analysis.state import Kind, ObjId, State
from refcheck.analysis.typefacts import learn_type, type_answer
from refcheck.ir.digraph import components
from refcheck.rules.events import Gone, Nullness, Origin

NULL, NONNULL, MAYBE = Nullness.NULL, Nullness.NONNULL, Nullness.MAYBE


# Objects that are only what a load of memory found: nothing of theirs is owned or owed here.
_VIEWS = (Kind.FIELD, Kind.STALE, Kind.LOAD)


def is_view(oid: ObjId, o) -> bool:
    """Only what a load of memory found: nothing of it owned, released or owed here."""
    return o is not None and oid.kind in _VIEWS and not (o.owned or o.gone or o.debt or o.paid)


def null_key(var: str) -> tuple:
    """The condition key of a null test of a pointer no object is tracked in (`elem` of
    `if (elem) v = new (elem); if (v == NULL || elem == NULL) ...`): its answer, remembered
    while the pointer keeps its value, decides its next test."""
    return ("null?", var)  # no C name has a "?": no pair of variables (`same_key`) is this key


def same_key(cond: ir.SameObject) -> tuple:
    return tuple(sorted((cond.a, cond.b)))


class Assumptions:
    _compared: dict | None = None

    def case_values(self, node: int) -> frozenset:
        return frozenset(e["case"] for _, e in self.out[node] if e.get("case") is not None)

    def machine_vars(self) -> tuple:
        """The variables a switch reads that a `Shift` steps from a state's value: a state machine's
        state (`explore.machine_state`). Sorted, for a stable key."""
        switched = {d.value for d in self.data.values() if d.kind == "switch" and d.value}
        stepped = {op.dst for d in self.data.values() for op in d.ops if type(op) is ir.Shift}
        return tuple(sorted(switched & stepped & self.const_vars))

    def compared_values(self, var: str) -> frozenset:
        """The constants var is compared with (its switches' cases, `var OP k` tests) or assigned:
        the values a `Shift` of it may keep known (`Transfer.op_shift`)."""
        if self._compared is None:
            found: dict[str, set] = {}
            for n, d in self.data.items():
                if d.kind == "switch" and d.value:
                    found.setdefault(d.value, set()).update(self.case_values(n))
                cond = d.cond.fallback if isinstance(d.cond, ir.SizeTest) else d.cond
                if isinstance(cond, ir.Fact) and cond.simple:
                    found.setdefault(cond.simple[0], set()).add(cond.simple[2])
                for op in d.ops:
                    if type(op) is ir.Const:
                        found.setdefault(op.var, set()).add(op.value)
            self._compared = {v: frozenset(ks) for v, ks in found.items()}
        return self._compared.get(var, frozenset())

    def assume_case(self, st: State, var: str | None, edge: dict, cases: frozenset) -> State | None:
        """The edge of a switch over `var`: a case fixes its value, default excludes all cases."""
        if var is None or var not in self.const_vars:
            return st.copy()
        known = st.facts.consts.get(var)
        excluded = st.facts.excluded.get(var, frozenset())
        value = edge.get("case")
        st2 = st.copy()
        if value is not None:
            if (known is not None and known != value) or value in excluded:
                return None
            st2.facts.consts[var] = value
            st2.facts.excluded.pop(var, None)
        else:  # default, or no case matched
            if known is not None and known in cases:
                return None
            if known is None:
                excluded = excluded | cases
                domain = edge.get("domain")  # an enum's enumerators: the value holds one of them
                if domain is not None:
                    left = domain - excluded
                    if not left:
                        return None
                    if len(left) == 1:
                        st2.facts.consts[var] = next(iter(left))
                        st2.facts.excluded.pop(var, None)
                        return st2
                st2.facts.excluded[var] = excluded
        return st2

    def assume_simple(self, st: State, simple: tuple, taken: bool):
        """True/False when constants decide `var OP k`; None when they do not."""
        var, op, k = simple
        known = st.facts.consts.get(var)
        if known is None:
            excluded = st.facts.excluded.get(var, frozenset())
            if op == "==" and k in excluded:
                return taken is False
            if op == "!=" and k in excluded:
                return taken is True
            holds = bounds.decide(excluded, op, k) if excluded else None  # a counter past k
            return None if holds is None else holds == taken
        holds = {"==": known == k, "!=": known != k, "<": known < k, ">": known > k,
                 "<=": known <= k, ">=": known >= k}[op]
        return holds == taken

    def assume(self, st: State, cond, taken: bool) -> State | None:
        """The state on the `taken` edge of a branch on `cond`; None when that edge is infeasible."""
        if isinstance(cond, ir.NullTest):
            st2 = self.assume_null(st, cond.var, taken)
            # Pointers found equal earlier (an opaque comparison's equal edge) share the answer.
            for key in [k for k, v in st.facts.conds.items() if v is True and isinstance(k, tuple) and cond.var in k]:
                if st2 is None:
                    break
                st2 = self.assume_null(st2, key[1] if key[0] == cond.var else key[0], taken)
            return st2
        return self.assume_other(st, cond, taken)

    def assume_null(self, st: State, var: str, taken: bool) -> State | None:
        """The `taken` edge of a null test of var (taken: not NULL), on a copy of st."""
        oid = st.env.get(var)
        if oid is None:  # no object: the pointer's earlier test answers, where there was one
            return self.assume_correlated(st, null_key(var), taken)
        return self.assume_null_object(st, oid, taken)

    def assume_null_object(self, st: State, oid: ObjId, taken: bool) -> State | None:
        """The `taken` edge of a null test of object oid (taken: not NULL), on a copy of st."""
        o = st.objs[oid]
        if taken:
            if o.null == NULL:
                return None
            st2 = st.copy()
            st2.objs[oid] = replace(o, null=NONNULL, link=None)
            if o.link is not None and o.link in st2.objs:  # realloc succeeded: the old block is gone
                self.drop_ref(st2, o.link, o.site)
            return st2
        if o.null == NONNULL:
            return None
        st2 = st.copy()
        st2.objs[oid] = replace(o, null=NULL, owned=0, gone=Gone.NO, link=None)
        return st2

    def assume_other(self, st: State, cond, taken: bool) -> State | None:
        if isinstance(cond, ir.SameObject):
            a, b = st.env.get(cond.a), st.env.get(cond.b)
            if a is not None and a == b:  # one object: equal, whatever else we do not know
                return st.copy() if taken else None
            for side, held in ((cond.a, b), (cond.b, a)):
                # A variable's address (`stack_buf`, `&x`) is no block an allocation returned.
                if side in cond.storage and held is not None and st.objs[held].origin is Origin.ACQUIRE:
                    return None if taken else st.copy()
            for this, other in ((a, cond.b), (b, cond.a)):
                if this is not None and st.objs[this].null == NULL:  # `t != n` with n NULL
                    return self.assume(st, ir.NullTest(other), not taken)
            if a is not None and b is not None and self.distinct(st, a, b):
                # Two different objects: equal only as two NULLs (a failed acquisition).
                if not taken:
                    return st.copy()
                return self.both_null(st, cond, False)
            key = same_key(cond)
            st2 = self.assume_correlated(st, key, taken)
            if st2 is None or not taken or a is None or b is None:
                return st2
            # Equal: one pointer value, NULL on both sides or on neither. Known nullness is
            # copied now; while both are unknown, the equality is remembered for a later null
            # test of either (`assume` of a NullTest reads it).
            na, nb = st2.objs[a].null, st2.objs[b].null
            if na != MAYBE or nb != MAYBE:
                return self.both_null(st2, cond, NONNULL in (na, nb))
            if cond.a in self.null_tested or cond.b in self.null_tested:
                st2.facts.conds[key] = True
            return st2
        if isinstance(cond, ir.Fact) and cond.simple and cond.simple[0] in self.const_vars:
            decided = self.assume_simple(st, cond.simple, taken)
            if decided is False:
                return None
            if decided is True:
                return st.copy()
            st2 = self.assume_correlated(st, cond.key, taken)
            if st2 is not None:
                learn_equality(st2, cond.simple, taken)
                learn_order(st2, cond.simple, taken, self.compared_values(cond.simple[0]))
            return st2
        if isinstance(cond, ir.Fact):
            if cond.pytype is not None:
                if (known := type_answer(st, cond.pytype)) is not None:
                    return st.copy() if known == taken else None
                st2 = self.assume_correlated(st, cond.key, taken)
                if st2 is not None:
                    learn_type(self, st2, cond.pytype, taken)
                return st2
            # A test of a location's truth where this path stored an object (`*result = f(...);
            # if (*result)`): a null test of that object too.
            held = st.facts.stored.get(cond.key) if st.facts.stored else None
            st2 = self.assume_correlated(st, cond.key, taken)
            if st2 is not None and cond.same is not None and cond.same[2] == taken:
                if self.constructed(st2, st2.env.get(cond.same[0])):
                    return None  # a constructor's new object is no singleton
                same_as_singleton(st2, cond.same, self.data)
            if held is not None and st2 is not None and held in st2.objs:
                return self.assume_null_object(st2, held, taken)
            return st2
        if isinstance(cond, ir.SizeTest):
            return sizes.assume(self, st, cond, taken)
        return st.copy()

    def equate(self, st: State, cond: ir.SameObject) -> None:
        """The equal edge of an asserted pointer comparison (`g_assert (oc->change == expected)`:
        the unequal edge only aborts, `doomed.asserted_edges`): the two pointers are one object
        on every run that goes on. A side that is only a view of memory (a loaded location this
        function owns nothing of, has released nothing of and owes nothing for) becomes the
        other side's object when that one holds a reference of ours (or is a view too): its
        holders hold that one, and a later load of its location gives it back (as a store there
        would, with no hand-over), so a release through either pointer is ours. Not a borrowed
        parameter's: a release through the location is still the location's reference, not the
        caller's. Two objects with histories of their own (an acquisition and a parameter) stay
        apart: the comparison's equality is still remembered for null tests (`assume_other`)."""
        a, b = st.env.get(cond.a), st.env.get(cond.b)
        if a is None or b is None or a == b:
            return
        for view, other in ((b, a), (a, b)):
            o = st.objs.get(view)
            if is_view(view, o) and (st.objs[other].owned or is_view(other, st.objs[other])):
                break
        else:
            return
        for v in st.holders(view):
            st.env[v] = other
        del st.objs[view]
        stored = st.facts.stored
        for k in [k for k, x in stored.items() if x == view]:
            stored[k] = other
        for k, x in list(st.objs.items()):  # what other objects say they may be, or were linked to
            if x.link == view or view in x.may_be:
                st.objs[k] = replace(x, link=other if x.link == view else x.link,
                                     may_be=tuple(other if y == view else y for y in x.may_be))
        if view.kind is Kind.FIELD:  # loading the location again finds the other object
            stored[view.site] = other
            self.stored_deps[view.site] = o.deps
        if o.null is not MAYBE and st.objs[other].null is MAYBE:
            st.objs[other] = replace(st.objs[other], null=o.null)

    def both_null(self, st: State, cond: ir.SameObject, nonnull: bool) -> State | None:
        """Both sides of a pointer comparison NULL (nonnull=False) or both not."""
        st2 = self.assume(st, ir.NullTest(cond.a), nonnull)
        return self.assume(st2, ir.NullTest(cond.b), nonnull) if st2 is not None else None

    def reacquired(self, st: State, oid: ObjId, callee: str) -> bool:
        """An acquirer that may return its argument, called on a live result of its own: it
        returns that argument (a contiguous tensor's newContiguous is itself, +1)."""
        o = st.objs[oid]
        return oid.kind is Kind.ACQUIRE and o.name == callee and not (o.gone and o.owned == 0)

    def fresh_object(self, st: State, oid: ObjId) -> bool:
        """The result of an acquirer that never hands back an object that existed before the call."""
        o = st.objs.get(oid)
        return oid.kind is Kind.ACQUIRE and o is not None and (o.fresh or self.conv.acquires_fresh(o.name))

    def constructed(self, st: State, oid: ObjId | None) -> bool:
        """oid is a live result of a library constructor (`Conventions.constructs`), or an object
        its call made anew whatever its name (`Obj.fresh`: a Py_BuildValue container)."""
        o = st.objs.get(oid) if oid is not None else None
        return o is not None and oid.kind is Kind.ACQUIRE and o.null != NULL and (o.fresh or self.conv.constructs(o.name))

    def distinct(self, st: State, a: ObjId, b: ObjId) -> bool:
        """a and b cannot be the same object: one is a fresh acquisition and the other a parameter
        (live since entry), another fresh acquisition, or the result of an acquirer that may
        return its argument (newContiguous) whose argument is distinct from it. A loaded value
        may be the fresh object stored somewhere we do not track: undecided, unless the fresh
        object never left this frame (`Obj.escaped`: never stored, its address never taken, passed
        only to calls that keep it nowhere), so no memory can hold it."""
        for x, y in ((a, b), (b, a)):
            if not self.fresh_object(st, x):
                continue
            if y.kind is Kind.PARAM or self.fresh_object(st, y):
                return True
            if y.kind is Kind.STALE and st.facts.stored.get(y.site) == x:
                # What a location held before this function stored its fresh object there
                # (`old = s->f; s->f = fresh; ... if (s->f != old)`): an object that was there first.
                return True
            if y.kind in _VIEWS and not st.objs[x].escaped:
                return True
            chain = st.objs[y].may_be if y.kind is Kind.ACQUIRE else ()
            if chain and x not in chain:
                return True
        return False

    def assume_correlated(self, st: State, key, taken: bool) -> State | None:
        if key not in self.correlated:
            return st.copy()
        known = st.facts.conds.get(key)
        if known is not None:
            return st.copy() if known == taken else None
        st2 = st.copy()
        st2.facts.conds[key] = taken
        return st2


def learn_equality(st: State, simple: tuple, taken: bool) -> None:
    """What an undecided `var == k` / `var != k` edge says of var, for later tests of var under
    another spelling: `if (err != cudaSuccess) ...; THCudaCheck(err)` tests err != 0 twice."""
    var, op, k = simple
    if op not in ("==", "!="):
        return
    if (op == "==") == taken:
        st.facts.consts[var] = k
        st.facts.excluded.pop(var, None)
    else:
        st.facts.excluded[var] = st.facts.excluded.get(var, frozenset()) | {k}


_ORDER = {"<": lambda a, b: a < b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}


def learn_order(st: State, simple: tuple, taken: bool, compared: frozenset) -> None:
    """What an undecided `var < k` (`>`, `<=`, `>=`) edge says of var: none of the constants it is
    compared with or assigned elsewhere that the edge rules out, so that `if (n < 0) ...; else if
    ...; if (n == 0)` does not take the equal edge after `n < 0` (libnice's n_sent)."""
    var, op, k = simple
    holds = _ORDER.get(op)
    if holds is None:
        return
    ruled_out = frozenset(c for c in compared if holds(c, k) != taken)
    if ruled_out:
        st.facts.excluded[var] = st.facts.excluded.get(var, frozenset()) | ruled_out


def loop_tests(g, data: dict, relevant) -> set:
    """The keys of conditions tested at a branch inside a loop whose edges both stay in it (`if
    (self->reader)` in a body that `goto`es back): its next trip tests the same, unchanged text
    again, so it correlates with itself as two sites do. A loop's own exit test is not one (the
    exit edge leaves): remembered, a field the body changes through a call would never let the
    loop end. The (node, key) pairs are found once per graph (`DiGraph.memo`: the return
    witness's transfer asks for every branch, the exploration's for the relevant ones)."""
    memo = getattr(g, "memo", None)
    found = memo("loop_tests", lambda g: _loop_tests(g, data)) if memo is not None else _loop_tests(g, data)
    return {key for n, key in found if relevant is None or n in relevant}


def _loop_tests(g, data: dict) -> tuple:
    out = []
    scc = None
    for n, d in data.items():
        cond = d.cond
        if isinstance(cond, ir.SizeTest):
            cond = cond.fallback
        if not isinstance(cond, ir.Fact):
            continue
        if scc is None:
            scc = components(g)
        succ = list(g.successors(n))
        if len(succ) > 1 and all(scc[s] == scc[n] for s in succ):
            out.append((n, cond.key))
    return tuple(out)


def nulled_loads(g, data: dict) -> set:
    """The keys of fields the function sets to NULL and retains through after (`self->f = NULL;
    if (x) self->f = x; Py_XINCREF (self->f);`, zope.i18nmessageid's Message_new): remembered,
    the load on the path that stored NULL reads NULL, not an unknown object the retain would own.
    Only a load the NULL store reaches and a retain takes counts: a field loaded to be released
    needs no nullness (a release of an unknown field is no finding), and remembering every one
    split a tp_clear's states per `Py_CLEAR` (2^n: cpython_helpers.c's fixture_clear went from
    178 to 13,062 states; cpython_cleared_in_loop.c's loop from 96 to 472)."""
    memo = getattr(g, "memo", None)
    return set(memo("nulled_loads", lambda g: _nulled_loads(g, data)) if memo is not None
               else _nulled_loads(g, data))


def _nulled_loads(g, data: dict) -> tuple:
    nulled: dict = {}  # key -> [(node, op index)]
    loaded: dict = {}  # key -> {node: its last retained load's op index}
    retained = {op.var for d in data.values() for op in d.ops if type(op) is ir.Retain}
    for n, d in data.items():
        for i, op in enumerate(d.ops):
            t = type(op)
            if t is ir.Store and op.null and op.target and op.through is None:
                nulled.setdefault(op.target, []).append((n, i))
            elif t is ir.Load and op.key and not op.call and op.dst in retained:
                loaded.setdefault(op.key, {})[n] = i
    out = []
    for key in nulled.keys() & loaded.keys():
        at = loaded[key]
        if any(_reaches(g, n, i, at) for n, i in nulled[key]):
            out.append(key)
    return tuple(out)


def _reaches(g, node, index: int, at: dict) -> bool:
    """Whether a load in `at` (node -> its last load's op index) follows op `index` of `node`."""
    if at.get(node, -1) > index:
        return True
    seen, todo = set(), list(g.successors(node))
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        if n in at:
            return True
        seen.add(n)
        todo.extend(g.successors(n))
    return False


def same_as_singleton(st: State, same: tuple, data: dict) -> None:
    """`v == Py_False` held: v's object is the singleton, so a later load of it (`Py_DECREF
    (Py_False)`) gives v's object back, with the references v's holder owns (no new debt). The
    interpreter holds the singleton too: it outlives our last release (shared), so `Py_DECREF
    (kstr); return Py_None;` under `kstr == Py_None` returns a live object. The result of an
    acquirer returning that singleton bare (Summary.unless_singleton) owns nothing here."""
    var, key, _ = same
    oid = st.env.get(var)
    o = st.objs.get(oid) if oid is not None else None
    if o is not None and o.null != NULL:
        st.facts.stored[key] = oid
        owned = 0 if returned_bare(oid, key, data) else o.owned
        st.objs[oid] = replace(o, owned=owned, shared=True, null=NONNULL, link=None)


def returned_bare(oid: ObjId, key: str, data: dict) -> bool:
    """oid is the result of an acquire whose callee returns the singleton `key` borrowed."""
    if oid.kind is not Kind.ACQUIRE or not isinstance(oid.site, tuple) or oid.site[1] < 0:
        return False
    ops = data[oid.site[0]].ops
    op = ops[oid.site[1]] if oid.site[1] < len(ops) else None
    return type(op) is ir.Acquire and op.unless == key
