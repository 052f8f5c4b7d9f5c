"""What a function's returns tell its callers, folded from the paths a `Summarizer` collected."""

from __future__ import annotations

from refcheck.ir.digraph import immediate_dominators

from refcheck.analysis.nullness import null_told_parameters
from refcheck.analysis.state import ObjId, State
from refcheck.rules.events import Nullness
from refcheck.conventions.summary import Effect, Returns, When


class ResultFacts:
    """The result-side facts of `Summarizer.summary`: what is returned and under which flag,
    which parameters a non-zero result leaves NULL, which outputs every return has filled.
    A mixin: the attributes it reads (`results`, `flags`, `stores`, ...) are the Summarizer's."""

    def null_when_nonzero(self) -> tuple:
        """`Summary.null_when_nonzero`: the parameters known NULL at every return of a non-zero
        constant, not at some return of 0, where every return's constant is known (an integer
        test of its argument: `if (r == NULL && PyErr_ExceptionMatches (E)) return 1; return 0;`)."""
        told = null_told_parameters(self.cfg)
        return tuple(i for i, var in self.params if var in told
                     and set(by := self.by_result[i]) == {When.ZERO, When.NONZERO}
                     and by[When.NONZERO] == {"null"} and by[When.ZERO] - {"null"})

    def forwards(self, args: list) -> tuple:
        """`Summary.forwards`: the (data, callback) pairs of the body's async calls
        (`cfg.forwards`) whose data the record says is kept or taken over."""
        kept = {i for i, e in args if e in (Effect.SINK, Effect.CONSUME)}
        return tuple(sorted((self.index[d], self.index[c]) for d, c in self.cfg.forwards
                            if d in self.index and c in self.index and self.index[d] in kept))

    def leans(self, args: list) -> tuple:
        """`Summary.leans`: the parameters the record gives up whose only give-ups in the body
        are hand-overs to a cycle's assumed records, each with those records' names: no release
        (`freed`), no keeper no cycle assumes (`confirmed`). Whether such a hand-over is one is the cycle's
        to say (refcheck.driver.cycles)."""
        given = {i for i, e in args if e in (Effect.RELEASE, Effect.CONSUME, Effect.SINK, Effect.STORE)}
        real = self.confirmed | self.freed
        return tuple((i, tuple(sorted(self.leaning[var]))) for i, var in self.params
                     if i in given and var in self.leaning and var not in real)

    def result_family(self) -> tuple[str | None, bool]:
        """The allocator family of what it returns owned: one known family, else any (several, or
        one whose family nobody knows) -- `Conventions.family` reads it for the callers."""
        fams = self.result_families
        if len(fams) == 1 and None not in fams:
            return next(iter(fams)), False
        return None, bool(fams)

    def at_flags(self, st: State, oid: ObjId | None) -> None:
        """A return of an object: whether it is owned, beside the integer each flag output holds."""
        o = st.objs.get(oid) if oid is not None else None
        if o is None or o.null == Nullness.NULL:
            return
        kind = "owned" if o.owned > 0 else "borrowed"
        for target, i in self.flag_targets.items():
            self.flags.setdefault(i, set()).add((kind, st.facts.conds.get(target)))

    def owned_by_flag(self) -> tuple:
        """(index, value): the flag output whose value tells an owned result from a borrowed one,
        the one value at every owned return and the other at every borrowed one."""
        for i, seen in sorted(self.flags.items()):
            owned = {t for k, t in seen if k == "owned"}
            borrowed = {t for k, t in seen if k == "borrowed"}
            if len(owned) == 1 and len(borrowed) == 1 and None not in owned | borrowed and owned != borrowed:
                return (i, next(iter(owned)))
        return ()

    def returned(self) -> tuple[Returns, int | None]:
        owned = [r for r in self.results if r[0] == "owned"]
        if owned and self.owned_singletons == {True} and self.lends:
            # A borrowed getter whose only owned result is `Py_RETURN_NONE`'s (pyodbc's
            # Connection_GetConverter: None where there is no map, else PyDict_GetItem's item):
            # its callers take every result as borrowed, the singleton's count aside. Not where the
            # others are an error call's NULL (pycups' PPD_writeFd: `return PyErr_SetFromErrno
            # (...)`; its None's reference is the caller's).
            return Returns.BORROWED, None
        if owned:
            # A stolen parameter handed back is the caller's reference moved, not a second one.
            stolen = {self.index[v] for v in self.stolen_vars}
            moved = {r[1] for r in owned if r[1] in stolen}
            if len(moved) == 1 and len(owned) == 1 and self.results - {("null",), ("none",)} == {
                    *owned, ("argument", next(iter(moved)))}:
                # ... but handed back also after its release on other paths, the result is the
                # pointer, no reference (fastnumbers' `Selectors::decref (obj)`: Py_XDECREF (obj)
                # unless obj is a static selector, then `return obj;`).
                return Returns.ARGUMENT, next(iter(moved))
            given = [r[1] for r in owned if r[1] is not None and r[1] not in stolen]
            return Returns.OWNED, min(given) if given else None
        others = self.results - {("null",), ("none",)}
        if ("unknown",) in others:
            return Returns.UNKNOWN, None
        if len(others) == 1 and next(iter(others))[0] == "argument":
            return Returns.ARGUMENT, next(iter(others))[1]
        if not others and ("null",) in self.results:
            # NULL on every returning path: nothing to own, nor a borrowed object to misuse.
            return Returns.UNKNOWN, None
        return Returns.BORROWED, None

    def unless_singleton(self) -> str | None:
        """The singleton an owning function returns bare on its other paths, where that is all
        it returns besides its new references (and NULL, and values nobody counts, which say
        nothing of ownership): the caller owns the result unless it is that object."""
        others = {r for r in self.results if r[0] not in ("owned", "null", "none", "unknown")}
        return next(iter(others))[1] if len(others) == 1 and next(iter(others))[0] == "singleton" else None

    def filled(self) -> list[int]:
        """Parameters `p` whose `*p` gets an owned reference at a store every return passes."""
        good = [(n, i) for (n, i), ok in self.stores.items() if ok]
        if not good or not self.returns:
            return []
        dom = immediate_dominators(self.cfg.graph, self.cfg.entry)

        def dominates(a: int, b: int) -> bool:
            while True:
                if a == b:
                    return True
                up = dom.get(b)
                if up is None or up == b:
                    return False
                b = up
        return sorted({i for n, i in good if all(dominates(n, r) for r in self.returns)})
