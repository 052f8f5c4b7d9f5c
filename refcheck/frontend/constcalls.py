"""A tested call whose record gives its integer result at this call (issue 31).

`Summary.result_constant` (every return of the callee gives one constant) and
`Summary.constant_if_null` (a NULL constant argument at that index makes it return one) are
read off the callee's graph (`analysis.constresults`). Where the caller tests the result, the
result variable is set to that constant, so the test's other edge is infeasible: numexpr's
`if (add_symbol (d, NULL, ...) < 0) { INITERROR; }` (its tables' unexported rows) cannot fail.
"""

from __future__ import annotations

from refcheck import ir
from refcheck.frontend.binding import cursor_key
from refcheck.frontend.conditions import is_null_constant


def known_result(summary, args: list) -> int | None:
    """The integer the call returns as its record says, given its argument cursors; None if unknown."""
    if summary.result_constant is not None:
        return summary.result_constant
    for i, k in summary.constant_if_null:
        if i < len(args) and is_null_constant(args[i]):
            return k
    return None


def constant_result(b, loc, name: str, call, status: str | None, k: int) -> None:
    """The tested call's result is `k`: a status variable (`r = f (...)`) or a temporary set to
    it, which the branch over the call then reads (`steals.status_condition`)."""
    r = status or b.temp(f"{name}(...)")
    b.emit(ir.Const(loc, r, k))
    b.status_vars[cursor_key(call)] = r
