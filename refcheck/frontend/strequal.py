"""String equality tests of one variable against string literals (issue 32, glib33).

A D-Bus message handler dispatches on its interface and member names with a run of separate
`if (!strcmp (iface, IFACE_A)) {...}` / `if (!strcmp (iface, IFACE_B)) {...}` blocks
(at-spi2-core's registryd handle_method_root: twelve such blocks). Each test was a fact of its own
text, so every path through two blocks was explored, and a reply built in one block and
overwritten in the next was reported on paths no run takes (276 false RC007 in one function).
The text of a variable equals at most one literal: `strcmp (v, "A") == 0` known, `strcmp (v, "B")`
for another literal is decided unequal. Lowered as the integer tests are (`Fact.simple`): `(v, "!=",
"str:...")` for a call whose truth means unequal (strcmp, g_strcmp0: 0 where equal), `(v, "==",
...)` for one whose truth means equal (g_str_equal). The fact's own vars (v) drop it where v
changes, as any fact's. Only exact comparisons: no case folding (strcasecmp: "a" and "A" are two
literals one text matches), no prefixes (strncmp, g_str_has_prefix). A literal with escapes or
made of adjacent pieces may spell one text two ways: left out.
"""

from __future__ import annotations

from refcheck.frontend.binding import arguments, kind_of, referenced, spelling
from refcheck.frontend.clangutil import K, has_pointer_type, strip

# Callee -> the comparison its nonzero result says ("!=": zero where the texts are equal).
EQUALITY_CALLS = {"strcmp": "!=", "g_strcmp0": "!=", "g_str_equal": "=="}


def _literal(x) -> str | None:
    text = spelling(x) if kind_of(x) == K.STRING_LITERAL else ""
    if text.count('"') != 2 or "\\" in text or not text.startswith('"'):
        return None
    return "str:" + text


def string_equality(call, b) -> tuple | None:
    """(var, op, "str:<literal>") for `f (v, "lit")` or `f ("lit", v)` with f an exact string
    equality of EQUALITY_CALLS and v a local pointer variable; else None."""
    op = EQUALITY_CALLS.get(b.callee_of(call)[1])
    args = arguments(call) if op is not None else []
    if len(args) != 2 or any(x is None for x in args):
        return None
    a, c = strip(args[0]), strip(args[1])
    for var_expr, lit_expr in ((a, c), (c, a)):
        lit = _literal(lit_expr)
        ref = referenced(var_expr) if lit is not None and kind_of(var_expr) == K.DECL_REF_EXPR else None
        if ref is not None and has_pointer_type(var_expr):
            v = b.var(ref)
            if v is not None:
                return (v, op, lit)
    return None
