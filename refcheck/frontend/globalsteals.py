"""A module global given a new reference and then handed to a stealing call (issue 31, cpy41's
sdbus): the global is the new owner's borrowed pointer, not an owner.

    SdBus_class = PyType_FromSpecWithBases (&spec, NULL);
    if (PyModule_AddObject (m, "SdBus", SdBus_class) < 0) { Py_DECREF (SdBus_class); return NULL; }

A store into a global hands the reference over (docs/semantics.md), so the release on
PyModule_AddObject's failure, which is the function's own reference (the steal happens only on
success), was reported as a release of a reference it did not own (RC006). Where the function
hands the global's value, after the store, to a call that steals or keeps it, and retains the
global nowhere, the store keeps the function's duty: the module takes the reference where the
call succeeds, and the failure path must release it (left unreleased there, RC001). A global
the function also retains (`Py_INCREF (g); PyModule_AddObject (m, "g", g)`: the global keeps
the second reference) is stored as before.
"""

from __future__ import annotations

from refcheck.conventions.summary import Effect
from refcheck.frontend.binding import arguments, extent_places, of_kinds
from refcheck.frontend.clangutil import K, cursor_key
from refcheck.frontend.statics import named_variable

_CALLS = frozenset({K.CALL_EXPR.value})
_TAKING = (Effect.CONSUME,)


def _global(e):
    """The file-scope variable `e` names (through casts), else None."""
    return named_variable(e, static_locals=False)


def _uses(b) -> tuple[dict, set]:
    """(global's key -> offsets of the calls taking its value, keys of the globals retained)."""
    found = b.raii_cache.get("global steals")
    if found is not None:
        return found
    taken: dict = {}
    retained: set = set()
    for call in of_kinds(b.fn, _CALLS):
        args = arguments(call)
        if not args:
            continue
        record = b.summary_of(*b.callee_of(call))
        effects = record.effects(len(args))
        conditional = record.conditional_effects(len(args))
        retains = record.at_call(len(args), lambda _: False).role == "retain"
        for i, a in enumerate(args):
            g = _global(a)
            if g is None:
                continue
            if retains:
                retained.add(cursor_key(g))
            elif effects.get(i) in _TAKING or conditional.get(i, (None,))[0] in _TAKING:
                taken.setdefault(cursor_key(g), []).append(extent_places(call)[0][3])
    found = b.raii_cache["global steals"] = (taken, retained)
    return found


def stolen_later(b, target) -> bool:
    """The store `target = ...` into a global whose value a later call of the function takes
    over, the function retaining it nowhere: an alias, the function's reference kept."""
    g = _global(target)
    if g is None or b.fn is None:
        return False
    taken, retained = _uses(b)
    key = cursor_key(g)
    if key in retained or key not in taken:
        return False
    at = extent_places(target)[0][3]
    return any(offset > at for offset in taken[key])
