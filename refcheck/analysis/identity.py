"""Acquirers whose result is a new object only where a test of their argument failed
(`newContiguous (x)` after `isContiguous (x)`): which tests to remember, and what a path's
remembered answers say; and pointers that may have left the frame (`escape`), which a fresh
object's identity depends on too (a mixin of `transfer.Transfer`, which holds `data`, `conv`,
`cond_vars`, `identity_tests`, `pair_keys` and `summarizer`)."""

from __future__ import annotations

from dataclasses import replace

from refcheck import ir
from refcheck.analysis.state import Kind, ObjId, State


class IdentityTests:
    def escape(self, st: State, oid: ObjId) -> None:
        """oid's pointer may now be kept outside this frame: a fresh acquisition's may be what
        memory holds from here on (`Assumptions.distinct`, asked of pointer comparisons only: in
        a function without one the flag would only split states); a parameter is one the
        function's record cannot call unkept (`Summarizer.escaped`)."""
        if oid.kind is Kind.ACQUIRE and self.pair_keys:  # only a pointer comparison reads it
            o = st.objs[oid]
            if not o.escaped:
                st.objs[oid] = replace(o, escaped=True)
        elif oid.kind is Kind.PARAM and self.summarizer is not None:
            self.summarizer.escaped.add(oid.site)

    def find_identity_tests(self, kept: set) -> dict[str, list]:
        """var -> [(condition key, test name)] of the kept conditions that call a one-argument
        test of var which an acquirer of var in this function depends on (`isContiguous(x)`
        before `newContiguous(x)`): remembered, so that the acquirer on its false edge is known
        fresh. A test no acquirer here reads is not remembered: TH's `if (isContiguous(r_) &&
        ...) ... else TH_TENSOR_APPLY3(...)` tests three tensors, and remembering their answers
        multiplied the APPLY loop's states by four for nothing."""
        out: dict[str, list] = {}
        if not self.conv.argument_returned_only_if:
            return out
        wanted = self.identity_acquirers()
        for key in kept:
            if not isinstance(key, str) or not key.startswith("call:") or "(" not in key:
                continue
            vars_ = self.cond_vars.get(key, ())
            name = key[5:key.index("(")]
            if len(vars_) != 1 or not key.startswith(f"call:{name}( 2 fn:{name} "):
                continue
            var = next(iter(vars_))
            if any(t.search(name) for t in wanted.get(var, ())):
                out.setdefault(var, []).append((key, name))
        return out

    def identity_acquirers(self) -> dict[str, list]:
        """var -> the test name patterns of the acquirers of var in this function whose identity
        depends on a test (`guarded_fresh`)."""
        out: dict[str, list] = {}
        for d in self.data.values():
            for op in (*d.ops, *d.post):
                if type(op) is ir.Acquire and op.source is not None:
                    test = self.conv.identity_test(op.callee)
                    if test is not None:
                        out.setdefault(op.source, []).append(test)
        return out

    def guarded_fresh(self, st: State, op: ir.Acquire) -> bool:
        """On this path the test the acquirer's identity depends on failed for its argument."""
        test = self.conv.identity_test(op.callee) if op.source in self.identity_tests else None
        return test is not None and any(st.facts.conds.get(key) is False and test.search(name)
                                        for key, name in self.identity_tests[op.source])
