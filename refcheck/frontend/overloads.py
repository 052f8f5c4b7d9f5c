"""C++ overloads defined in one unit, told apart where their bodies' summaries are kept.

The summaries the analysis infers are keyed by a function's qualified name, which overloads
share: greenlet's `Require (PyObject *p, ...)` returns its argument, its `Require (int)` returns
nothing counted, and whichever was checked last answered for both (a holder built from
`Require (PyLong_FromSsize_t (n))` then held an unknown value). A name defined more than once
in the unit with different parameter types gets, for its inferred record only, a key with the
parameters' canonical types; a call asks the record of its callee's key. A call whose callee
the key cannot name the same way (a template's dependent parameter) finds no record: the
default, as for a function the run has not seen, never another overload's.
"""

from __future__ import annotations

from collections import Counter

from refcheck.frontend.clangutil import argument_types


def signature(decl) -> str | None:
    """The parameters' canonical types, `(_object *,const std::basic_string<char> &)`; None
    where libclang gives the declaration no function type (a dependent one in a template)."""
    t = decl.type
    try:
        if t.kind.name not in ("FUNCTIONPROTO", "FUNCTIONNOPROTO"):
            return None
        return "(" + ",".join(a.get_canonical().spelling for a in argument_types(t)) + ")"
    except ValueError:  # a type kind this libclang's bindings do not know
        return None


def keyed(name: str, decl) -> str:
    """The key of an overload's inferred record: its name and its signature."""
    sig = signature(decl) if decl is not None else None
    return name + sig if sig is not None else name


def overloaded(functions, names) -> frozenset:
    """The names the unit defines more than once with different parameter types."""
    twice = {n for n, c in Counter(names).items() if c > 1}
    if not twice:
        return frozenset()
    sigs: dict[str, set] = {}
    for fn, n in zip(functions, names):
        if n in twice:
            sigs.setdefault(n, set()).add(signature(fn))
    return frozenset(n for n, s in sigs.items() if len(s) > 1)


def record_names(functions, names, overloads: frozenset) -> list[str]:
    """Each definition's key in the unit's table of inferred records."""
    return [keyed(n, fn) if n in overloads else n for fn, n in zip(functions, names)]


def record_of(conv, decl, name: str):
    """What a call to `name` (declared by `decl`) does: the record of its own overload's body
    where the unit defines several."""
    if name in conv.unit_overloads and decl is not None:
        return conv.summary(name, body=keyed(name, decl))
    return conv.summary(name)
