"""Integer constants stored into the fields of a local struct (`context.did_prescan = TRUE;`).

gdk-pixbuf's PNM loader reads in a loop guarded by flags in a local struct: `if
(!context.did_prescan) { ...; context.did_prescan = TRUE; context.pixbuf = gdk_pixbuf_new (...); }`,
with `pnm_read_scanline (&context)` on every trip. The store's constant decides the field's next
test (`ir.Store.truth`), so the pixbuf is made on one trip only. That holds only where nothing else
can write the field between the store and the test: the struct is a local whose address goes
nowhere but straight into calls of this unit whose bodies use that parameter only to reach its
fields (`p->f`, `&p->f`), test it, or hand it to such a function, never keeping `p` itself. Such a
call still makes unknown what it may write (a member assigned, incremented, or whose address it
takes or which it hands on as an array); the others' truths survive it (`ir.Escape.spared`). A
member whose address such a callee takes carries no truth, nor does any field of a struct whose
address is kept, stored, copied into a pointer (`q = &s`) or handed to a body not seen.
"""

from __future__ import annotations

from dataclasses import dataclass

import clang.cindex as ci

from refcheck.frontend.binding import cursor_key, definition, referenced
from refcheck.frontend.clangutil import K, binop, converted_constant, has_scalar_type, kind_of, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import key_of
from refcheck.frontend.graph import callee_of

_RECORD = ci.TypeKind.RECORD
_THROUGH = frozenset(k.value for k in (K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR))
_ASSIGNS = ("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=")


@dataclass(frozen=True)
class Reach:
    """What a callee may do to the members of the struct its parameter points to."""

    kept: frozenset  # members whose address it takes (it may keep it)
    written: frozenset  # members it may write


ALL = None  # the whole struct: kept or written anywhere


@dataclass
class Exposure:
    """Per function: the locals whose address is taken, and what may be done behind our back."""

    kept: dict  # var -> members whose address may be kept (ALL: the whole struct's)
    at: dict  # cursor key of an `&s` argument -> what its call may write (ALL or members)
    keys: dict  # (var, first member) -> the fact keys of constant stores into it


def member_path(target) -> tuple | None:
    """(the DECL_REF_EXPR of the local record s, its first member's name) of a target `s.f` or
    `s.f.g` (dot members only: no `->`, no array element), else None."""
    c = strip(target)
    if kind_of(c) != K.MEMBER_REF_EXPR:
        return None
    first = None
    while kind_of(c) == K.MEMBER_REF_EXPR:
        base = next(iter(children_of(c)), None)
        if base is None or base.type.get_canonical().kind != _RECORD:
            return None  # `p->f`: memory anyone holding p may write
        first, c = c.spelling, strip(base)
    return (c, first) if kind_of(c) == K.DECL_REF_EXPR else None


def constant_truth(b, target, k: int | None) -> bool | None:
    """The truth a store of the constant `k` into `target` gives the field's later tests: where
    `target` is a field of a local struct no one can write behind our back; None otherwise."""
    path = member_path(target) if k is not None else None
    v = b.var(referenced(path[0])) if path is not None else None
    if v is None:
        return None
    kept = exposure(b).kept
    if v in kept and (kept[v] is ALL or path[1] in kept[v]):
        return None
    return bool(k)


def spared(b, address, v: str) -> frozenset:
    """The fact keys of constant stores into v's members that the call handed `address` (`&v`)
    cannot write."""
    inner = next(iter(children_of(address)), None)
    if inner is None or inner.type.get_canonical().kind != _RECORD:
        return frozenset()  # `&error`, `&n`: no struct, no member facts
    e = exposure(b)
    written = e.at.get(cursor_key(address), ALL)
    if written is ALL or e.kept.get(v) is ALL:
        return frozenset()
    return frozenset(k for (w, f), ks in e.keys.items() if w == v and f not in written for k in ks)


def exposure(b) -> Exposure:
    found = getattr(b, "_struct_exposure", None)
    if found is None:
        found = Exposure({}, {}, {})
        _walk(b, b.fn, False, found)
        b._struct_exposure = found
    return found


def _merge(old, new):
    return ALL if old is ALL or new is ALL else old | new


def _walk(b, c, argument, e: Exposure) -> None:
    """`argument`: where `c` is a call's argument (or inside its parentheses and casts), the
    callee's Reach for it (ALL: it may keep it); False elsewhere."""
    k = kind_of(c)
    if k == K.UNARY_OPERATOR and unop(c) == "&":
        _address(b, c, argument, e)
    elif k == K.BINARY_OPERATOR and binop(c) == "=":
        lhs, rhs = (list(children_of(c)) + [None, None])[:2]
        path = member_path(lhs) if lhs is not None and rhs is not None else None
        if path is not None and has_scalar_type(lhs) and converted_constant(rhs) is not None:
            v, key = b.var(referenced(path[0])), key_of(b, strip(lhs))
            if v is not None and key is not None:
                e.keys.setdefault((v, path[1]), set()).add(key[0])
    if k == K.CALL_EXPR:
        args = list(c.get_arguments())
        decl, _ = b.callee_of(c)
        keys = {cursor_key(a): i for i, a in enumerate(args)}
        for kid in children_of(c):
            i = keys.get(cursor_key(kid))
            # Only an address argument needs the callee's body read.
            address = i is not None and kind_of(strip(kid)) == K.UNARY_OPERATOR and unop(strip(kid)) == "&"
            _walk(b, kid, reach(decl, i) if address else False, e)
        return
    through = argument if c._kind_id in _THROUGH else False
    for kid in children_of(c):
        _walk(b, kid, through, e)


def _address(b, c, argument, e: Exposure) -> None:
    inner = strip(next(iter(children_of(c)), c))
    if kind_of(inner) == K.DECL_REF_EXPR:
        v = b.var(referenced(inner))
        if v is not None:
            e.kept[v] = _merge(e.kept.get(v, frozenset()), ALL if argument is False or argument is ALL
                               else argument.kept)
            e.at[cursor_key(c)] = ALL if argument is False or argument is ALL else argument.written
        return
    path = member_path(inner)
    v = b.var(referenced(path[0])) if path is not None else None
    if v is not None:  # `&s.m` reaches m only
        e.kept[v] = _merge(e.kept.get(v, frozenset()), frozenset((path[1],)))


def reach(decl, i: int, depth: int = 0):
    """The Reach of a callee's body over `*p` (p: its parameter i), where the body uses p only to
    reach fields, to test it, or to hand it to a function of this unit that does the same (three
    calls deep); ALL where it may keep p (or no body is seen)."""
    d = definition(decl) if decl is not None and depth < 3 else None
    params = list(d.get_arguments()) if d is not None else []
    if i >= len(params) or params[i].type.get_canonical().kind != ci.TypeKind.POINTER:
        return ALL
    body = next((x for x in children_of(d) if kind_of(x) == K.COMPOUND_STMT), None)
    if body is None:
        return ALL
    kept: set = set()
    written: set = set()
    if not _only_fields(body, cursor_key(params[i]), (), kept, written, depth):
        return ALL
    return Reach(frozenset(kept), frozenset(written))


def _only_fields(c, param: bytes, parents: tuple, kept: set, written: set, depth: int) -> bool:
    if kind_of(c) == K.DECL_REF_EXPR and cursor_key(referenced(c) or c) == param:
        return _field_use((c, *parents), kept, written, depth)
    up = (c, *parents[:7])
    return all(_only_fields(kid, param, up, kept, written, depth) for kid in children_of(c))


def _field_use(chain: tuple, kept: set, written: set, depth: int) -> bool:
    """A mention of the parameter (chain[0]) whose enclosing nodes (innermost first) use it to
    reach a field (`p->f`; noted as written or kept where so used), test it (`p == NULL`, `!p`,
    `if (p)`) or hand it on (`helper (p)`, where helper does the same)."""
    at = next((n for n in range(1, len(chain)) if chain[n]._kind_id not in _THROUGH), None)
    if at is None:
        return False
    up, ups = chain[at], [p for p in chain[at:] if p._kind_id not in _THROUGH]
    k = kind_of(up)
    if k == K.MEMBER_REF_EXPR:
        _member_use(ups, kept, written)
        return True
    if k == K.CALL_EXPR:
        keys = [cursor_key(a) for a in up.get_arguments()]
        below = cursor_key(chain[at - 1])
        if below not in keys:
            return False
        decl, _ = callee_of(up)
        r = reach(decl, keys.index(below), depth + 1)
        if r is ALL:
            return False
        kept.update(r.kept)
        written.update(r.written)
        return True
    if k == K.BINARY_OPERATOR:
        return binop(up) in ("==", "!=", "&&", "||")
    if k == K.UNARY_OPERATOR:
        return unop(up) == "!"
    return k in (K.IF_STMT, K.WHILE_STMT)


def _member_use(ups: list, kept: set, written: set) -> None:
    """`p->m...` (ups[0] the member m): m written where the chain's top is assigned, stepped or
    has its address taken (then kept too), or is an array used as a pointer; a chain longer than
    the parents looked at counts as both."""
    m, i = ups[0].spelling, 1
    while i < len(ups) and kind_of(ups[i]) in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR):
        i += 1
    if i == len(ups):
        kept.add(m)
        written.add(m)
        return
    top, user = ups[i - 1], ups[i]
    ku = kind_of(user)
    if ku == K.UNARY_OPERATOR and unop(user) == "&":
        kept.add(m)
        written.add(m)
    elif ku == K.UNARY_OPERATOR and unop(user) in ("++", "--", "post++", "post--"):
        written.add(m)
    elif ku in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and binop(user) in _ASSIGNS \
            and cursor_key(strip(next(iter(children_of(user))))) == cursor_key(top):
        written.add(m)
    elif top.type.get_canonical().kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY):
        kept.add(m)  # an array member decays to a pointer into the struct
        written.add(m)
