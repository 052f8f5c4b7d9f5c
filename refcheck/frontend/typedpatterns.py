"""A name pattern's record where the call's types contradict it (issue 32, glib33 and glib35).

The glib preset's patterns make every `*_ref` a retainer returning its argument and every
`*_destroy` a releaser. A callee the patterns name so, with no table's record, whose declared
types say it cannot be one is no retainer or releaser: the role is dropped, the rest kept.
"""

from __future__ import annotations

from dataclasses import replace

import clang.cindex as ci

from refcheck.conventions.summary import Effect, Returns
from refcheck.frontend.callparts import is_boolean
from refcheck.frontend.clangutil import has_scalar_type


def typed_pattern(conv, c, decl, summary):
    """`summary` (a name pattern's, at call `c` to `decl`) without the role its types deny."""
    if summary.returns is Returns.ARGUMENT and has_scalar_type(c) \
            and c.type.get_canonical().kind != ci.TypeKind.VOID and not is_boolean(c):
        # A retain whose result is a number, not its argument nor a truth value: at-spi2-core's
        # `object_to_ref (gobj)` returns the integer id g_object_get_data holds. A retainer
        # returns its argument, nothing, or whether it took the reference (glib-networking's
        # `inc_ref`, a gboolean, kept).
        return replace(summary, returns=Returns.UNKNOWN, returned=None,
                       arguments=tuple((i, e) for i, e in summary.arguments if e is not Effect.RETAIN))
    if any(e is Effect.RELEASE for _, e in summary.arguments) and is_boolean(c) and decl is not None \
            and any(_error_slot(conv, p.type) for p in decl.get_arguments()):
        # A releaser that reports failure through a GError: an operation that may fail, not a
        # destroyer (GLib's releasers cannot fail and return nothing). gcr's `gck_object_destroy
        # (self, cancellable, &error)` deletes the PKCS#11 object from its token (`_gck_call_sync`
        # of C_DestroyObject) and leaves the caller's reference alone.
        return replace(summary, arguments=tuple((i, e) for i, e in summary.arguments if e is not Effect.RELEASE))
    return summary


def _error_slot(conv, t) -> bool:
    """`t` is a `GError **` (the conventions' `error_out`, twice pointed)."""
    t = t.get_canonical()
    if t.kind != ci.TypeKind.POINTER or t.get_pointee().get_canonical().kind != ci.TypeKind.POINTER:
        return False
    return conv.matches("error_out", t.get_pointee().get_canonical().get_pointee().get_canonical().spelling)
