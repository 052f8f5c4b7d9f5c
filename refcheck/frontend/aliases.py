"""A local pointer that holds the address of another local: `T **pp = &v;`, then `*pp` is `v`.

GLib's `g_clear_pointer (&x, free)` expands (with typeof) to `{ T **_pp = &x; T *_ptr = *_pp;
*_pp = NULL; if (_ptr) free (_ptr); }`: without the alias, `x` escapes, its object is dropped
untouched and `_ptr` is an unrelated load, so a parameter cleared so is not given up. The
alias holds only where `pp` is never assigned again nor has its address taken in the block
that declares it (its value is then `&v` wherever it is read); otherwise `&v` escapes as before.
"""

from __future__ import annotations

import clang.cindex as ci

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


# -- memory inside a local's own object (issue 32: back-pointers) ----------------------------------
#
# `init_side (client, &client->client_side)` stores `client` into `client->client_side.client`: an
# object holding a pointer to itself inside itself cannot own that reference (the cycle would never
# be freed), so it is a borrowed back-pointer, not a hand-over. These name the local x whose
# object an address lies inside: `&x->a.b`, `x->arr` (an array member decays to its address inside
# x), a member chain `x->a.b` as a store's target, or a local declared as one of them and never
# written again (`ProxySide *side = &client->client_side;`). `x->child` (a pointer loaded from x)
# and `x->a->b` point into another object.


def inside(b, c) -> str | None:
    """The local x when lvalue `c` is a member chain in x's own object (`x->a`, `x->a.b`, or
    `s->f` for s an interior alias of x)."""
    x = strip(c)
    if kind_of(x) != K.MEMBER_REF_EXPR:
        return None
    while kind_of(x) == K.MEMBER_REF_EXPR:
        base = next(iter(children_of(x)), None)
        if base is None:
            return None  # a C++ member of the implicit `this`
        base = strip(base)
        if base.type.get_canonical().kind == ci.TypeKind.POINTER:  # `->`: inside *base
            if kind_of(base) != K.DECL_REF_EXPR:
                return None
            v = b.var(referenced(base))
            return b.interiors.get(v, v) if v is not None else None
        x = base  # `.`: the same object
    return None


def interior_root(b, c) -> str | None:
    """The local x when pointer expression `c` points inside x's own object: `&x->a.b`, an array
    member `x->arr`, or an interior alias of x."""
    x = strip(c)
    k = kind_of(x)
    if k == K.UNARY_OPERATOR and unop(x) == "&":
        return inside(b, next(iter(children_of(x)), x))
    if k == K.MEMBER_REF_EXPR and x.type.get_canonical().kind in _ARRAYS:
        return inside(b, x)
    if k == K.DECL_REF_EXPR:
        v = b.var(referenced(x))
        return b.interiors.get(v) if v is not None else None
    return None


def interior_alias(b, decl, init, block) -> str | None:
    """The local x when `decl` (a pointer) is initialised with an address inside x's object and
    never written again in `block`."""
    if block is None or decl.type.get_canonical().kind != ci.TypeKind.POINTER:
        return None
    x = interior_root(b, init)
    return x if x is not None and not _written(block, decl) else None


def plain_local(b, c) -> str | None:
    """The local a (cast-stripped) expression names, or None."""
    x = strip(c)
    return b.var(referenced(x)) if kind_of(x) == K.DECL_REF_EXPR else None


_ARRAYS = (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY)
