"""Nodes linked into memory a parameter reaches (issue 31, cpystore; the cpython preset's setters).

fastcache's `insert_first (root, key, result)` makes a node (`first = PyObject_New (...)`),
stores `first->key = key` and links it `root->next = first`: the node is this frame's object
only until it is linked, after which what it holds is kept by the caller's list, as a store into
`root` itself would be. A local holding fresh memory is such a node where the function stores
it into memory a parameter (or another reaching local) reaches; a store into the node is then
a setter's store (`setters.reaching_locals`). A node never linked stays this frame's object.
"""

from __future__ import annotations

from refcheck.frontend.binding import cursor_key
from refcheck.frontend.clangutil import K, binop, has_pointer_type, kind_of, referenced, strip
from refcheck.frontend.clangutil import kids as children_of


def linked_stores(fn) -> list:
    """(local key, target expression) of each `target = v;` in `fn` where `v` is a local pointer
    variable and the target is memory (a field, `*p`, an element): what a link may be."""
    out = []
    stack = list(children_of(fn))
    while stack:
        c = stack.pop()
        stack.extend(children_of(c))
        if kind_of(c) != K.BINARY_OPERATOR or binop(c) != "=":
            continue
        lhs, rhs = (strip(x) for x in children_of(c))
        if lhs is None or rhs is None or kind_of(lhs) == K.DECL_REF_EXPR:
            continue
        if kind_of(rhs) != K.DECL_REF_EXPR or not has_pointer_type(rhs):
            continue
        ref = referenced(rhs)
        if ref is not None and kind_of(ref) == K.VAR_DECL:
            out.append((cursor_key(ref), lhs))
    return out


def _reaches(target, reach: set) -> bool:
    """Whether a store's target is reached through a pointer parameter or a reaching local."""
    stack = [target]
    while stack:
        x = stack.pop()
        if kind_of(x) == K.DECL_REF_EXPR:
            r = referenced(x)
            if r is not None and has_pointer_type(x) and (
                    kind_of(r) == K.PARM_DECL or cursor_key(r) in reach):
                return True
        stack.extend(children_of(x))
    return False


def linked_locals(stores: list, reach: set, candidates, escaped: set) -> set:
    """The locals among `candidates` (pointer locals not otherwise reaching) that some store
    links into memory `reach` (with the parameters) reaches, to a fixed point: a node linked
    after another node (`last->next = node` with `last` linked) counts too."""
    linked: set = set()
    changed = True
    while changed:
        changed = False
        for key, target in stores:
            if key in linked or key in reach or key in escaped or key not in candidates:
                continue
            if _reaches(target, reach | linked):
                linked.add(key)
                changed = True
    return linked
