"""Results owned only where a truth-value parameter is set (`Summary.owned_if_flag`, issue 32).

libsoup's `parse_value (const char **val_p, gboolean copy)`: `if (copy) value = g_strndup (...);
else value = NULL; ... return value;`. Read as plain OWNED, each `parse_value (&p, FALSE)` that
only skips a value leaked (glib39: 3 false RC001). The body's tests of an integer parameter are
remembered to its returns (`flag_tests`, added to `Transfer.correlated`); where every owned
return passed the parameter set and every other return is NULL with it clear, the record says
so, and a call that passes a 0 constant there owns nothing (`Summary.at_call`). A call with any
other argument still owns the result.
"""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.state import ObjId, State
from refcheck.rules.events import Nullness

# The most flag parameters whose tests are remembered to the returns.
_MOST = 2


def flag_tests(cfg, data: dict, kept: set) -> dict[str, tuple[int, bool, str]]:
    """Condition key -> (parameter index, the answer that means set, the parameter): the kept
    truth tests (`copy`, `copy != 0`, `!copy`) of one integer parameter, in a function returning
    a pointer. Each key remembered keeps apart states that would join, so only where one or two
    parameters are tested so (a flag, not a function of modes)."""
    if not cfg.returns_pointer:
        return {}
    scalars = {var: i for i, (var, is_ptr) in enumerate(cfg.params) if var is not None and not is_ptr}
    out: dict[str, tuple[int, bool, str]] = {}
    for d in data.values():
        cond = d.cond
        if type(cond) is not ir.Fact or cond.key not in kept or not cond.simple:
            continue
        var, op, k = cond.simple
        if var in scalars and k == 0 and op in ("!=", "=="):
            out[cond.key] = (scalars[var], op == "!=", var)
    return out if len({t[0] for t in out.values()}) <= _MOST else {}


class FlagResults:
    """A mixin of `Summarizer`: what each return handed back beside whether each flag parameter
    was set on its path."""

    def init_flag_results(self) -> None:
        self.flag_tests: dict[str, tuple[int, bool, str]] = {}  # set by the exploration (`flag_tests`)
        self.flag_returns: set = set()  # (kind: "owned" | "null" | "other", ((index, set?), ...))

    def at_flag_return(self, st: State, oid: ObjId | None, null: bool) -> None:
        o = st.objs.get(oid) if oid is not None else None
        kind = "null" if (o is None and null) or (o is not None and o.null == Nullness.NULL) else \
            "owned" if o is not None and o.owned > 0 else "other"
        answers = []
        for key, (i, means_set, var) in self.flag_tests.items():
            a = st.facts.conds.get(key)
            if a is not None:
                answers.append((i, a == means_set))
            else:  # a simple test is decided by the variable's value: 0, or 0 excluded
                k = st.facts.consts.get(var)
                answers.append((i, k != 0 if k is not None else True if 0 in st.facts.excluded.get(var, ()) else None))
        self.flag_returns.add((kind, tuple(sorted(answers, key=lambda x: (x[0], x[1] is None, x[1])))))

    def owned_if_flag(self) -> int | None:
        """The parameter set at every owned return and clear at every other, each NULL; None
        where no such parameter tells them apart."""
        kinds = {kind for kind, _ in self.flag_returns}
        if kinds != {"owned", "null"}:
            return None
        for i in sorted({t[0] for t in self.flag_tests.values()}):
            at = [(kind, {a for j, a in answers if j == i}) for kind, answers in self.flag_returns]
            if all(seen == {True} for kind, seen in at if kind == "owned") and \
                    all(seen == {False} for kind, seen in at if kind == "null"):
                return i
        return None
