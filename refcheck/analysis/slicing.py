"""What can matter to ownership, found before exploring: which branches (the conditions of the
others are contracted), and which pointers (the others are not tracked, `untracked_values`).

A branch matters when a node that changes ownership, ends a path or uses a value after a node that
may release it is control dependent on it (it decides whether that node runs), directly or through
another branch that matters. A condition
tested only at branches that do not matter (the counter and `hasFinished` tests of a
`TH_TENSOR_APPLY` loop whose body only reads tensors) is treated as opaque before exploring: its
outcome is not remembered, the integer constants it would decide are not tracked, and the states
it would have split stay one. Both edges of such a branch reach the same next node that matters,
through ops that change no ownership, so the contraction adds no ownership outcome and loses none.
"""

from __future__ import annotations

from refcheck import ir
from refcheck.ir.digraph import dominators, reaching

_ENDS = ("return", "exit", "error", "stop")


def _node_ops(cfg) -> list[tuple]:
    """(node, data, its ops and post ops) of every node: listed once per graph (`DiGraph.memo`)
    for the tables below, the screening and the untracked values, which each listed them again.
    Shared: never changed by its readers."""
    return _memo(cfg.graph, "node_ops", lambda g: [(n, d, (*d.ops, *d.post)) for n, d in g.nodes(data="data")])


def all_ops(cfg) -> list:
    """Every op and post op of the graph, in node order (once per graph, shared)."""
    return _memo(cfg.graph, "all_ops", lambda g: [op for _, _, ops in _node_ops(cfg) for op in ops])


def graph_alias_classes(cfg) -> tuple:
    """`alias_classes` of every op of the graph: the screening, the released values and the
    untracked values each joined the same classes (three union-finds per explored function)."""
    return _memo(cfg.graph, "alias_classes", lambda g: alias_classes(all_ops(cfg)))


def _memo(g, key, make):
    memo = getattr(g, "memo", None)
    return memo(key, make) if memo is not None else make(g)


def pointer_values(cfg, node_ops: list | None = None) -> set[str]:
    """Every value that can ever hold a tracked object (a closure over the assignments)."""
    out = {v for v, is_ptr in cfg.params if v is not None and is_ptr}
    assigned: dict = {}  # source -> the values assigned from it
    for _, _, ops in node_ops if node_ops is not None else _node_ops(cfg):
        for op in ops:
            if isinstance(op, (ir.Acquire, ir.Realloc, ir.Load)):
                out.add(op.dst)
            elif isinstance(op, ir.Assign):
                if op.null:
                    out.add(op.dst)
                assigned.setdefault(op.src, []).append(op.dst)
    # Whatever is assigned from a pointer value is one: a worklist instead of sweeping every
    # op until nothing changes (one sweep per link of the longest chain of assignments).
    todo = list(out)
    while todo:
        for dst in assigned.get(todo.pop(), ()):
            if dst not in out:
                out.add(dst)
                todo.append(dst)
    return out


def alias_classes(ops) -> tuple:
    """(find, parent): a union-find of the values that may hold one object, joined by assignment,
    by loading the same location and by storing to a location that is loaded (over-approximately).
    `find(v)` is v's class representative; `parent` holds every value joined to another."""
    parent: dict[str, str] = {}

    def find(v: str) -> str:
        while parent.get(v, v) != v:
            v = parent[v]
        return v

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb

    by_key: dict[str, str] = {}
    for op in ops:
        if isinstance(op, ir.Assign) and op.src is not None:
            union(op.dst, op.src)
        elif isinstance(op, ir.Load) and op.key:
            union(op.dst, by_key.setdefault(op.key, op.dst))
        elif isinstance(op, ir.Store) and op.var is not None and op.target:
            union(op.var, by_key.setdefault(op.target, op.var))
    return find, parent


def released_values(cfg, node_ops: list | None = None) -> dict[str, set[int]]:
    """Values that may hold an object released in this function -> the nodes that release it.

    Aliases are joined by assignment and by loading the same location, over-approximately."""
    node_ops = node_ops if node_ops is not None else _node_ops(cfg)
    find, parent = graph_alias_classes(cfg)
    releases: list[tuple[int, tuple]] = []
    for n, _, ops in node_ops:
        for op in ops:
            if isinstance(op, ir.Release):
                releases.append((n, op.vars))
            elif isinstance(op, ir.Realloc) and op.src is not None:
                releases.append((n, (op.src,)))
    out: dict[str, set[int]] = {}
    for n, vars_ in releases:
        for v in vars_:
            out.setdefault(find(v), set()).add(n)
    return {v: out[find(v)] for v in {*parent, *(x for _, vs in releases for x in vs)} if find(v) in out}


def untracked_values(cfg, relevant: set | None = None, regions: dict | None = None) -> frozenset[str]:
    """Local pointers that take no part in ownership, which the analysis does not track.

    A variable qualifies when everything it ever holds is NULL, a value loaded from memory (a
    location this function never stores to, so the load is never an object handed over here),
    an untracked value, or another such variable's value; and when none of those values reaches
    anything that reads an object: a release, consume, retain or reallocation, a store, `&v`,
    an acquisition that may return its argument, a return, a null test or pointer comparison, a
    size fact, or the address of a store. What is left is reading through it (`*v`, `v[i]`,
    passing it to a borrowing call), none of which reports anything about a value that is never
    released. Tracking it anyway only told a loaded value from a NULL one, so that a path on
    which it is dereferenced while NULL ended there (semantics.md, precision 15): the
    `TH_TENSOR_APPLY` data pointers, NULL for an empty tensor and loaded otherwise, multiplied
    every APPLY body's states by up to three per operand. Values loaded from one location are one
    object, so a location one non-qualifying variable loads disqualifies every variable loading
    it; assignments join variables both ways (an alias of a released value is released too)."""
    g = cfg.graph
    ops = all_ops(cfg)
    stored = {op.target for op in ops if type(op) is ir.Store and op.target}
    assigned, _ = alias_classes(op for op in ops if type(op) is ir.Assign)
    idle = idle_null_tests(cfg, relevant, regions, assigned) if relevant is not None and regions else set()
    tracked = {v for v, _ in cfg.params if v is not None}
    candidates = set()
    tested = set()
    for op in ops:
        t = type(op)
        if t is ir.Assign or t is ir.Load:
            candidates.add(op.dst)
            if t is ir.Load and op.key in stored:
                tracked.add(op.dst)
        elif t is ir.Release:
            tracked.update(op.vars)
        elif t is ir.Retain or t is ir.Escape:
            tracked.add(op.var)
        elif t is ir.Realloc:
            tracked.update((op.dst, op.src))
        elif t is ir.Acquire:
            tracked.update((op.dst, op.source))
        elif t is ir.Store:
            tracked.add(op.var)
            if len(op.deps) > 1:
                # A store forgets size facts unless every object its address mentions is
                # acquired here; with one variable in the address, one not bound forgets them
                # as one bound to a loaded value or NULL does.
                tracked.update(op.deps)
        elif t is ir.SameSize:
            tracked.update((op.a, op.b))
        elif t is ir.Count:
            tracked.update((op.var, op.tensor))
    for n, d in g.nodes(data="data"):
        if d.kind == "return":
            tracked.add(d.value)
        cond = d.cond
        if isinstance(cond, ir.NullTest):
            if n not in idle:
                tested.add(cond.var)
        elif isinstance(cond, (ir.SameObject, ir.SizeTest)):
            tracked.update((cond.a, cond.b))
    # One alias class, one object: any tracked member tracks the class (a store's value is
    # tracked, so joining it with the loads of its location adds nothing to what is tracked).
    find, _ = graph_alias_classes(cfg)
    tracked_classes = {find(v) for v in tracked if v is not None}
    tested_classes = {assigned(v) for v in tested if v is not None}
    return frozenset(v for v in candidates if find(v) not in tracked_classes and assigned(v) not in tested_classes
                     and not v.startswith("$"))


def idle_null_tests(cfg, relevant: set, regions: dict, cls) -> set[int]:
    """Null tests that decide nothing, of pointers never dereferenced (`cls`: a value's class of
    assignments): branches no node that matters depends on (`relevant`), whose arms up to where
    they meet (`regions`, from `relevant_branches`) only pass the tested value to calls (no other
    use, no test, no assignment, no constant): `if (x != NULL) xmlFree (x);` with a borrowing
    xmlFree. Whatever the outcome, the same state reaches the meeting point but for the tested
    value's nullness, which no dereference reads (precision 14) and no later decision asks."""
    g = cfg.graph
    data = dict(g.nodes(data="data"))
    tests = [a for a in regions if a not in relevant and isinstance(data[a].cond, ir.NullTest)]
    if not tests:
        return set()
    derefs = {cls(op.var) for d in data.values() for op in (*d.ops, *d.post) if type(op) is ir.Use and op.deref}

    def passes_only(n, tested) -> bool:
        d = data[n]
        return (d.cond is None and g.out_degree(n) == 1 and d.kind not in _ENDS
                and all(type(op) is ir.Call or (type(op) is ir.Use and cls(op.var) == tested)
                        for op in (*d.ops, *d.post)))

    out = set()
    for a in tests:
        tested = cls(data[a].cond.var)
        if tested not in derefs and all(passes_only(n, tested) for n in regions[a]):
            out.add(a)
    return out


def _op_matters(op, ptrs: set[str], keys: set[str], used_after: set[str] = frozenset()) -> bool:
    t = type(op)
    if t is ir.Use or t is ir.Retain:
        return True if t is ir.Retain else op.var in used_after
    if t in (ir.Acquire, ir.Realloc, ir.Release, ir.Retain, ir.Escape, ir.Load):
        return True
    if t is ir.Assign:
        return op.null or op.dst in ptrs or op.src in ptrs
    if t is ir.Kill:
        return op.var in ptrs
    if t is ir.Store:
        return op.var in ptrs or op.target in keys
    return False  # Call, Const, Touch, and uses of values never released before: no ownership changes


def relevant_branches(cfg, regions: dict | None = None) -> set[int]:
    """Branch and switch nodes on which a node that matters is (transitively) control dependent.
    `regions`, when given, gets each branch whose arms meet: the nodes up to where they do."""
    g = cfg.graph
    deciders = [n for n in g.nodes if g.out_degree(n) > 1]
    if not deciders:
        return set()
    node_ops = _node_ops(cfg)
    ptrs = pointer_values(cfg, node_ops)
    keys = {op.key for _, d, _ in node_ops for op in d.ops if isinstance(op, ir.Load) and op.key}
    # A store to a location whose truth a branch tests (a flag field, `transfer.op_store`) decides it.
    keys |= {d.cond.key for _, d, _ in node_ops if isinstance(d.cond, ir.Fact)}
    # A use can report a use after release only where a release of its value may have happened
    # before: after one of the nodes releasing it (a release before or in an enclosing loop).
    released = released_values(cfg, node_ops)
    succs = {n: list(nbrs) for n, nbrs in g.adjacency()}
    after: dict[int, set[int]] = {}
    matters = set()
    for n, d, ops in node_ops:
        used_after = set()
        for op in ops:
            if type(op) is ir.Use and op.var in released:
                for r in released[op.var]:
                    if r not in after:
                        after[r] = _reachable(succs, r)
                    if n in after[r]:
                        used_after.add(op.var)
                        break
        if d.kind in _ENDS or any(_op_matters(op, ptrs, keys, used_after) for op in ops):
            matters.add(n)
    sink = ("sink",)
    ipdom = _postdominators(succs, sink)
    region: dict[int, set] = {}
    out = set()
    for a in deciders:
        if a not in ipdom or any(b not in ipdom for b in g.successors(a)):
            out.add(a)  # some path from here never ends: keep what is known
            continue
        stop = ipdom[a]
        dep: set = set()
        for b in g.successors(a):
            n = b
            while n != stop and n != sink:
                dep.add(n)
                n = ipdom[n]
        region[a] = dep
        if regions is not None:
            regions[a] = dep
        if dep & matters:
            out.add(a)
    return reaching(out, region)  # a decider whose region holds one that matters matters too


def _reachable(succs: dict, start) -> set:
    """`start` and every node a path from it reaches."""
    seen = {start}
    todo = [start]
    while todo:
        for m in succs[todo.pop()]:
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


def _postdominators(succs: dict, sink) -> dict:
    """Each node's immediate post-dominator, `sink` standing for every end (a node without
    successors): the immediate dominators of the reversed graph from `sink`, without building
    it. Nodes from which no end is reachable are absent, and so is `sink` itself."""
    preds: dict = {n: [] for n in succs}  # the reversed graph's successors
    preds[sink] = []
    for n, ms in succs.items():
        if not ms:
            preds[sink].append(n)
        for m in ms:
            preds[m].append(n)
    # The reversed graph's predecessors of n: its successors here, and sink for an end.
    idom = dominators(sink, preds.__getitem__, lambda n: succs[n] or (sink,))
    del idom[sink]
    return idom
