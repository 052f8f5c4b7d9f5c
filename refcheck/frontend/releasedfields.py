"""Fields some function of the unit releases (the cpython preset): `Py_XDECREF (self->f)`, or a
local copied from the field and released (`Py_CLEAR (self->f)`'s `_py_tmp`, `Py_XSETREF`'s).

A field released so holds a reference of its record's: a borrowed value stored into it is released
once too often by the record's destructor (`analysis.endings.unpaid_in_new`). A field nothing of
the unit releases may be a plain C pointer (pyfastx's `seq->index`, a malloc'd struct with a
`PyObject_HEAD`), a link, or released in another unit: no evidence either way, so not one.
"""

from __future__ import annotations


import clang.cindex as ci

from refcheck.frontend.binding import cursor_key, of_kinds
from refcheck.frontend.clangutil import K, binop, kind_of, referenced, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.perunit import PerUnit, own_definitions

_KINDS = frozenset((K.CALL_EXPR.value, K.VAR_DECL.value, K.BINARY_OPERATOR.value))
# The last unit read (a weak reference) and the cursor keys of the fields its functions release.
_UNIT: PerUnit[frozenset] = PerUnit()


def released_field(b, target) -> bool:
    """Whether the store target `x->f` is a field pointing to an object (not plain memory: a
    `PyMem_Malloc`'d tree node's `parent`) that some function of the unit releases."""
    member = strip(target) if b.conv.infer_setters else None
    if member is None or kind_of(member) != K.MEMBER_REF_EXPR or referenced(member) is None \
            or not _object_pointer(member.type, b.conv):
        return False
    base = next(iter(children_of(member)), None)  # none: a C++ method's `f` (implicit this)
    base = strip(base) if base is not None else None
    if base is None or kind_of(base) != K.DECL_REF_EXPR:
        return False  # `co->root->prev`: a field of the object a field points to, not the new one's
    tu = member.translation_unit
    return cursor_key(referenced(member)) in _UNIT.of(tu, lambda: _released(b, tu))


def _released(b, tu) -> frozenset:
    out: set = set()
    for fn in own_definitions(tu):
        sites = of_kinds(fn, _KINDS)
        copies: dict = {}  # local key -> the fields copied into it
        released: list = []  # the expressions handed to a releaser
        for c in sites:
            k = kind_of(c)
            if k == K.CALL_EXPR:
                if b.conv.matches("release", c.spelling or ""):
                    released.extend(strip(a) for a in c.get_arguments())
            elif k == K.VAR_DECL:
                init = [x for x in children_of(c) if kind_of(x) != K.TYPE_REF]
                field = _field(init[-1]) if init else None
                if field is not None:
                    copies.setdefault(cursor_key(c), set()).add(field)
            elif binop(c) == "=":
                lhs, rhs = (strip(x) for x in list(children_of(c))[:2])
                field = _field(rhs)
                if field is not None and lhs is not None and kind_of(lhs) == K.DECL_REF_EXPR \
                        and referenced(lhs) is not None:
                    copies.setdefault(cursor_key(referenced(lhs)), set()).add(field)
        for a in released:
            field = _field(a)
            if field is not None:
                out.add(field)
            elif a is not None and kind_of(a) == K.DECL_REF_EXPR and referenced(a) is not None:
                out |= copies.get(cursor_key(referenced(a)), set())
    return frozenset(out)


def _field(e):
    """The cursor key of the field an expression reads (`self->f`, through casts), or None."""
    e = strip(e) if e is not None else None
    if e is None or kind_of(e) != K.MEMBER_REF_EXPR or referenced(e) is None:
        return None
    return cursor_key(referenced(e))


def _object_pointer(t, conv) -> bool:
    """A pointer to an object: a record `conv.object_records` names, or one whose first field is
    one (`PyObject_HEAD`), as a type's struct begins."""
    t = t.get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return False
    t = t.get_pointee().get_canonical()
    for _ in range(4):  # FooObject -> PyObject_VAR_HEAD's PyVarObject -> PyObject
        if t.kind != ci.TypeKind.RECORD:
            return False
        name = t.spelling.replace("struct ", "").replace("const ", "").strip()
        if name in conv.object_records:
            return True
        first = next(iter(t.get_fields()), None)
        if first is None:
            return False
        t = first.type.get_canonical()
    return False
