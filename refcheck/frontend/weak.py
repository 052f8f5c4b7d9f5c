"""Weak pointer locations: GObject's `g_object_add_weak_pointer (obj, (gpointer *) &loc)`.

GObject documents a weak pointer as one that "does not hold a reference": `loc` is set to NULL when
`obj` is finalized, and nothing else about the object changes. A store into such a location
(`self->pv->service = service; g_object_add_weak_pointer (service, &self->pv->service);`,
libsecret's `collection_take_service`) is then no hand-over: the reference stays with the
variable that had it, so its release is the function's own and a return with it unreleased is
the leak it is (issue 32). Found per function, by the location's structural key (`key_of`).

A weak local (`g_object_add_weak_pointer (G_OBJECT (service), (gpointer *) &service)`, then
`g_object_unref (service); g_assert_null (service);`, libsecret's tests) no longer holds the
released object after its release: finalization NULLs it, or another owner keeps it alive; either
way what it holds is no longer this function's to track, as after `&local` escapes
(`forget_released`; an assignment would read as the overwrite of a reference still owned where the
function held two).

A weak reference (`g_object_weak_ref (obj, notify, data)`: "Weak references are used for
notification when an object is disposed"; it takes no reference) beside a store of the same
object is the store's own weakness: the notify removes it from the list, the table or the closure
it was put in (gupnp's `g_ptr_array_add (priv->control_points, cp)`, the `doc_cache` insert,
librest's `closure->weak_object = weak_object`). So a plain store of an object the function
weak-refs, or a store into the location it weak-refs, is no hand-over (`weak_held`); a reference
of the store's own (`g_ptr_array_add (objects, g_object_ref (cp))`) is not a plain store and still
is one (round 29b).
"""

from __future__ import annotations

from refcheck import ir
from refcheck.frontend.clangutil import K, kind_of, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.binding import of_kinds, spellings
from refcheck.frontend.conditions import key_of

# The calls that make their second argument's location weak (GObject's documented API; the
# name only occurs in GObject code).
WEAK_POINTER_CALLS = frozenset({"g_object_add_weak_pointer"})
# The calls given `&loc` only to register or unregister it as a weak pointer: the address does not
# escape (nothing but finalization writes through it, which `forget_released` stands for).
WEAK_REGISTRATIONS = WEAK_POINTER_CALLS | {"g_object_remove_weak_pointer"}
# The calls that take a weak reference on their first argument (GObject's documented API).
WEAK_REF_CALLS = frozenset({"g_object_weak_ref"})
# G_OBJECT (x) and its kin expand to this checked cast of x (without G_DISABLE_CAST_CHECKS).
_CHECKED_CAST = "g_type_check_instance_cast"
_CALLS = frozenset({K.CALL_EXPR.value})


def _uncast(c):
    """c without casts and GObject's checked casts (`G_OBJECT (doc)`)."""
    c = strip(c)
    while kind_of(c) == K.CALL_EXPR and c.spelling == _CHECKED_CAST:
        args = children_of(c)[1:]
        if not args:
            break
        c = strip(args[0])
    return c


def _key(b, c) -> str | None:
    key = key_of(b, _uncast(c))
    return key[0] if key else None


def weak_referenced(b) -> frozenset[str]:
    """The keys of the objects (a local, a location) the function being built weak-refs."""
    if b.weak_referenced is None:
        keys = set()
        calls = of_kinds(b.fn, _CALLS)
        for c, name in zip(calls, spellings(calls)):
            args = children_of(c)[1:] if name in WEAK_REF_CALLS else ()
            key = _key(b, args[0]) if args else None
            if key:
                keys.add(key)
        b.weak_referenced = frozenset(keys)
    return b.weak_referenced


def weak_held(b, c) -> bool:
    """Whether storing expression c stores, plainly, an object the function weak-refs."""
    key = _key(b, c) if weak_referenced(b) else None
    return key is not None and key in b.weak_referenced


def weak_locations(b) -> frozenset[str]:
    """The keys of the locations the function being built passes to a weak-pointer call (`&loc`,
    through casts). Asked at every release (855 times in THTensor.c's 297 builds, where no body
    makes such a call), once per build: the body's calls alone, named in one compiled query
    (`of_kinds`, `spellings`), not `parents.body_sites`, whose assignments were most of the
    cursors and each asked its operator in Python (3% of a TH build)."""
    if b.weak_locations is None:
        keys = set()
        calls = of_kinds(b.fn, _CALLS)
        for c, name in zip(calls, spellings(calls)):
            if name in WEAK_POINTER_CALLS:
                args = children_of(c)[1:]
                where = strip(args[1]) if len(args) == 2 else None
                if where is not None and kind_of(where) == K.UNARY_OPERATOR and unop(where) == "&":
                    inner = children_of(where)
                    key = key_of(b, inner[0]) if inner else None
                    if key is not None:
                        keys.add(key[0])
        b.weak_locations = frozenset(keys)
    return b.weak_locations


def weak_store(b, key: str) -> bool:
    """Whether a store into the location of `key` writes a weak pointer, or the location holds an
    object the function weak-refs."""
    return bool(key) and (key in weak_locations(b) or key in weak_referenced(b))


def weak_address(name: str, i: int) -> bool:
    """Whether argument i of a call to `name` is a weak pointer's address, registered only."""
    return i == 1 and name in WEAK_REGISTRATIONS


def forget_released(b, loc, released) -> None:
    """After a release of these values: what each weak local holds is no longer tracked (GObject NULLs
    it when the object is finalized, and nothing says whether this was the last reference)."""
    weak = weak_locations(b) if released else frozenset()
    for v in released:
        if v in weak:
            b.emit(ir.Escape(loc, v))
