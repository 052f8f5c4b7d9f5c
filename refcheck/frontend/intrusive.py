"""Functions that link a node into an intrusive list (Wine's and the kernel's list.h, bolt's BoltList).

`static inline void list_add_before (struct list *elem, struct list *to_add) { to_add->next =
elem; to_add->prev = elem->prev; elem->prev->next = to_add; elem->prev = to_add; }`: a link
record is nothing but members pointing to its own type (`struct list *next, *prev`: the node an
intrusive list embeds in each block it lists), and a function storing its parameter of that type
into such a member of memory another parameter reaches, after setting every link of its own (it
was in no list), links the node into that list. The list keeps what it links: the caller's
`list_add_tail (&db->tables, &table->entry)` hands the block embedding the node to the list
(`CallLowering.embedded_items`, `fixtures/glib_intrusive_list.c`), where the glib preset
otherwise lends a parameter only stored into memory (`fixtures/glib_setters_lend.c`); the list
head it is linked at stays its owner's. A wrapper passing its parameter on to such a function of
the unit at a linking position links it too (`list_add_tail` calls `list_add_before`).
"""

from __future__ import annotations

from refcheck.frontend.binding import cursor_key, definition, of_kinds, referenced
from refcheck.frontend.clangutil import K, binop, kind_of, named_parameter, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.unit import in_system_header

import clang.cindex as ci

_ASSIGNS = frozenset((K.BINARY_OPERATOR.value,))
_CALLS = frozenset((K.CALL_EXPR.value,))
_DEPTH = 4  # wrappers of wrappers: list_add_tail -> list_add_before; deeper chains are not lists


def linking_parameters(fn) -> list:
    """The declarations of fn's parameters it links into an intrusive list (module docstring)."""
    return [p for i, p in enumerate(fn.get_arguments()) if i in _linking(fn, {}, _DEPTH)]


def _node_record(t):
    """The record T of a parameter typed `T *`, T a link (its members only pointers to T: `next`,
    `prev`), else None. A record with a payload beside its links (a GObject's `parent`, a tree
    node's data) is an object that points to others, whose stores the glib preset lends."""
    t = t.get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return None
    rec = t.get_pointee().get_canonical()
    if rec.kind != ci.TypeKind.RECORD:
        return None
    own = rec.spelling
    fields = [f.type.get_canonical() for f in rec.get_fields()]
    links = [ft for ft in fields if ft.kind == ci.TypeKind.POINTER and ft.get_pointee().get_canonical().spelling == own]
    return rec if links and len(links) == len(fields) else None


def _linking(fn, memo: dict, depth: int) -> frozenset:
    """The positions of fn's node parameters its body links, memoised by the body's key."""
    key = cursor_key(fn)
    if key in memo:
        return memo[key]
    memo[key] = frozenset()  # a recursive list function links nothing more through itself
    params = list(fn.get_arguments())
    nodes = {cursor_key(p): i for i, p in enumerate(params) if _node_record(p.type) is not None}
    if not nodes or len(params) < 2:
        return memo[key]
    found, written = set(), {}
    for c in of_kinds(fn, _ASSIGNS):
        i = _stored_node(c, nodes)
        if i is not None:
            found.add(i)
        j, member = _own_link(c, nodes)
        if j is not None:
            written.setdefault(j, set()).add(member)
    # The node inserted has every link of its own set (`to_add->next = ...; to_add->prev =
    # ...`): it was in no list. The position it is linked at (`to_add->prev = elem`) keeps a link
    # of its own: a list already, written into, not handed over.
    found = {i for i in found if written.get(i, set()) >= _links(params[i].type)}
    if depth > 0:
        for call in of_kinds(fn, _CALLS):
            found |= _passed_on(call, nodes, memo, depth)
    memo[key] = frozenset(found)
    return memo[key]


def _stored_node(c, nodes: dict) -> int | None:
    """i where `c` is `X->f = p` / `X.f = p`, p node parameter i, f a pointer to p's own record,
    X not p itself (`to_add->next = elem` links elem, not to_add)."""
    if binop(c) != "=":
        return None
    lhs, rhs = (strip(x) for x in children_of(c))
    ref = named_parameter(rhs)
    i = nodes.get(cursor_key(ref)) if ref is not None else None
    if i is None or kind_of(lhs) != K.MEMBER_REF_EXPR:
        return None
    if lhs.type.get_canonical() != ref.type.get_canonical():
        return None
    base = next(iter(children_of(lhs)), None)
    base = strip(base) if base is not None else None
    if base is not None and kind_of(base) == K.DECL_REF_EXPR and referenced(base) == ref:
        return None
    return i


def _links(t) -> set:
    """The member names of the link record `t` points to."""
    return {f.spelling for f in t.get_canonical().get_pointee().get_canonical().get_fields()}


def _own_link(c, nodes: dict) -> tuple:
    """(i, m) where `c` is `p->m = ...`, p node parameter i, else (None, None)."""
    if binop(c) != "=":
        return None, None
    lhs = strip(children_of(c)[0])
    if kind_of(lhs) != K.MEMBER_REF_EXPR:
        return None, None
    base = next(iter(children_of(lhs)), None)
    ref = named_parameter(base) if base is not None else None
    i = nodes.get(cursor_key(ref)) if ref is not None else None
    return (i, lhs.spelling) if i is not None else (None, None)


def _passed_on(call, nodes: dict, memo: dict, depth: int) -> set:
    """The node parameters `call` hands to a function of the unit at a position it links."""
    callee = referenced(call)
    body = definition(callee)
    if body is None or in_system_header(body.location):
        return set()
    links = _linking(body, memo, depth - 1)
    out = set()
    for j, arg in enumerate(call.get_arguments()):
        ref = named_parameter(arg) if j in links else None
        i = nodes.get(cursor_key(ref)) if ref is not None else None
        if i is not None:
            out.add(i)
    return out
