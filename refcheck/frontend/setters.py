"""Stores of a parameter into memory another parameter reaches (the cpython preset's setters).

`pc->dictObj = dictObj` stores into the out-object directly; multidict's `entry->identity =
identity` stores into a table entry reached through locals derived from the parameter `md`
(`keys = md->keys; entry = htkeys_entries (keys) + keys->nentries`). Both are stores into the
caller's memory, which the caller keeps or settles, not into memory of this frame.
"""

from __future__ import annotations

import clang.cindex as ci

from refcheck import ir
from refcheck.frontend.argtypes import destroy_notify
from refcheck.frontend.clangutil import K, binop, has_pointer_type, kind_of, referenced, strip, unop
from refcheck.frontend.binding import cursor_key
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.graph import resolved_callee
from refcheck.frontend.overloads import record_of
from refcheck.frontend.linked import linked_locals, linked_stores


def fresh_memory(call, conv) -> bool:
    """A call that returns memory of its own (an acquirer, a reallocation): a local holding its
    result is this frame's object, not memory its parameters reach."""
    return record_of(conv, *resolved_callee(call, conv)).role in ("acquire", "reallocate")


def reaching_locals(fn, conv) -> dict:
    """`cursor_key` -> declaration of the local pointer variables whose every value (initializer,
    each `v = e`) mentions a pointer parameter or another such local and calls nothing that
    returns memory of its own (`fresh_memory`: `o = PyTuple_New (n)` is this frame's object). A
    local whose address is taken (`&v`) may be written elsewhere: not one. Where setters are
    inferred (the cpython preset), a local the function links into such memory is one too
    (`root->next = first`: a node of the caller's list, `frontend.linked`)."""
    values: dict = {}  # local key -> the expressions assigned to it
    decls: dict = {}
    escaped: set = set()
    stack = list(children_of(fn))
    while stack:
        c = stack.pop()
        k = kind_of(c)
        if k == K.VAR_DECL and has_pointer_type(c):
            init = [x for x in children_of(c) if kind_of(x) != K.TYPE_REF]
            values.setdefault(cursor_key(c), []).extend(init[-1:])
            decls[cursor_key(c)] = c
        elif k == K.BINARY_OPERATOR and binop(c) == "=":
            lhs = strip(list(children_of(c))[0])
            ref = referenced(lhs) if kind_of(lhs) == K.DECL_REF_EXPR else None
            if ref is not None and kind_of(ref) == K.VAR_DECL:
                values.setdefault(cursor_key(ref), []).append(list(children_of(c))[1])
        elif k == K.UNARY_OPERATOR and unop(c) == "&" and children_of(c):
            x = strip(children_of(c)[0])
            if x is not None and kind_of(x) == K.DECL_REF_EXPR and referenced(x) is not None:
                escaped.add(cursor_key(referenced(x)))
        stack.extend(children_of(c))
    reach: set = set()
    changed = True
    while changed:
        changed = False
        for key, exprs in values.items():
            if key in reach or key in escaped:
                continue
            if exprs and all(_mentions(e, reach, conv) for e in exprs):
                reach.add(key)
                changed = True
    if conv.infer_setters:
        reach |= linked_locals(linked_stores(fn), reach, decls.keys(), escaped)
    return {key: decls[key] for key in reach if key in decls}


def stores_through_locals(graph, params) -> bool:
    """Whether the built graph holds a plain store of a pointer parameter whose address depends on
    a local, the one store `analysis.summarize.stored_only` reads `FunctionCFG.reaching` for: the
    only graphs worth `reaching_locals`' walk of the body (most have none)."""
    pointers = {v for v, is_ptr in params if v is not None and is_ptr}
    if not pointers:
        return False
    for _, d in graph.nodes(data="data"):
        for op in (*d.ops, *d.post):
            if type(op) is ir.Store and op.var in pointers and op.target and not op.sink \
                    and op.deps - pointers - {op.var}:
                return True
    return False


def _mentions(e, reach: set, conv) -> bool:
    """Whether `e` reads a pointer parameter or a reaching local, and calls no acquirer."""
    found = False
    stack = [e]
    while stack:
        x = stack.pop()
        k = kind_of(x)
        if k == K.CALL_EXPR and fresh_memory(x, conv):
            return False
        if k == K.DECL_REF_EXPR:
            r = referenced(x)
            if r is not None and has_pointer_type(x) and (
                    kind_of(r) == K.PARM_DECL or cursor_key(r) in reach):
                found = True
        stack.extend(children_of(x))
    return found


def stores_parameter(c, reach=dict) -> bool:
    """`q->f = p;` (or `*q = p`) of a pointer parameter p into memory another parameter q reaches
    (the out-object), directly or through a local `reach()` names (`reaching_locals`, asked only
    for a store of a parameter through a local): a setter whose
    caller keeps, or settles, the count of what it stored (the cpython preset). Not a local
    struct's field (`args.pattern = p`), which dies with the call."""
    if binop(c) != "=":
        return False
    lhs, rhs = list(children_of(c))
    e, target = strip(rhs), strip(lhs)
    if kind_of(e) != K.DECL_REF_EXPR or not has_pointer_type(e) or kind_of(target) == K.DECL_REF_EXPR:
        return False
    ref = referenced(e)
    if ref is None or kind_of(ref) != K.PARM_DECL:
        return False
    stack = [target]
    while stack:
        x = stack.pop()
        if kind_of(x) == K.DECL_REF_EXPR:
            r = referenced(x)
            if r is not None and r != ref and has_pointer_type(x) and (
                    kind_of(r) == K.PARM_DECL or kind_of(r) == K.VAR_DECL and cursor_key(r) in reach()):
                return True
        stack.extend(children_of(x))
    return False


def takes_notify(fn) -> bool:
    """`fn` has a parameter of GDestroyNotify's shape, `void (*) (T *)` (`xb_opcode_init (self,
    kind, str, val, destroy_func)`): the data it stores beside it is handed over, not lent."""
    for c in children_of(fn):
        if kind_of(c) != K.PARM_DECL:
            continue
        t = c.type.get_canonical()
        if t.kind == ci.TypeKind.POINTER and destroy_notify(t.get_pointee()):
            return True
    return False


def untyped_parameters(fn) -> list:
    """The `void *` parameters of `fn` (not `const void *`): GLib's `gpointer user_data`."""
    out = []
    for c in children_of(fn):
        t = c.type.get_canonical() if kind_of(c) == K.PARM_DECL else None
        if t is not None and t.kind == ci.TypeKind.POINTER:
            p = t.get_pointee()
            if p.get_canonical().kind == ci.TypeKind.VOID and not p.is_const_qualified():
                out.append(c)
    return out


def closure_data(fn) -> list:
    """The `gpointer` parameters of `fn` that come right after a function-pointer parameter,
    where `fn` takes no destroy notify: the user data of its caller's callback (`gom_adapter_
    open_async (adapter, uri, callback, user_data)`), which GLib's (closure) convention leaves
    the caller's (none where `fn` takes a notify: its data is handed over with it)."""
    params = [c for c in children_of(fn) if kind_of(c) == K.PARM_DECL]
    if takes_notify(fn):
        return []
    out = []
    for before, c in zip(params, params[1:]):
        t, b = c.type.get_canonical(), before.type.get_canonical()
        if (t.kind == ci.TypeKind.POINTER and t.get_pointee().get_canonical().kind == ci.TypeKind.VOID
                and b.kind == ci.TypeKind.POINTER
                and b.get_pointee().get_canonical().kind in (ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO)):
            out.append(c)
    return out
