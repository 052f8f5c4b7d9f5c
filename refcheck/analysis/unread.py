"""Pointer parameters a body overwrites before anything read them (issue 31, cpy44).

biopython's `KDTree_search (self, region, node, depth, ...)` starts with `if (depth == 0) {
region = Region_create (NULL, NULL); ... }` and frees `region` at its end: its callers pass NULL
at depth 0 and a region of their own otherwise, which it takes over. On the paths through such an
overwrite the function never saw what was passed, so they say nothing of the parameter's fate,
as a NULL argument's paths say nothing (`Summarizer.at_return` reads them as "null"); the other
paths decide its effect. A parameter read anywhere before one of its overwrites is not listed.
"""

from __future__ import annotations

from refcheck import ir

# The op field that names the variable an op writes, not one it reads.
_WRITTEN = "dst"


def _cond_reads(cond, var: str) -> bool:
    if cond is None or isinstance(cond, ir.Opaque):
        return False
    if isinstance(cond, ir.NullTest):
        return cond.var == var
    if isinstance(cond, ir.SameObject):
        return var in (cond.a, cond.b)
    if isinstance(cond, ir.SizeTest):
        return var in (cond.a, cond.b) or _cond_reads(cond.fallback, var)
    return var in getattr(cond, "vars", ())


def overwritten_unread(cfg) -> frozenset[str]:
    """The pointer parameters some path overwrites, each overwrite reached only by paths on which
    nothing read the parameter (its passed value is never seen where it is replaced). Once per
    graph and parameters (`DiGraph.memo`): the return witness's transfer and the exploration's
    both ask (THTensor.c unwind: 282 asks, 192 graphs)."""
    params = tuple(var for var, is_ptr in cfg.params if var is not None and is_ptr)
    if not params:
        return frozenset()
    memo = getattr(cfg.graph, "memo", None)
    if memo is None:
        return _overwritten_unread(cfg.graph, params)
    return memo(("unread", params, cfg.entry), lambda g: _overwritten_unread(g, params))


def _overwritten_unread(g, params: tuple[str, ...]) -> frozenset[str]:
    data = dict(g.nodes(data="data"))
    ops = {n: (*d.ops, *d.post) for n, d in data.items()}
    # Most parameters are never written: only those some op writes are read about (once per op
    # for all of them, `_op_mentions`, not once per op, parameter and pass).
    written: set = set()
    named = frozenset(params)
    for listed in ops.values():
        for op in listed:
            value = vars(op).get(_WRITTEN)
            if value is not None:
                written.update(_named(value, params, named))
    params = tuple(var for var in params if var in written)
    if not params:
        return frozenset()
    named = frozenset(params)
    mentions = {n: [_op_mentions(op, params, named) for op in listed] for n, listed in ops.items()}
    return frozenset(var for var in params if _unread_at_every_overwrite(g, data, mentions, var))


def _named(value, params: tuple[str, ...], named: frozenset):
    """The vars of params an op's field names: equal to it, or holding it."""
    if type(value) is str:
        return (value,) if value in named else ()
    if isinstance(value, (tuple, frozenset, list)):
        return [var for var in params if var in value]
    return [var for var in params if value == var]


def _op_mentions(op, params: tuple[str, ...], named: frozenset) -> dict[str, tuple[bool, bool]]:
    """(reads var, writes var) of one op for each var of params (`named` as a set) it names, read
    off its fields in one pass."""
    reads: set = set()
    writes: set = set()
    for name, value in vars(op).items():
        if name == "loc" or value is None:
            continue
        (writes if name == _WRITTEN else reads).update(_named(value, params, named))
    if not reads and not writes:
        return _NONE
    return {var: (var in reads, var in writes) for var in params if var in reads or var in writes}


_NONE: dict = {}


def _unread_at_every_overwrite(g, data: dict, mentions: dict, var: str) -> bool:
    """No overwrite of var is reachable from a read of it (nor reads var itself, `p = p->next`)."""
    after_read: set = set()
    work = []
    for n, d in data.items():
        reads = any(m[var][0] for m in mentions[n] if var in m) or _cond_reads(d.cond, var) or d.value == var
        if reads:
            work.extend(g.successors(n))
    while work:
        n = work.pop()
        if n in after_read:
            continue
        after_read.add(n)
        work.extend(g.successors(n))
    for n in data:
        seen_read = False
        for m in mentions[n]:
            reads, writes = m.get(var, (False, False))
            if writes and (reads or seen_read or n in after_read):
                return False
            seen_read = seen_read or reads
    return True
