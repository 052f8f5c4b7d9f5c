"""Lists freed shallowly: the elements of a local list the function frees with `g_list_free`.

GLib's containers keep the data they are given (the glib preset's `store` of `g_list_append`'s
data): the caller hands an element over and frees it through the list (`g_list_free_full (l,
g_object_unref)`). `g_list_free` frees the list's cells only ("If list elements contain
dynamically-allocated memory, you should either use g_list_free_full() or free them manually
first", GLib's documentation): a local list the function frees so, and never walks (its cells
read, another variable made to point into it, a callback handed it), held its elements borrowed,
and their references stay with whoever had them (libsecret's tests: `l = g_list_append (l,
item); ...; g_list_free (l); g_object_unref (item);`). The callees are the conventions'
`shallow_free` (issue 32); found per function, by syntax, once per build.
"""

from __future__ import annotations

import clang.cindex as ci

from refcheck.conventions.summary import Effect, Source
from refcheck.frontend.argtypes import defined_here, is_function_pointer, named_function
from refcheck.frontend.binding import cursor_key, definition
from refcheck.frontend.clangutil import K, STRIPPED, binop, is_expression, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import is_null_constant
from refcheck.frontend.fieldowners import edges
from refcheck.frontend.recordfrees import given_by


# Where a list's mention is only a test of it.
_TESTS = frozenset({"==", "!="})


def lending_calls(b) -> frozenset:
    """The cursor keys of the calls that put elements into a shallowly freed local list: those
    given it first, and those whose result it is assigned or initialised from."""
    if b.shallow_calls is None:
        b.shallow_calls = frozenset(_lending_calls(b)) if b.conv.shallow_free else frozenset()
    return b.shallow_calls


def local_uses(b, addresses: bool = False):
    """Each use of a local in the function's body: ("ref", v, parent, wrapper) for a reference
    (its parent expression past implicit casts and parentheses, and the parent's child that
    holds it), ("init", v, initializer expressions) for a declaration. With `addresses`, `&s` of
    a struct local s is s itself: the list object on the stack (`GQueue stack = G_QUEUE_INIT;
    g_queue_push_head (&stack, x)`) is handed to the list calls as a `GQueue *` is."""
    stack = [(b.fn, None, None)]
    while stack:
        c, parent, wrapper = stack.pop()
        k = kind_of(c)
        if k == K.DECL_REF_EXPR and parent is not None:
            v = b.var(referenced(c))
            if v is not None:
                yield "ref", v, parent, wrapper
        elif k == K.VAR_DECL:
            v = b.var(c)
            if v is not None:
                yield "init", v, [x for x in children_of(c) if is_expression(x)], None
        stripped = c._kind_id in STRIPPED or (addresses and _struct_address(c))
        for x in children_of(c):
            stack.append((x, parent, wrapper) if stripped else (x, c, x))


def _struct_address(c) -> bool:
    """`&s` for s a struct (or union) variable."""
    if kind_of(c) != K.UNARY_OPERATOR or unop(c) != "&":
        return False
    inner = next(iter(children_of(c)), None)
    inner = strip(inner) if inner is not None else None
    return inner is not None and kind_of(inner) == K.DECL_REF_EXPR \
        and inner.type.get_canonical().kind == ci.TypeKind.RECORD


def _lending_calls(b):
    freed, walked, calls = set(), set(), []
    uses = list(local_uses(b, addresses=True))
    for what, v, parent, wrapper in uses:
        if what == "ref":
            _classify(b, v, parent, wrapper, freed, walked, calls)
        else:
            init = [x for x in parent if kind_of(strip(x)) == K.CALL_EXPR]
            if init:
                calls.append((v, strip(init[-1])))
    pops: dict[bytes, set] = {}
    for v, call in calls:  # (a pop assigned to u is among the calls of u and of its list)
        if b.conv.matches("list_pops", b.callee_of(call)[1] or ""):
            pops.setdefault(cursor_key(call), set()).add(v)
    walked |= _handed_on(uses, pops)
    lists = freed - walked
    return (cursor_key(call) for v, call in calls if v in lists)


def _handed_on(uses: list, pops: dict) -> set:
    """The lists an element taken out of (a pop: `node = g_queue_pop_head (&stack)`) is handed on
    from: one popped into no local, or into a local that is more than read (`node->children`,
    a test): `g_object_unref (g_queue_pop_head (&q))` frees what the queue held."""
    into: dict[str, set] = {}
    caught = set()
    for what, u, parent, wrapper in uses:
        if what == "ref" and kind_of(parent) == K.BINARY_OPERATOR and binop(parent) == "=" \
                and wrapper is children_of(parent)[0]:
            rhs = strip(children_of(parent)[1])
            source = [rhs] if kind_of(rhs) == K.CALL_EXPR else []
        else:
            source = [strip(x) for x in parent if kind_of(strip(x)) == K.CALL_EXPR] if what == "init" else []
        for call in source:
            if (key := cursor_key(call)) in pops:
                into.setdefault(u, set()).update(pops[key])
                caught.add(key)
    out = {v for key, vs in pops.items() if key not in caught for v in vs}
    for what, u, parent, wrapper in uses:
        if what == "ref" and u in into and not _only_read(parent, wrapper):
            out |= into[u]
    return out


def _only_read(parent, wrapper) -> bool:
    """Whether this mention of a popped element only reads it: a member of it, a test of it, or
    the assignment that fills it."""
    k = kind_of(parent)
    if k == K.MEMBER_REF_EXPR or k in (K.IF_STMT, K.WHILE_STMT):
        return True
    if k == K.BINARY_OPERATOR:
        return binop(parent) in _TESTS or (binop(parent) == "=" and wrapper is children_of(parent)[0])
    return k == K.UNARY_OPERATOR and unop(parent) == "!"


def _takes_elements(b, call) -> bool:
    """Whether `call` is to a function of this unit whose body pops elements out of the list it
    is handed first and hands them on (`while ((d = g_queue_pop_head (queue))) notify_data_free
    (d);`): the list's elements were its to give."""
    decl = b.callee_of(call)[0]
    d = definition(decl) if decl is not None and kind_of(decl) == K.FUNCTION_DECL else None
    params = [k for k in children_of(d) if kind_of(k) == K.PARM_DECL] if d is not None else []
    if not params:
        return False
    popped, out = set(), False
    for user, k in edges(d):
        if kind_of(k) != K.CALL_EXPR or not b.conv.matches("list_pops", b.callee_of(k)[1] or ""):
            continue
        first = next(iter(k.get_arguments()), None)
        first = strip(first) if first is not None else None
        if first is None or kind_of(first) != K.DECL_REF_EXPR or referenced(first) != params[0]:
            continue
        lhs = strip(children_of(user)[0]) if kind_of(user) == K.BINARY_OPERATOR and binop(user) == "=" else None
        if kind_of(user) == K.VAR_DECL:
            popped.add(cursor_key(user))
        elif lhs is not None and kind_of(lhs) == K.DECL_REF_EXPR:
            popped.add(cursor_key(referenced(lhs)))
        else:
            out = out or kind_of(user) == K.CALL_EXPR and given_by(b, user, k)
    return out or any(kind_of(user) == K.CALL_EXPR and given_by(b, user, k) for user, k in edges(d)
                      if kind_of(k) == K.DECL_REF_EXPR and cursor_key(referenced(k)) in popped)


def _may_free(b, a) -> bool:
    """Whether argument `a` is a function that may free what it is given first: a releaser
    (`(GFunc) g_object_unref`), a function whose body releases its first parameter, one whose body
    is not seen, or a function pointer variable. An async call's completion callback, defined
    here and not releasing its source object, is none (`secret_item_load_secrets (items, NULL,
    on_async_result, &result)`)."""
    fn = named_function(a)
    if fn is None:
        return is_function_pointer(a.type)
    record = b.summary_of(fn, fn.spelling)
    if record.role in ("release", "consume") or record.effects(1).get(0) in (Effect.RELEASE, Effect.CONSUME):
        return True
    return not defined_here(fn) and record.source is Source.DEFAULT


def _classify(b, v: str, parent, wrapper, freed: set, walked: set, calls: list) -> None:
    """Note what one mention of local v does: freed shallowly, a list operation on it, a test of
    it, or anything else (walked: v is no shallowly freed list)."""
    k = kind_of(parent)
    kids = children_of(parent)
    if k == K.CALL_EXPR and kids and wrapper is not kids[0]:
        args = kids[1:]
        if any(_may_free(b, a) for a in args):
            walked.add(v)  # g_list_foreach (l, (GFunc) g_object_unref, NULL) frees the elements
        elif b.conv.matches("shallow_free", b.callee_of(parent)[1] or ""):
            freed.add(v)
        elif wrapper is args[0] and _takes_elements(b, parent):
            walked.add(v)  # gupnp's create_property_set (queue) pops and frees every element
        elif wrapper is args[0]:
            calls.append((v, parent))
        return
    if k == K.BINARY_OPERATOR and binop(parent) == "=" and len(kids) == 2 and wrapper is kids[0]:
        rhs = strip(kids[1])
        if kind_of(rhs) == K.CALL_EXPR:
            calls.append((v, rhs))
        elif not is_null_constant(rhs):
            walked.add(v)
        return
    if (k == K.BINARY_OPERATOR and binop(parent) in _TESTS) or (k == K.UNARY_OPERATOR and unop(parent) == "!") \
            or k in (K.IF_STMT, K.WHILE_STMT):
        return
    walked.add(v)
