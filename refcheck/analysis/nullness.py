"""Forgetting what is known of a pointer's nullness where no later node can read it.

A null test splits a state in two: the NULL edge and the not-NULL edge. When nothing after the
join reads that answer again, the two states own the same things in the same variables and differ
only in a fact no later ownership outcome depends on; ESP-style property simulation merges them.
THNN's `BatchNormalization_backward` tests four optional parameters (`if (gradWeight)`, `weight ?
... : 1`) in a loop whose other branches acquire and release: kept apart, their nullness
multiplied the loop's states past the bound.

The nullness of an object is read by (`Transfer`):
- a dereference (a known NULL ends the path there), a release or consume (a NULL is skipped), a
  retain (a retained NULL owes nothing at the exits), an acquirer that may return its argument,
  a reallocation's source, a store or sink (the hand-over of a NULL is none), a return;
- a null test or pointer comparison at a branch that matters (`slicing.relevant_branches`), or
  at one that does not matter but whose edges set a constant that a branch which matters reads
  (`c = t != NULL; if (c)` after `t->x`: known not NULL, the NULL edge is infeasible, and its
  `c = 0` would decide the later test): any other one reaches the same next node that matters
  with the same ownership by both edges, so its answer is only observed through a later read,
  which is itself in this list;
- an assignment, for its source, when its destination's nullness may be read anywhere (the two
  variables then hold one object; over-approximated flow-insensitively).

A use that is not a dereference reads nullness only for a released object (`check_alive`), and
only objects not released are forgotten here; to become released, the object passes a release,
which reads it. So, at a node's entry, an object none of whose holders may have its nullness read
before being reassigned gets `MAYBE`: a known NULL of an object nothing owns, or a known not-NULL.
Loaded locations (a later load of the same text finds the object again), known-NULL objects of
their own kind, objects a stored fact or a realloc link names, and owned NULLs keep theirs.
"""

from __future__ import annotations

from dataclasses import replace

from refcheck import ir
from refcheck.analysis.bitsets import Bits, LazySets, backward
from refcheck.analysis.state import Kind, State
from refcheck.rules.events import Nullness

_KEEP = (Kind.FIELD, Kind.STALE, Kind.NULL)
_KILLS = (ir.Assign, ir.Load, ir.Acquire, ir.Realloc, ir.Shift)


def _read_by(op) -> tuple:
    """The variables whose nullness `op` reads directly."""
    t = type(op)
    if t is ir.Use:
        return (op.var,) if op.deref else ()
    if t is ir.Release:
        return tuple(op.vars)
    if t is ir.Retain or t is ir.Store:
        return (op.var,) if op.var is not None else ()
    if t is ir.Acquire:
        return (op.source,) if op.source is not None else ()
    if t is ir.Realloc:
        return (op.src,) if op.src is not None else ()
    return ()


def _node_reads(n: int, d, relevant, at_return: tuple = (), deciding: frozenset = frozenset()) -> tuple:
    """The variables whose nullness node `n`'s own end reads (its condition, its return, and at a
    return the parameters `at_return` whose fate the function's summary reads)."""
    out: list = []
    if relevant is None or n in relevant or n in deciding:
        cond = d.cond
        if isinstance(cond, ir.NullTest):
            out.append(cond.var)
        elif isinstance(cond, ir.SameObject):
            out += [cond.a, cond.b]
    if d.kind == "return":
        if isinstance(d.value, str):
            out.append(d.value)
        out += at_return
    return tuple(out)


def tests_nullness(cfg) -> bool:
    """Whether any state of `cfg` can know an object's nullness that `forget` may forget. Only
    the edges of a null test or a pointer comparison make an object NULL or not NULL
    (`Transfer.assume_null`; a dereference refines only a variable some such test reads); the
    NULL constants' objects are kept anyway. Most TH functions test no pointer: there, neither
    the null liveness nor the forgetting at every node is needed."""
    return any(isinstance(d.cond, (ir.NullTest, ir.SameObject)) for _, d in cfg.graph.nodes(data="data"))


# Ops that change no binding, no object and no stored fact: a state they pass on has nothing
# more to forget than it had (`quiet_edges`). A Use without a dereference only checks.
_QUIET_OPS = (ir.Const, ir.SameSize, ir.Count, ir.Call)
# Ops that only bind their destination: to a fresh object with no known nullness, to one some
# variable already holds, or to none. They are quiet where the destination's nullness is not read
# at the node's entry and no stored fact depends on it (`quiet_edges`).
_BINDS = (ir.Assign, ir.Load, ir.Kill, ir.Acquire, ir.Shift)


def _rebound(op) -> str | None:
    """The variable a quiet-when-unread op rebinds; None when the op is not one of them."""
    t = type(op)
    if t is ir.Kill:
        return op.var
    if t is ir.Acquire:
        # One that may return its argument revives a released argument (`Transfer.op_acquire`).
        return op.dst if op.source is None else None
    return op.dst if t in _BINDS else None


def quiet_edges(cfg, live: LazySets) -> frozenset:
    """The edges (pred, succ) on which `forget` has nothing to do for a state that `forget`
    already saw at pred's entry: pred learns no nullness (no null test, comparison or
    dereference), moves no owner and no stored fact, and rebinds only variables whose nullness
    is not read at its entry and that no store's location depends on (a binding `Transfer.bind`
    changes invalidates the stored facts naming it); and no variable whose nullness is read at
    pred's entry stops being read at succ's. After `forget` at pred, every object with a known
    nullness that it may forget has a holder read at pred's entry; such a holder is bound to it
    still at succ, read there too, so `forget` keeps it. (A join that drops a stored fact and a
    binding the pruner drops are seen as they happen: `Pruner`, `explore`.)"""
    out = []
    bits = live.bits  # here <= there, as bits
    data = dict(cfg.graph.nodes(data="data"))
    stored = {v for d in data.values() for op in (*d.ops, *d.post) if type(op) is ir.Store
              for v in (op.target, *op.deps)}
    for p, d in data.items():
        if isinstance(d.cond, (ir.NullTest, ir.SameObject)):
            continue
        here = bits[p]
        read = None
        quiet = True
        for op in (*d.ops, *d.post):
            t = type(op)
            if t in _QUIET_OPS or (t is ir.Use and not op.deref):
                continue
            v = _rebound(op)
            if v is None or v in stored:
                quiet = False
                break
            if read is None:
                read = live[p]
            if v in read:
                quiet = False
                break
        if quiet:
            out += [(p, s) for s in cfg.graph.successors(p) if not here & ~bits[s]]
    return frozenset(out)


class NullLiveness:
    """Per node, the variables whose nullness some path from its entry may read (`live`)."""

    def __init__(self, cfg, relevant: set[int] | None, solve: bool = True):
        """`solve`: False leaves the fixpoint to the caller (`bitsets.solve_together`)."""
        g = cfg.graph
        data = dict(g.nodes(data="data"))
        # Sets of variables as bits of an int, as in `liveness.Liveness`: the fixpoint revisits
        # the nodes of TH's nested APPLY loops many times. Each op's reads and kills are made
        # bits once, in one walk of the ops (the reads of a node's end wait for `at_return`).
        names = Bits()
        bits = names.of
        steps: dict[int, list] = {}  # node -> its ops' and post ops' (reads, kills, assigned src or 0, dst)
        given: set = set()
        assigns: list = []  # (dst bit, src bit) of every assignment with a source
        direct = 0
        for n, d in data.items():
            seq = []
            for op in (*d.ops, *d.post):
                t = type(op)
                if t is ir.Release:
                    given.update(op.vars)
                elif t is ir.Store:
                    given.add(op.var)
                r = bits(_read_by(op))
                direct |= r
                src = dst = 0
                if t is ir.Assign and op.src is not None:
                    dst, src = bits((op.dst,)), bits((op.src,))
                    assigns.append((dst, src))
                seq.append((r, bits(_kills(op)), src, dst))
            steps[n] = seq
        # The summary of the function (`analysis.summarize`) reads, at each return, whether a
        # parameter it may give up (release, consume, sink) is NULL there: `if (!t) return;`
        # before `free(t)` still releases t on every path where t is not NULL. Parameters never
        # given up are not read, so optional ones still merge (THNN's BatchNormalization).
        at_return = tuple(v for v, is_ptr in cfg.params if is_ptr and v in given)
        deciding = _deciding(g, data, relevant)
        ends: dict[int, int] = {}
        for n, d in data.items():
            ends[n] = e = bits(_node_reads(n, d, relevant, at_return, deciding))
            direct |= e
        # Flow-insensitive closure over assignments: dst's nullness read somewhere makes src's.
        read = direct
        changed = True
        while changed:
            changed = False
            for dst, src in assigns:
                if dst & read and not src & read:
                    read |= src
                    changed = True
        gen: dict[int, int] = {}
        keep: dict[int, int] = {}  # the complement of the node's kills
        for n, d in data.items():
            seq, end = steps[n], ends[n]
            last_op = len(d.ops) - 1
            g_ = k_ = 0
            # Backward, X -> (X - kills) | reads: the post ops, the node's end, then the ops.
            for i in range(len(seq) - 1, -1, -1):
                if i == last_op:
                    g_ |= end
                r, k, src, dst = seq[i]
                if k:
                    g_ &= ~k
                    k_ |= k
                if src and dst & read:
                    r |= src
                g_ |= r
            if last_op < 0:
                g_ |= end
            gen[n], keep[n] = g_, ~k_
        self.names = names
        self.problem = ((gen,), (keep,))
        if solve:
            self.solved(backward(g, *self.problem))

    def solved(self, lives) -> None:
        """Take the fixpoint's solution."""
        self.problem = None
        self.live = LazySets(self.names, lives[0])


def _deciding(g, data: dict, relevant) -> frozenset:
    """The branches that do not matter whose successors set a constant (`c = 1`, `c = 0`) that
    the condition of a branch which matters reads: their answer is read through it."""
    if relevant is None:
        return frozenset()
    read = set()
    for n in relevant:
        cond = data[n].cond
        read.update(getattr(cond, "vars", ()) or ())
        read.update(v for v in (getattr(cond, "var", None), getattr(cond, "a", None), getattr(cond, "b", None)) if v)
    out = set()
    for n, d in data.items():
        if n in relevant or not isinstance(d.cond, (ir.NullTest, ir.SameObject)):
            continue
        if any(type(op) is ir.Const and op.var in read for s in g.successors(n) for op in data[s].ops):
            out.add(n)
    return frozenset(out)


def _kills(op) -> tuple:
    t = type(op)
    if t in _KILLS:
        return (op.dst,)
    if t is ir.Kill or t is ir.Escape:
        return (op.var,)
    return ()


def fated_parameters(cfg) -> frozenset[str]:
    """The pointer parameters whose object the function may give up (released, consumed, stored,
    retained or reallocated, directly or through locals assigned from them): only theirs has a
    fate the summary reads at a path's end (`state.param_fate`), NULL included. Keeping every
    parameter's NULL made THNN's BatchNormalization_backward, which gives up none of its eleven,
    exceed the state bound. Once per graph and parameters (`DiGraph.memo`): the return witness's
    transfer and the exploration's both ask."""
    memo = getattr(cfg.graph, "memo", None)
    if memo is None:
        return _fated_parameters(cfg)
    return memo(("fated", tuple(cfg.params), cfg.entry), lambda _: _fated_parameters(cfg))


def _fated_parameters(cfg) -> frozenset[str]:
    params = {v for v, is_ptr in cfg.params if v is not None and is_ptr}
    if not params:
        return frozenset()
    given: set[str] = set()
    flows: dict[str, set[str]] = {}
    for _, d in cfg.graph.nodes(data="data"):
        for op in (*d.ops, *d.post):
            t = type(op)
            if t is ir.Release:
                given.update(op.vars)
            elif t is ir.Store or t is ir.Retain:
                if op.var is not None:
                    given.add(op.var)
            elif t is ir.Realloc:
                if op.src is not None:
                    given.add(op.src)
            elif t is ir.Assign and op.src is not None:
                flows.setdefault(op.src, set()).add(op.dst)
    out = set(null_told_parameters(cfg))
    for p in params:
        seen, stack = {p}, [p]
        while stack:
            v = stack.pop()
            if v in given:
                out.add(p)
                break
            for w in flows.get(v, ()):
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
    return frozenset(out)


def null_told_parameters(cfg) -> frozenset[str]:
    """The pointer parameters whose NULL edge every return of a non-zero constant lies past: no
    such return is reached from the entry without crossing a null test of the parameter on its
    NULL edge, and one is reached with (pylibmc's `_PylibMC_cache_miss_simulated (r)`: `if (r ==
    NULL && ...) return 1; return 0;`). Their NULL is kept to the end (a fate the summary reads:
    `Summary.null_when_nonzero`), and the first pass leaves such a function to the exploration."""
    data = dict(cfg.graph.nodes(data="data"))
    told = {d.const for d in data.values() if d.kind == "return"}
    if not told or None in told or told == {0}:
        return frozenset()  # a return of no constant, or of 0 only: no non-zero result to tell by
    tested = {d.cond.var for d in data.values() if d.kind == "branch" and type(d.cond) is ir.NullTest}
    out = set()
    for p in tested & {v for v, is_ptr in cfg.params if v is not None and is_ptr}:
        seen, stack = {cfg.entry}, [cfg.entry]
        while stack:
            n = stack.pop()
            d = data[n]
            if d.kind == "return" and d.const:
                break
            for m in cfg.graph.successors(n):
                null_edge = d.kind == "branch" and type(d.cond) is ir.NullTest and d.cond.var == p \
                    and cfg.graph[n][m].get("branch") is False
                if m not in seen and not null_edge:
                    seen.add(m)
                    stack.append(m)
        else:
            out.add(p)
    return frozenset(out)


def forget(st: State, live: frozenset, fated: frozenset = frozenset()) -> None:
    """Set to MAYBE the nullness of every object in `st` that no holder live in `live` reads
    (a parameter in `fated` found NULL keeps it)."""
    # Most states hold no object whose nullness is known and could be forgotten (`Obj.
    # forgettable`): find those first, and only then which of them a live holder still reads
    # (this runs at every node). A parameter found NULL keeps it: that is its fate at the path's
    # end (`summarize`: the caller's NULL was given nothing to do, as after `if (p) free (p);`).
    objs = st.objs
    candidates = [oid for oid, o in objs.items() if o.forgettable and oid.kind not in _KEEP
                  and not (oid.kind is Kind.PARAM and o.null is Nullness.NULL and oid.site in fated)]
    if not candidates:
        return
    held_live = {oid for v, oid in st.env.items() if v in live}
    pinned = None
    maybe = Nullness.MAYBE
    for oid in candidates:
        if oid in held_live:
            continue
        if pinned is None:
            pinned = set(st.facts.stored.values())
        if oid in pinned:
            continue
        objs[oid] = replace(objs[oid], null=maybe)
