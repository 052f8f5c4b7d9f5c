"""Results that are the argument itself where a test of it holds, a new object elsewhere
(`Summary.argument_when`, issue 31).

cvxopt's `create_indexlist (dim, A)` returns `A` itself, borrowed, where `Matrix_Check (A)`
holds, and a new index matrix where A is an integer, a slice or a list; every caller releases
the result only under `!Matrix_Check (A)` (`free_lists_exit`). Read as plain OWNED, each of
those callers leaked on the matrix path. The body's tests of a parameter it returns are
remembered to its returns (`argument_tests`, added to `Transfer.correlated`); where every
return of the parameter passed the test true and no owned return did, the record says so, and
a caller that tests the same thing of its argument takes the matching result
(`frontend.argtests`).
"""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.state import Kind, ObjId, State
from refcheck.rules.events import Nullness

# Stands for the argument in a test's condition key (`Summary.argument_when`): no key token
# (variables are `name#hash`, temporaries `$n`).
ARGUMENT = "@"


def argument_tests(cfg, data: dict, kept: set) -> dict[str, str]:
    """Condition key -> parameter var: the kept call tests of one pointer parameter alone
    (`PyObject_TypeCheck (A, &matrix_tp)`), in a function with a pointer result that returns
    that parameter itself somewhere. Empty for the others (nothing more to remember)."""
    if not cfg.returns_value:
        return {}
    params = {var for var, is_ptr in cfg.params if var is not None and is_ptr}
    returned = {d.value for d in data.values() if d.kind == "return" and d.value in params}
    if not returned:
        return {}
    out: dict[str, str] = {}
    for d in data.values():
        cond = d.cond
        if type(cond) is ir.Fact and cond.key in kept and cond.key.startswith("call:") and len(cond.vars) == 1:
            var = next(iter(cond.vars))
            if var in returned and var in cond.key.split(" "):
                out[cond.key] = var
    return out


class ArgumentTests:
    """A mixin of `Summarizer` (which holds `index`, `params_by_index`): what each return handed
    back beside the answers of the argument tests on its path."""

    def init_argument_tests(self) -> None:
        self.argument_tests: dict[str, str] = {}  # set by the exploration (`argument_tests`)
        # (what was returned: ("argument", i), ("owned",), ("null",), ("other",)), answers).
        self.tested_returns: set = set()

    def at_tests(self, st: State, kind: tuple) -> None:
        """A return of `kind` with the path's answers to the argument tests."""
        answers = tuple(sorted((k, st.facts.conds.get(k)) for k in self.argument_tests))
        self.tested_returns.add((kind, answers))

    def argument_when(self) -> tuple:
        """(index, test key with ARGUMENT for the parameter): every return of the parameter
        itself passed that test true, every owned return did not. Untracked results (the
        helper's own recursive call, `return create_indexlist (dim, x)`, before its record is
        known) say nothing, as in the OWNED reading itself (`ResultFacts.returned`). Empty where
        no test tells them apart."""
        kinds = {kind for kind, _ in self.tested_returns}
        if ("owned",) not in kinds:
            return ()
        given = {kind[1] for kind in kinds if kind[0] == "argument"}
        if len(given) != 1:
            return ()
        i = next(iter(given))
        var = self.params_by_index[i]
        for key, tested in sorted(self.argument_tests.items()):
            if tested != var:
                continue
            at = [(kind, dict(answers).get(key)) for kind, answers in self.tested_returns]
            if all(a is True for kind, a in at if kind[0] == "argument") and \
                    not any(a is True for kind, a in at if kind[0] == "owned"):
                return (i, " ".join(ARGUMENT if t == var else t for t in key.split(" ")))
        return ()


def result_kind(st: State, oid: ObjId | None, value: str | None, null: bool, index: dict) -> tuple:
    """What a return of `value` (`null`: a NULL constant) hands back, as `at_tests` sorts it."""
    o = st.objs.get(oid) if oid is not None else None
    if o is None:
        return ("null",) if value is None or null else ("other",)
    if o.null == Nullness.NULL:
        return ("null",)
    if o.owned > 0:
        return ("owned",)
    if oid.kind is Kind.PARAM and oid.site in index:
        return ("argument", index[oid.site])
    return ("other",)
