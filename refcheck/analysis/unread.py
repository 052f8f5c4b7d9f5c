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

# The op fields that name the variable an op writes, not one it reads.
_WRITTEN = ("dst",)


def _mentions(op, var: str) -> tuple[bool, bool]:
    """(reads var, writes var) for one op."""
    reads = writes = False
    for name, value in vars(op).items():
        if name == "loc":
            continue
        hit = value == var or (isinstance(value, (tuple, frozenset, list)) and var in value)
        if hit and name in _WRITTEN:
            writes = True
        elif hit:
            reads = True
    return reads, writes


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
    nothing read the parameter (its passed value is never seen where it is replaced)."""
    params = [var for var, is_ptr in cfg.params if var is not None and is_ptr]
    if not params:
        return frozenset()
    g = cfg.graph
    data = dict(g.nodes(data="data"))
    out = set()
    for var in params:
        if not any(_mentions(op, var)[1] for d in data.values() for op in (*d.ops, *d.post)):
            continue
        if _unread_at_every_overwrite(g, cfg.entry, data, var):
            out.add(var)
    return frozenset(out)


def _unread_at_every_overwrite(g, entry: int, data: dict, var: str) -> bool:
    """No overwrite of var is reachable from a read of it (nor reads var itself, `p = p->next`)."""
    after_read: set = set()
    work = []
    for n, d in data.items():
        reads = any(_mentions(op, var)[0] for op in (*d.ops, *d.post)) or _cond_reads(d.cond, var) or d.value == var
        if reads:
            work.extend(g.successors(n))
    while work:
        n = work.pop()
        if n in after_read:
            continue
        after_read.add(n)
        work.extend(g.successors(n))
    for n, d in data.items():
        seen_read = False
        for op in (*d.ops, *d.post):
            reads, writes = _mentions(op, var)
            if writes and (reads or seen_read or n in after_read):
                return False
            seen_read = seen_read or reads
    return True
