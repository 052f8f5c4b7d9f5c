"""GLib's GError rule through a forwarded `GError **error` (issue 32: librest, libsecret).

`frontend.gerrors` couples a result with a local the call fills (`&local_error`); a function
that hands its own caller's `GError **error` on (`map = g_mapped_file_new (filename, FALSE,
error); if (*error != NULL) return FALSE;`) tests the same rule through `*error`: "a function
must not both return a value and set an error" (GLib's "Error Reporting"), and a caller's
`*error` is NULL on entry (every GLib function checks `error == NULL || *error == NULL`), so
on the result's non-NULL edge `*error` is still NULL. Only in bodies that read `*error`."""

from __future__ import annotations

import clang.cindex as ci

from refcheck import ir
from refcheck.findings import Location
from refcheck.frontend.clangutil import K, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import key_of
from refcheck.frontend.graph import GraphBuilder


def error_slot_type(conv, t) -> bool:
    """`t` is a `GError **` (the conventions' `error_out`, twice pointed)."""
    t = t.get_canonical()
    if t.kind != ci.TypeKind.POINTER or t.get_pointee().get_canonical().kind != ci.TypeKind.POINTER:
        return False
    return conv.matches("error_out", t.get_pointee().get_canonical().get_pointee().get_canonical().spelling)


def _is_error_slot(b: GraphBuilder, x) -> bool:
    """Whether `x` names a parameter of type `GError **`."""
    x = strip(x)
    ref = referenced(x) if kind_of(x) == K.DECL_REF_EXPR else None
    return ref is not None and kind_of(ref) == K.PARM_DECL and error_slot_type(b.conv, x.type)


def _slot_tests(b: GraphBuilder) -> dict:
    """Parameter cursor hash -> (key, deps) of `*error` where the body reads the caller's error
    through a forwarded `GError **error` (`if (*error != NULL)`, `if (error && *error)`), once per build."""
    if b.error_slots is None:
        found = {}
        for d in b.fn.walk_preorder():  # asked only where a call forwards such a parameter
            if kind_of(d) != K.UNARY_OPERATOR or unop(d) != "*":
                continue
            inner = strip(next(iter(children_of(d)), None) or d)
            if _is_error_slot(b, inner):
                key = key_of(b, d)
                if key is not None:
                    found.setdefault(referenced(inner).hash, (key[0], frozenset(key[1])))
        b.error_slots = found
    return b.error_slots


def slot_split(b: GraphBuilder, loc: Location, name: str, result: str, args: list) -> None:
    """After `result = name (..., error)` forwarding the caller's `GError **error`, in a body that
    reads `*error` (librest's `map = g_mapped_file_new (filename, FALSE, error); if (*error !=
    NULL) return FALSE;`, libsecret's `r = g_task_propagate_pointer (task, error); if (error &&
    *error) return NULL;`): GLib's rule couples them as for `&local` (`error_split`). On the
    result's non-NULL edge `*error`'s truth is stored false (a stop where it holds): a later
    truth test of it is decided, and a load of it is NULL (`Transfer.op_load`). Where `error`
    is NULL nothing is read through it, and the result decides alone."""
    if not b.conv.error_out:
        return
    slots = [a for a in args if _is_error_slot(b, a)]
    if len(slots) != 1:
        return
    found = _slot_tests(b).get(referenced(strip(slots[0])).hash)
    if found is None:
        return
    key, deps = found
    join = b.non_null_arm(loc, result, f"{name} returned a value")
    b.emit(ir.Store(loc, None, key, deps, truth=False))
    test = b.node("branch", loc, cond=ir.Fact(key, deps), text=f"{name} returned a value with its error")
    b.start(test)
    b.edge(test, b.node("stop", loc, text=f"{name} cannot return a value and set its error"), True)
    b.edge(test, join, False)
    b.cur = join
