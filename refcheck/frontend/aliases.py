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
    return _writes(block, decl)[0] > 0


def _writes(block, decl) -> tuple[int, int]:
    """How many times `decl` is written whole in `block` (assigned, incremented, its address
    taken) and how many times one of its members is assigned (`u.m = ...`)."""
    key, whole, members = cursor_key(decl), 0, 0
    for c in block.walk_preorder():
        k = kind_of(c)
        if k in ASSIGNING and binop(c).endswith("=") and binop(c) not in COMPARING:
            lhs = strip(next(iter(c.get_children()), c))
            member = kind_of(lhs) == K.MEMBER_REF_EXPR
            if member:
                lhs = strip(next(iter(children_of(lhs)), lhs))
        elif k == K.UNARY_OPERATOR and unop(c) in ("&", "++", "--", "post++", "post--"):
            lhs, member = strip(next(iter(c.get_children()), c)), False
        else:
            continue
        ref = referenced(lhs) if kind_of(lhs) == K.DECL_REF_EXPR else None
        if ref is not None and cursor_key(ref) == key:
            if member:
                members += 1
            else:
                whole += 1
    return whole, members


def aliased(b, c) -> str | None:
    """The local that `*pp` (or `*u.m`) names (`c` is the `*pp` cursor), where pp (u) is such an
    alias."""
    if not (b.aliases or b.unions) or kind_of(c) != K.UNARY_OPERATOR or unop(c) != "*":
        return None
    base = strip(next(iter(children_of(c)), c))
    if kind_of(base) != K.DECL_REF_EXPR:
        return union_member(b, base)
    return b.aliases.get(b.var(referenced(base)))


def union_alias(b, target, rhs) -> tuple[str, str] | None:
    """(u, v) for `u.m = (cast) &v`, u a local union and v a local, where that is the one write
    of u in the function: GLib's g_set_object macro puns the address through
    `union { char *in; GObject **out; } _object_ptr; _object_ptr.in = (char *) (&x);` to pass
    `_object_ptr.out`. Reading a member of u then reads `&v` (frontend.expressions)."""
    if block_of(b) is None or kind_of(target) != K.MEMBER_REF_EXPR:
        return None
    base = strip(next(iter(children_of(target)), target))
    decl = referenced(base) if kind_of(base) == K.DECL_REF_EXPR else None
    if decl is None or not _is_union(decl):
        return None
    u = b.var(decl)
    c = strip(rhs)
    if u is None or kind_of(c) != K.UNARY_OPERATOR or unop(c) != "&":
        return None
    inner = strip(next(iter(children_of(c)), c))
    v = b.var(referenced(inner)) if kind_of(inner) == K.DECL_REF_EXPR else None
    if v is None or _union_writes(block_of(b), decl) != 1:
        return None
    return u, v


def block_of(b):
    """The function's outermost block (a macro's statement expression is no block of its own)."""
    return b.blocks[0] if b.blocks else None


def _is_union(decl) -> bool:
    t = decl.type.get_canonical()
    d = t.get_declaration() if t.kind.name == "RECORD" else None
    return d is not None and kind_of(d) == K.UNION_DECL


def _union_writes(block, decl) -> int:
    """How many times the local union `decl` is written in `block` (its members assigned); 2 (too
    many) as soon as it is assigned whole, incremented or has its address taken."""
    whole, members = _writes(block, decl)
    return 2 * whole + members


def pointed_local(b, a) -> str | None:
    """The local an argument of pointer-to-pointer type points at: `&v`, a `pp` holding `&v`
    (address_alias), or a member of a union holding `&v` (union_alias); else None."""
    c = strip(a)
    k = kind_of(c)
    if k == K.UNARY_OPERATOR and unop(c) == "&":
        inner = strip(next(iter(children_of(c)), c))
        return b.var(referenced(inner)) if kind_of(inner) == K.DECL_REF_EXPR else None
    if k == K.DECL_REF_EXPR:
        return b.aliases.get(b.var(referenced(c)))
    return union_member(b, c)


def union_member(b, c) -> str | None:
    """The local v whose address the union member `u.m` holds (union_alias), else None."""
    if not b.unions or kind_of(c) != K.MEMBER_REF_EXPR:
        return None
    base = strip(next(iter(children_of(c)), c))
    return b.unions.get(b.var(referenced(base))) if kind_of(base) == K.DECL_REF_EXPR else None


# -- memory inside a local's own object (issue 32: back-pointers) ----------------------------------
#
# `init_side (client, &client->client_side)` stores `client` into `client->client_side.client`: an
# object holding a pointer to itself inside itself cannot own that reference (the cycle would never
# be freed), so it is a borrowed back-pointer, not a hand-over. These name the local x whose
# object an address lies inside: `&x->a.b`, `x->arr` (an array member decays to its address inside
# x), a member chain `x->a.b` as a store's target, or a local declared as one of them and never
# written again (`ProxySide *side = &client->client_side;`), or GObject's private part
# (`priv = foo_get_instance_private (x)`). `x->child` (a pointer loaded from x) and `x->a->b` point
# into another object.


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
            if kind_of(base) == K.CALL_EXPR:  # `GET_PRIVATE (x)->f`
                return instance_private(b, base)
            if private_part(base) is not None:  # `x->priv->f`: x's own private part
                base = strip(private_part(base))
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
    if k == K.CALL_EXPR:
        return instance_private(b, x)
    if private_part(x) is not None:  # `FooPrivate *priv = self->priv;`
        return inside(b, x)
    return None


def private_part(c):
    """The base `x` of `x->priv` when the member points to x's own GObject private part: a
    `FooPrivate` beside instance struct `Foo` (the pre-2.38 `priv` pointer, set from
    G_TYPE_INSTANCE_GET_PRIVATE in `foo_init`: memory the instance owns, not another object).
    None otherwise."""
    if kind_of(c) != K.MEMBER_REF_EXPR:
        return None
    base = next(iter(children_of(c)), None)
    t, bt = c.type.get_canonical(), strip(base).type.get_canonical() if base is not None else None
    if bt is None or t.kind != ci.TypeKind.POINTER or bt.kind != ci.TypeKind.POINTER:
        return None
    own = bt.get_pointee().get_canonical().get_declaration().spelling.lstrip("_")
    part = t.get_pointee().get_canonical().get_declaration().spelling.lstrip("_")
    return base if own and part == own + "Private" else None


def first_member_base(c):
    """The base `p` of `p->m` when m is a struct (or union) member at offset 0 of p's own record
    (not of an anonymous one inside it): `&p->m` is p's address, as C11 6.7.2.1p15 says of a
    pointer to a structure and its initial member (dconf's `&oc->handle`, GObject's
    `&self->parent_instance`). A pointer member (`&p->first`, a `T **` to fill) is no such thing:
    its address is a location, not the object. None otherwise."""
    x = strip(c)
    if kind_of(x) != K.MEMBER_REF_EXPR or x.type.get_canonical().kind != ci.TypeKind.RECORD:
        return None
    base = next(iter(children_of(x)), None)
    field = referenced(x)
    if base is None or field is None or kind_of(field) != K.FIELD_DECL:
        return None
    t = strip(base).type.get_canonical()
    if t.kind != ci.TypeKind.POINTER or field.get_field_offsetof() != 0:
        return None
    record = t.get_pointee().get_canonical().get_declaration()
    return base if field.semantic_parent == record else None


def address_of_member(a):
    """The member expression m of an argument `&m` (`&self->f`, `&(s.f)`), else None."""
    inner = strip(a)
    if kind_of(inner) != K.UNARY_OPERATOR or unop(inner) != "&":
        return None
    target = strip(next(iter(children_of(inner)), None) or inner)
    return target if kind_of(target) == K.MEMBER_REF_EXPR else None


def embedded_member_base(c):
    """The base `p` (stripped) of `&p->m`, m a struct (or union) member of p's own record at any
    offset; None otherwise (a pointer member's address is a location to fill, not the object)."""
    inner = address_of_member(c)
    if inner is None or inner.type.get_canonical().kind != ci.TypeKind.RECORD:
        return None
    base = next(iter(children_of(inner)), None)
    field = referenced(inner)
    if base is None or field is None or kind_of(field) != K.FIELD_DECL:
        return None
    t = strip(base).type.get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return None
    record = t.get_pointee().get_canonical().get_declaration()
    return strip(base) if field.semantic_parent == record else None


_ARRAYS = frozenset((ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY,
                     ci.TypeKind.DEPENDENTSIZEDARRAY))


def never_null_address(c) -> bool:
    """`&p->f`, `&s.f`, `&p->arr[i]`, `&local[i]`: the address of a member or of an element of an
    array (an object, not a pointer), which is never NULL where the expression is defined (issue
    31, cpy18: guppy3's `zf = &dst->ob_field[0]`). Not `&p[i]` with p a pointer: that is p + i."""
    x = strip(c)
    if kind_of(x) != K.UNARY_OPERATOR or unop(x) != "&":
        return False
    inner = next(iter(children_of(x)), None)
    inner = strip(inner) if inner is not None else None
    if inner is None:
        return False
    if kind_of(inner) == K.MEMBER_REF_EXPR:
        return True
    if kind_of(inner) != K.ARRAY_SUBSCRIPT_EXPR:
        return False
    base = next(iter(children_of(inner)), None)
    return base is not None and strip(base).type.get_canonical().kind in _ARRAYS


def never_null_result(conv, c) -> bool:
    """A call the conventions' `never_null` names, whose value is not tracked: cpython's
    PyBytes_AS_STRING (the address of the bytes' ob_sval array) in `str = PyBytes_AS_STRING
    (bytes); if (str == NULL)` (issue 31, cpy47: sqlalchemy's str_to_datetime), so the test is
    decided as for `&p->f`."""
    x = strip(c)
    return kind_of(x) == K.CALL_EXPR and conv.matches("never_null", x.spelling)


def instance_private(b, c) -> str | None:
    """The local x of `foo_get_instance_private (x)`: G_DEFINE_TYPE_WITH_PRIVATE's static inline
    returns `G_STRUCT_MEMBER_P (x, Foo_private_offset)`, an address inside x's own object."""
    if kind_of(c) != K.CALL_EXPR or not c.spelling.endswith("_get_instance_private"):
        return None
    args = list(c.get_arguments())
    x = plain_local(b, args[0]) if len(args) == 1 else None
    return b.interiors.get(x, x) if x is not None else None


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
