"""Integer steps from a variable's own value: `state = STATE_NEW + state - STATE_CURRENT`.

totem-pl-parser's XML parser (issue 32) steps its `switch (state)` machine with `Q_STATE
(CURRENT, NEW)`, which its macro writes as that sum, so that one case serves a state and its `Q_`
twin. Lowered as an unknown value, every case was open after such a step, and paths the program
never takes (a property list made in the STRING state, returned from the IDLE state) made false
leaks. An assignment of a local integer plus or minus integer constants is an `ir.Shift`: C's
arithmetic on the value a case (or an earlier constant) fixed.
"""

from __future__ import annotations

from refcheck.frontend.clangutil import K, binop, constant, has_pointer_type, kind_of, referenced, strip
from refcheck.frontend.clangutil import kids as children_of

_SIGNS = {"+": 1, "-": -1}


def shift_of(b, rhs) -> tuple[str, int] | None:
    """(v, k) where the integer expression rhs is `v + k` for one local integer v, through `+`
    and `-` of integer constants, parentheses and casts; else None (a plain copy `x = v` too)."""
    if has_pointer_type(rhs):
        return None
    terms: list = []
    k = _collect(b, rhs, 1, terms, [0])
    if k is None or len(terms) != 1 or terms[0][1] != 1 or k[1] == 0:
        return None
    return terms[0][0], k[0]


def _collect(b, c, sign: int, terms: list, total: list):
    """Add c's constant part (times sign) to total[0] and its variables to terms; returns
    (total, count of constant leaves) or None where c is no such sum."""
    x = strip(c)
    if kind_of(x) == K.BINARY_OPERATOR and binop(x) in _SIGNS:
        kids = children_of(x)
        if len(kids) != 2:
            return None
        left = _collect(b, kids[0], sign, terms, total)
        right = _collect(b, kids[1], sign * _SIGNS[binop(x)], terms, total) if left is not None else None
        return None if right is None else (total[0], left[1] + right[1])
    if kind_of(x) == K.DECL_REF_EXPR:
        v = b.var(referenced(x))
        if v is not None and not has_pointer_type(x):
            terms.append((v, sign))
            return total[0], 0
    value = constant(x)
    if value is None:
        return None
    total[0] += sign * value
    return total[0], 1
