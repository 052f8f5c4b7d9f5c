"""File-scope pointers that only ever hold NULL (issue 31, cpyrest25; pyminizip's `pyerr_msg`).

pyminizip defines `PyObject *pyerr_msg = NULL;` at file scope and writes it only with
`pyerr_msg = PyErr_Format (...)`, which "always returns NULL" (the C API reference); its methods
end `return pyerr_msg;` with the exception set. Read as a global's borrowed object, that return
was a missing retain (RC005). A pointer variable defined in this unit, at file scope, with no
initializer or a NULL one, whose every write in the unit's own functions is NULL or a call of
the conventions' `null_results` (the functions that always return NULL), with at least one such
call, and whose address is taken nowhere in the unit, holds NULL wherever it is read: its load
is the NULL constant. One write of anything else (an object, another variable, `&g` handed
anywhere) and it is a global holding objects as before; so is one the unit never writes (its
module's init in another file may). Writes through an `extern` declaration in another unit are
not seen: the unit's own writes decide.
"""

from __future__ import annotations

from refcheck.frontend.binding import cursor_key, definition, of_kinds, referenced
from refcheck.frontend.clangutil import K, binop, constant, has_pointer_type, kind_of, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import NULL_KINDS
from refcheck.frontend.graph import callee_of
from refcheck.frontend.perunit import PerUnit, user_tops

_WRITES = frozenset((K.BINARY_OPERATOR.value, K.COMPOUND_ASSIGNMENT_OPERATOR.value, K.UNARY_OPERATOR.value))
_CHANGES = ("++", "--", "post++", "post--", "&")

# per unit: (the cursor_keys of the variables written something else than NULL, or whose address
# is taken; those assigned a `null_results` call somewhere)
_UNIT: PerUnit[tuple[frozenset, frozenset]] = PerUnit()


def always_null(b, c) -> bool:
    """Whether the DECL_REF_EXPR `c` names a file-scope pointer variable that holds NULL only."""
    if not b.conv.null_results:
        return False
    var = referenced(c)
    if var is None or kind_of(var) != K.VAR_DECL or not has_pointer_type(c):
        return False
    parent = var.semantic_parent
    if parent is None or kind_of(parent) != K.TRANSLATION_UNIT:
        return False
    defined = _defined(var)
    if defined is None or not _null_initialised(defined):
        return False
    written, nulled = _writes(b, c.translation_unit)
    return cursor_key(defined) in nulled and cursor_key(defined) not in written


def _defined(var):
    """The variable's definition in this unit: an initialised one, or a tentative one (`static
    T *g;`, which clang does not call a definition); None for an `extern` declaration alone."""
    found = definition(var)
    if found is not None:
        return found
    return None if str(var.storage_class).endswith("EXTERN") else var.canonical


def _null_initialised(var) -> bool:
    """No initializer (zero-initialised static storage), or a NULL constant."""
    inits = [k for k in children_of(var) if kind_of(k) not in (K.TYPE_REF, K.PARM_DECL)]
    return not inits or _is_null(strip(inits[-1]))


def _is_null(e) -> bool:
    return e is not None and (kind_of(e) in NULL_KINDS or constant(e) == 0)


def _writes(b, tu) -> tuple[frozenset, frozenset]:
    def make():
        bad, nulled = set(), set()
        for top in user_tops(tu):
            for w in of_kinds(top, _WRITES):
                target, value = _write(w)
                var = referenced(target) if target is not None and kind_of(target) == K.DECL_REF_EXPR else None
                if var is None or kind_of(var) != K.VAR_DECL:
                    continue
                key = cursor_key(_defined(var) or var)
                if value is not None and _null_call(b, value):
                    nulled.add(key)
                elif value is None or not _is_null(value):
                    bad.add(key)
        return frozenset(bad), frozenset(nulled)
    return _UNIT.of(tu, make)


def _write(w) -> tuple:
    """(the lvalue written, the value written or None where it is no plain assignment)."""
    kids = list(children_of(w))
    if not kids:
        return None, None
    if kind_of(w) == K.UNARY_OPERATOR:
        return (strip(kids[0]), None) if unop(w) in _CHANGES else (None, None)
    if kind_of(w) == K.COMPOUND_ASSIGNMENT_OPERATOR:
        return strip(kids[0]), None
    if binop(w) != "=" or len(kids) != 2:
        return None, None
    return strip(kids[0]), strip(kids[1])


def _null_call(b, e) -> bool:
    """A call of a function the conventions say always returns NULL (`PyErr_Format (...)`)."""
    if kind_of(e) != K.CALL_EXPR:
        return False
    _, name = callee_of(e)
    return bool(name) and b.conv.matches("null_results", name)
