"""A name pattern's record where the call's types contradict it (issue 32, glib33 and glib35).

The glib preset's patterns make every `*_ref` a retainer returning its argument and every
`*_destroy` a releaser. A callee the patterns name so, with no table's record, whose declared
types say it cannot be one is no retainer or releaser: the role is dropped, the rest kept.
"""

from __future__ import annotations

from dataclasses import replace

import clang.cindex as ci

from refcheck.conventions.summary import Effect, Returns, Tracked, resolve
from refcheck.frontend.callparts import is_boolean
from refcheck.frontend.clangutil import has_pointer_type, has_scalar_type
from refcheck.frontend.errorslots import error_slot_type
from refcheck.frontend.reallocwrap import returns_failing_realloc


def typed_pattern(conv, c, decl, summary, name: str):
    """`summary` (a name pattern's, at call `c` to `decl`) without the role its types deny."""
    if summary.returns is Returns.REALLOCATED and decl is not None and not _realloc_shaped(decl):
        # A `*_realloc` whose parameters are not realloc's (a block, then sizes): gcr's static
        # `sec_realloc (block, tag, memory, length)` moves `memory` within the pool `block`, which
        # stays. Its body's record, as where no pattern names it.
        return conv.without_patterns(name)
    if summary.returns is Returns.REALLOCATED and not summary.may_fail and decl is not None \
            and returns_failing_realloc(conv, decl):
        # `return realloc (mem, len);`: the wrapper fails as realloc does (`frontend.reallocwrap`).
        return replace(summary, may_fail=True)
    scalars = _scalar_hand_overs(c, summary)
    if scalars and conv.inferred is not None and (body := conv.inferred.get(name)) is not None:
        # A `*_take_*` whose last argument is a number (`gkd_secret_secret_new_take_memory
        # (session, parameter, n_parameter, value, n_value)`, `egg_asn1x_take_bits_as_raw (node,
        # value, n_bits)`): the pattern hands over the size, which is no object. What it takes
        # is what its body takes: the body's record of its arguments, the name's of its result.
        nargs = len(list(c.get_arguments()))
        kept = tuple((p, e) for p, e in summary.arguments if _at(p, nargs) not in scalars)
        named = {_at(p, nargs) for p, _ in kept}
        return replace(summary, arguments=kept + tuple((p, e) for p, e in body.arguments
                                                       if _at(p, nargs) is not None and _at(p, nargs) not in named))
    if summary.returns is Returns.ARGUMENT and has_scalar_type(c) \
            and c.type.get_canonical().kind != ci.TypeKind.VOID and not is_boolean(c):
        # A retain whose result is a number, not its argument nor a truth value: at-spi2-core's
        # `object_to_ref (gobj)` returns the integer id g_object_get_data holds. A retainer
        # returns its argument, nothing, or whether it took the reference as a truth value
        # (`gboolean`, kept). glib-networking's `SessionAcquire inc_ref` says so in a `gint`: read
        # as retaining nothing, its caller's `if (!inc_ref (d)) d = NULL;` is no leak.
        return replace(summary, returns=Returns.UNKNOWN, returned=None,
                       arguments=tuple((i, e) for i, e in summary.arguments if e is not Effect.RETAIN))
    if any(e is Effect.RELEASE for _, e in summary.arguments) and is_boolean(c) and decl is not None \
            and any(error_slot_type(conv, p.type) for p in decl.get_arguments()):
        # A releaser that reports failure through a GError: an operation that may fail, not a
        # destroyer (GLib's releasers cannot fail and return nothing). gcr's `gck_object_destroy
        # (self, cancellable, &error)` deletes the PKCS#11 object from its token (`_gck_call_sync`
        # of C_DestroyObject) and leaves the caller's reference alone.
        return replace(summary, arguments=tuple((i, e) for i, e in summary.arguments if e is not Effect.RELEASE))
    return summary


def _scalar_hand_overs(c, summary) -> frozenset:
    """The positions a name's record hands over (sink, store, consume) where the call passes a
    number, not a pointer: no object goes there."""
    if not any(e in _HANDED for _, e in summary.arguments):
        return frozenset()
    args = list(c.get_arguments())
    out = set()
    for p, e in summary.arguments:
        i = _at(p, len(args))
        if e in _HANDED and i is not None and has_scalar_type(args[i]) and not has_pointer_type(args[i]):
            out.add(i)
    return frozenset(out)


_HANDED = (Effect.SINK, Effect.STORE, Effect.CONSUME)


def _at(p, nargs: int) -> int | None:
    """A record's integer position resolved against nargs; None for a Tracked one."""
    return None if isinstance(p, Tracked) else resolve(p, nargs)


def _realloc_shaped(decl) -> bool:
    """realloc's parameters: a pointer to the block, then integers (its size, a count)."""
    kinds = [p.type.get_canonical().kind for p in decl.get_arguments()]
    return bool(kinds) and kinds[0] == ci.TypeKind.POINTER and all(k in _INTEGERS for k in kinds[1:])


_INTEGERS = frozenset((ci.TypeKind.UINT, ci.TypeKind.ULONG, ci.TypeKind.ULONGLONG, ci.TypeKind.INT, ci.TypeKind.LONG,
                       ci.TypeKind.LONGLONG, ci.TypeKind.USHORT, ci.TypeKind.SHORT))
