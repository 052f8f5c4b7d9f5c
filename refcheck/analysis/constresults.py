"""The integer constants a function's returns give its callers, read off its graph (issue 31).

Two facts a caller's test of the result can use, where the callee's constant decides the test:

- `Summary.result_constant`: every return of the body returns one integer constant (multidict's
  `_md_del_at` returns 0 on its one path): `if (f (...) < 0) goto fail;` cannot fail.
- `Summary.constant_if_null`: (index, constant) pairs: wherever the pointer parameter at that
  index is NULL on entry, the body returns that constant (numexpr's `add_symbol (d, sname, ...)`
  starts `if (!sname) return 0;`): a caller passing a NULL constant there gets that result.

Both are read from the graph alone, so they hold whether the function was explored or proved by
the first pass: a parameter's NULL edge is followed to every return it reaches, and no return
may be reached from the entry without crossing a null test of the parameter (a return where its
nullness is unknown may be taken with NULL too). A parameter the body writes is left out.
"""

from __future__ import annotations

from refcheck import ir


def _written(d) -> set[str]:
    """The variables a node's ops assign (the value a later test of it reads is then not the entry's)."""
    out = set()
    for op in (*d.ops, *d.post):
        t = type(op)
        if t in (ir.Acquire, ir.Realloc, ir.Assign, ir.Load, ir.Shift):
            out.add(op.dst)
        elif t in (ir.Const, ir.Touch, ir.Kill):
            out.add(op.var)
    return out


def _returned(d) -> int | None:
    """A return node's integer constant, None for any other return (a value, a non-number)."""
    k = d.const
    return k if isinstance(k, int) and not isinstance(k, bool) else None


def result_constant(cfg) -> int | None:
    """The one integer constant every return of the body returns, None where a return gives
    anything else (or none is reached)."""
    if not cfg.returns_value:
        return None
    seen = {_returned(d) for _, d in cfg.graph.nodes(data="data") if d.kind == "return"}
    return next(iter(seen)) if len(seen) == 1 and None not in seen else None


def constant_if_null(cfg) -> tuple:
    """(index, constant) pairs of `Summary.constant_if_null` (see the module's text)."""
    if not cfg.returns_value:
        return ()
    data = dict(cfg.graph.nodes(data="data"))
    tested = {d.cond.var for d in data.values() if d.kind == "branch" and type(d.cond) is ir.NullTest}
    out = []
    for i, (p, is_ptr) in enumerate(cfg.params):
        if p is None or not is_ptr or p not in tested:
            continue
        k = _constant_on_null(cfg, data, p)
        if k is not None:
            out.append((i, k))
    return tuple(out)


def _is_test(d, p: str) -> bool:
    return d.kind == "branch" and type(d.cond) is ir.NullTest and d.cond.var == p


def _constant_on_null(cfg, data: dict, p: str) -> int | None:
    """The constant every return past p's NULL edges gives, where each return is past a test."""
    # From the entry up to the first tests of p: no return, no write of p.
    seen, stack, tests = {cfg.entry}, [cfg.entry], set()
    while stack:
        n = stack.pop()
        d = data[n]
        if d.kind == "return" or p in _written(d):
            return None
        if _is_test(d, p):
            tests.add(n)
            continue
        for m in cfg.graph.successors(n):
            if m not in seen:
                seen.add(m)
                stack.append(m)
    # Past the NULL edge of each: p stays NULL (never written), later tests of it take that edge.
    start = [m for n in tests for m in cfg.graph.successors(n) if cfg.graph[n][m].get("branch") is False]
    seen, stack, found = set(start), list(start), set()
    while stack:
        n = stack.pop()
        d = data[n]
        if p in _written(d):
            return None
        if d.kind == "return":
            found.add(_returned(d))
        for m in cfg.graph.successors(n):
            if _is_test(d, p) and cfg.graph[n][m].get("branch") is not False:
                continue
            if m not in seen:
                seen.add(m)
                stack.append(m)
    return next(iter(found)) if len(found) == 1 and None not in found else None
