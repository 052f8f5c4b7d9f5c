"""The local pointers of a generated function that take no part in ownership (semantics.md,
decision 15), for the oracle (`oracle.verdicts`)."""

from __future__ import annotations

from .program import (NVARS, Acquire, Assign, Error, Flag, Goto, If, Label, Move, NullCheck, Release, Resize,
                      Return, SizeCheck, Store, Switch, Use)


def _walk(stmts):
    """Every statement, arms and loop bodies included."""
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from _walk(s.then)
            yield from _walk(s.orelse or ())
        elif isinstance(s, Switch):
            for _, arm in s.cases:
                yield from _walk(arm)
        elif hasattr(s, "body"):
            yield from _walk(s.body)


def _assigned_classes(stmts: list):
    """find(v): v's class of pointers joined by assignments (both ways)."""
    parent: dict[str, str] = {}

    def find(v: str) -> str:
        while parent.get(v, v) != v:
            v = parent[v]
        return v
    for s in stmts:
        if isinstance(s, Assign) and s.source != "NULL":
            a, b = find(s.var), find(s.source)
            if a != b:
                parent[a] = b
    return find


def untracked(body: tuple) -> frozenset:
    """The local pointers that take no part in ownership (semantics.md, decision 15): in the
    statements refcheck's graph holds (those reachable from the entry by its edges), never
    acquired, released, consumed, stored, returned, null-tested, compared, recorded in a flag,
    resized or size-checked, nor passed to newContiguous (which may return it), and assigned only
    NULL or each other (an assignment joins two variables both ways): only dereferenced and
    passed to borrowing calls."""
    tracked = {"p"}
    links: list[tuple[str, str]] = []
    targets: set[int] = set()

    def returned(r: Return | None) -> None:
        if r is not None and r.value:
            tracked.add(r.value)

    def visit(stmts, live: bool = True) -> bool:
        """Record what the reachable statements do; whether the end is reached by falling through."""
        for s in stmts:
            if isinstance(s, Label):
                live = live or s.label in targets
            if not live:
                continue
            if isinstance(s, Acquire):
                tracked.add(s.var)
                if s.contiguous:
                    tracked.add(s.arg)
                returned(s.checked)
            elif isinstance(s, (Release, Move, Store, Flag)):
                tracked.add(s.target)
            elif isinstance(s, (Resize, SizeCheck)):
                tracked.update((s.target, s.source))
            elif isinstance(s, Return):
                returned(s)
                live = False
            elif isinstance(s, NullCheck):
                tracked.add(s.target)
                returned(s.ret)
            elif isinstance(s, If):
                if isinstance(s.cond, tuple) or (isinstance(s.cond, str) and decides(s)):
                    tracked.update((s.cond,) if isinstance(s.cond, str) else s.cond)
                then = visit(s.then)
                live = visit(s.orelse or ()) or then
            elif isinstance(s, Switch):
                ends = [visit(body) for _, body in s.cases]
                live = any(ends) or not s.exhaustive
            elif isinstance(s, Assign) and s.source != "NULL":
                links.append((s.var, s.source))
            elif isinstance(s, Goto):
                targets.add(s.label)
                live = False
            elif isinstance(s, Error) and s.status is None:
                live = False
        return live

    every = list(_walk(body))
    same = _assigned_classes(every)
    derefed = {same(s.target) for s in every if isinstance(s, Use) and s.deref}

    def decides(s: If) -> bool:
        """A null test tracks its pointer unless the pointer (with those assigned to and from it)
        is never dereferenced and the arms only pass it to calls (slicing.idle_null_tests)."""
        x = same(s.cond)
        arms = (*s.then, *(s.orelse or ()))
        return x in derefed or not all(isinstance(a, Use) and not a.deref and same(a.target) == x for a in arms)

    while True:  # until every reachable goto's label is known reachable
        known = set(targets)
        tracked, links = {"p"}, []
        visit(body)
        if targets == known:
            break
    changed = True
    while changed:
        changed = False
        for a, b in links:
            if (a in tracked) != (b in tracked):
                tracked.update((a, b))
                changed = True
    return frozenset(f"t{k}" for k in range(NVARS)) - tracked
