"""A local pointer that holds the address of another local: `T **pp = &v;`, then `*pp` is `v`.

GLib's `g_clear_pointer (&x, free)` expands (with typeof) to `{ T **_pp = &x; T *_ptr = *_pp;
*_pp = NULL; if (_ptr) free (_ptr); }`: without the alias, `x` escapes, its object is dropped
untouched and `_ptr` is an unrelated load, so a parameter cleared so is not given up. The
alias holds only where `pp` is never assigned again nor has its address taken in the block
that declares it (its value is then `&v` wherever it is read); otherwise `&v` escapes as before.
"""

from __future__ import annotations

from refcheck.frontend.binding import cursor_key, referenced
from refcheck.frontend.clangutil import K, binop, kind_of, strip, unop
from refcheck.frontend.clangutil import kids as children_of

COMPARING = ("==", "!=", "<=", ">=")
ASSIGNING = (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR)


def address_alias(b, decl, init, block) -> str | None:
    """The local `v` when `decl` (a pointer to a pointer) is initialised with `&v` and never
    written again in `block`."""
    c = strip(init)
    if block is None or kind_of(c) != K.UNARY_OPERATOR or unop(c) != "&":
        return None
    target = strip(next(iter(children_of(c)), c))
    if kind_of(target) != K.DECL_REF_EXPR:
        return None
    v = b.var(referenced(target))
    if v is None or _written(block, decl):
        return None
    return v


def _written(block, decl) -> bool:
    """`decl` is assigned, incremented or has its address taken somewhere in `block`."""
    key = cursor_key(decl)
    for c in block.walk_preorder():
        k = kind_of(c)
        if k in ASSIGNING and binop(c).endswith("=") and binop(c) not in COMPARING:
            lhs = next(iter(c.get_children()), None)
        elif k == K.UNARY_OPERATOR and unop(c) in ("&", "++", "--", "post++", "post--"):
            lhs = next(iter(c.get_children()), None)
        else:
            continue
        lhs = strip(lhs) if lhs is not None else None
        if lhs is not None and kind_of(lhs) == K.DECL_REF_EXPR:
            ref = referenced(lhs)
            if ref is not None and cursor_key(ref) == key:
                return True
    return False


def aliased(b, c) -> str | None:
    """The local that `*pp` names (`c` is the `*pp` cursor), where pp is such an alias."""
    if not b.aliases or kind_of(c) != K.UNARY_OPERATOR or unop(c) != "*":
        return None
    base = strip(next(iter(children_of(c)), c))
    if kind_of(base) != K.DECL_REF_EXPR:
        return None
    return b.aliases.get(b.var(referenced(base)))
