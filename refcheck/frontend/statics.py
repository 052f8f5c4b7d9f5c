"""A static that counts its users (issue 31, cpystore; backports-zoneinfo's initialize_caches).

`if (CACHE == NULL) CACHE = PyDict_New (); else Py_INCREF (CACHE);` gives the static one more
reference on either arm: a new object the first time, one more count on the shared one for each
later module instance, which its free function releases (`Py_CLEAR (CACHE)` once per instance).
The retain of the else arm is the static's, as if the object were stored back into it
(`Py_INCREF (CACHE); CACHE = CACHE;`). Only that shape: a retain of a static elsewhere (one
returned, handed to a call) stays a reference of the function's.
"""

from __future__ import annotations

from refcheck.frontend.binding import cursor_key
from refcheck.frontend.clangutil import K, binop, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of


def named_variable(c, static_locals: bool = True):
    """The declaration of the file-scope variable `c` names (through casts), or of a static
    local where `static_locals`, else None."""
    c = strip(c) if c is not None else None
    if c is None or kind_of(c) != K.DECL_REF_EXPR:
        return None
    d = referenced(c)
    if d is None or kind_of(d) != K.VAR_DECL:
        return None
    parent = d.semantic_parent
    if static_locals and str(d.storage_class).endswith("STATIC"):
        return d
    return d if parent is None or kind_of(parent) == K.TRANSLATION_UNIT else None


_global = named_variable


def is_global(c) -> bool:
    """`c` names a file-scope or static variable."""
    return _global(c) is not None


def global_address(a):
    """The variable reference `G` of an argument `&G`, G a file-scope or static variable, else None."""
    inner = strip(a)
    if inner is None or kind_of(inner) != K.UNARY_OPERATOR or unop(inner) != "&":
        return None
    target = strip(next(iter(children_of(inner)), None))
    return target if _global(target) is not None else None


def _only(c):
    """The one statement of an arm (`{ s; }` or `s;`), else None."""
    while c is not None and kind_of(c) == K.COMPOUND_STMT:
        kids = list(children_of(c))
        if len(kids) != 1:
            return None
        c = kids[0]
    return strip(c) if c is not None else None


def _assigned(c):
    """The static an arm's single `G = e;` assigns, else None."""
    if c is None or kind_of(c) != K.BINARY_OPERATOR or binop(c) != "=":
        return None
    return _global(list(children_of(c))[0])


def _retained(c, retains) -> tuple | None:
    """(call key, static) of an arm's single `retain (G);` (`retains(call)`: the call retains)."""
    if c is None or kind_of(c) != K.CALL_EXPR or not retains(c):
        return None
    args = [a for a in children_of(c)][1:]
    g = _global(args[0]) if len(args) == 1 else None
    return (cursor_key(c), g) if g is not None else None


def counted_retains(fn, retains) -> dict:
    """call key -> the static's declaration, for each retain of a static in an if/else whose
    other arm assigns that static (module docstring)."""
    out: dict = {}
    stack = list(children_of(fn))
    while stack:
        c = stack.pop()
        stack.extend(children_of(c))
        if kind_of(c) != K.IF_STMT:
            continue
        kids = list(children_of(c))
        if len(kids) != 3:
            continue
        a, b = _only(kids[1]), _only(kids[2])
        for assign, retain in ((a, b), (b, a)):
            g = _assigned(assign)
            found = _retained(retain, retains) if g is not None else None
            if found is not None and found[1] == g:
                out[found[0]] = g
    return out


def counted_store(b, c):
    """The target cursor of the static whose count the retain call `c` raises (`counted_retains`,
    walked once per function), else None."""
    if b.counted is None:
        conv = b.conv
        b.counted = counted_retains(b.fn, lambda call: conv.matches("retain", _name(call)))
    if cursor_key(c) not in b.counted:
        return None
    args = list(children_of(c))[1:]
    return strip(args[0]) if len(args) == 1 else None


def _name(call) -> str:
    return call.spelling or ""
