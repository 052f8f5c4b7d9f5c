"""Which functions a runtime calls through a table, and in which role, told by the unit's static
initialisers (conventions.slot_tables): CPython calls a type's `tp_dealloc` to destroy an object and
expects a new reference from every `PyObject *` slot (`tp_repr`, `nb_add`, a `PyMethodDef`'s
`ml_meth`, a `PyGetSetDef` getter), whatever the functions are named.

Both spellings of a table are read: a record's fields, positional or designated
(`.tp_dealloc = (destructor)obj_dealloc`), and `{id, function}` entries of a slot array
(`{Py_tp_dealloc, obj_dealloc}`, PyType_FromSpec's), whose id is the macro's name as written.
"""

from __future__ import annotations

import clang.cindex as ci

from refcheck.conventions import Conventions
from refcheck.frontend.binding import among, definitions
from refcheck.frontend.clangutil import K, kind_of, referenced, strip
from refcheck.frontend.perunit import PerUnit
from refcheck.ir.cfg import FunctionRole

_POINTER_KINDS = (ci.TypeKind.POINTER, ci.TypeKind.BLOCKPOINTER)
# The unit's table functions: its functions are built one after another.
_LAST: PerUnit[dict] = PerUnit()
_VARIABLES = frozenset({K.VAR_DECL.value})


def role_of(fn, conv: Conventions) -> FunctionRole:
    """The role the unit's tables give the function `fn` (a definition cursor)."""
    if not conv.slot_tables or not fn.spelling:
        return FunctionRole.PLAIN
    tu = fn.translation_unit
    slots = _LAST.of(tu, lambda: table_functions(tu.cursor.get_children(), conv)).get(fn.spelling)
    if slots is None:
        named = conv.matches("destructor_names", fn.spelling) and _destructor_shaped(fn, conv)
        return FunctionRole.DESTROYS if named else FunctionRole.PLAIN
    if any(conv.matches("destructor_slots", s) for s in slots):
        return FunctionRole.DESTROYS
    returns = fn.result_type.get_canonical().kind
    return FunctionRole.RETURNS_NEW if returns in _POINTER_KINDS else FunctionRole.PLAIN


def slots_of(fn, conv: Conventions) -> frozenset:
    """The fields or slot ids that name `fn` in the unit's tables (empty: none names it)."""
    if not conv.slot_tables or not fn.spelling:
        return frozenset()
    tu = fn.translation_unit
    return frozenset(_LAST.of(tu, lambda: table_functions(tu.cursor.get_children(), conv)).get(fn.spelling, ()))


def _destructor_shaped(fn, conv: Conventions) -> bool:
    """`void f(T *self)` where T is an object (conventions.object_records) or a record whose first
    field is one, as a type's struct begins with PyObject_HEAD: the slot's `destructor` type."""
    params = list(fn.get_arguments())
    if fn.result_type.get_canonical().kind != ci.TypeKind.VOID or len(params) != 1:
        return False
    t = params[0].type.get_canonical()
    if t.kind not in _POINTER_KINDS:
        return False
    t = t.get_pointee().get_canonical()
    for _ in range(4):  # FooObject -> PyObject_VAR_HEAD's PyVarObject -> PyObject
        if t.kind != ci.TypeKind.RECORD:
            return False
        if _records(t) & set(conv.object_records):
            return True
        first = next(iter(t.get_fields()), None)
        if first is None:
            return False
        t = first.type.get_canonical()
    return False


def prime(parsed, conv: Conventions) -> None:
    """Reads the unit's tables from the top-level cursors its parse already listed: listing them
    again from the unit's cursor (`role_of` without this) took 25-40 ms on a CPython extension
    (16819 top-level cursors with the Python headers' macros), an eighth of its graph build."""
    if conv.slot_tables and parsed.functions:
        _LAST.put(parsed.tu, table_functions(parsed.top, conv))


def table_functions(top, conv: Conventions) -> dict[str, set[str]]:
    """Function name -> the fields or slot ids that name it, in the unit's tables."""
    tables = set(conv.slot_tables)
    out: dict[str, set[str]] = {}
    # The variable definitions picked in compiled queries (binding.among, binding.definitions): a
    # GLib unit's top level is ~8,600 cursors, and Python.h declares ~400 extern variables (no
    # initializer, so no table) whose types were named twice each.
    for c in definitions(among(top, _VARIABLES)):
        if not _records(c.type) & tables:
            continue
        init = next((k for k in c.get_children() if kind_of(k) == K.INIT_LIST_EXPR), None)
        if init is not None:
            _table(init, tables, out)
    return out


def _records(t) -> set[str]:
    """The names of the record an object (or array of them) is, as declared and as canonical:
    `PyTypeObject` and `_typeobject`, `PyType_Slot`."""
    out = set()
    for t in (t, t.get_canonical()):
        while t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY):
            t = t.element_type
        name = t.spelling
        for word in ("const ", "volatile ", "struct "):
            name = name.replace(word, "")
        out.add(name.strip())
    return out


def _table(init, tables: set[str], out: dict[str, set[str]]) -> None:
    """An initialiser list of a table or an array of them."""
    t = init.type.get_canonical()
    if t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY):
        for k in init.get_children():
            if kind_of(k) == K.INIT_LIST_EXPR:
                _table(k, tables, out)
        return
    elements = record_elements(init)
    # A slot array's entry `{Py_tp_dealloc, f}`: two values, an integer id and the function.
    slot_id = _slot_id(init) if len(elements) == 2 and len(list(t.get_fields())) == 2 else None
    # A method entry's Python name where it is one of the runtime's protocol names (`{"__init__",
    # (PyCFunction) CA__init__, ...}`, ExtensionClass's): a slot too.
    dunder = _dunder(elements[0][1]) if elements and elements[0][0] is not None \
        and elements[0][0].spelling == "ml_name" else None
    for i, (field, value) in enumerate(elements):
        fn = _function(value) if field is not None else None
        if fn is not None:
            out.setdefault(fn, set()).add(slot_id if slot_id and i == 1 else field.spelling)
            if dunder is not None:
                out[fn].add(dunder)


def _dunder(value) -> str | None:
    """`__name__` of a string literal naming a method so, else None."""
    lit = strip(value)
    if lit is None or kind_of(lit) != K.STRING_LITERAL:
        return None
    name = lit.spelling.strip('"')
    return name if len(name) > 4 and name.startswith("__") and name.endswith("__") else None


def record_elements(init) -> list[tuple[object, object]]:
    """(field, value) of each element of a record's brace initialiser `init`, designated
    (`.tp_dealloc = f`, `.a.b = f`: the last field named) or positional, positions going on after
    a designator as C's do; the field is None past the last one, and every field is None where
    `init` is not a record's (an array's, a scalar's braces)."""
    t = init.type.get_canonical()
    fields = list(t.get_fields()) if t.kind == ci.TypeKind.RECORD else []
    names = [f.spelling for f in fields]
    out = []
    position = 0
    for k in init.get_children():
        field, value = None, k
        kids = list(k.get_children()) if kind_of(k) == K.UNEXPOSED_EXPR else []
        designators = [x for x in kids if kind_of(x) == K.MEMBER_REF]
        if len(kids) >= 2 and designators and kind_of(kids[0]) == K.MEMBER_REF:
            field, value = referenced(designators[-1]), kids[-1]
            position = names.index(kids[0].spelling) if kids[0].spelling in names else len(fields)
        elif position < len(fields):
            field = fields[position]
        out.append((field, value))
        position += 1
    return out


def _slot_id(entry) -> str | None:
    """The id of a slot array's entry as written (`Py_tp_dealloc`), the first token after `{`."""
    tokens = [t.spelling for t in entry.get_tokens()][:3]
    if len(tokens) == 3 and tokens[0] == "{" and tokens[2] == "," and tokens[1].isidentifier():
        return tokens[1]
    return None


def _function(value) -> str | None:
    """The function a slot's value names, through casts and parentheses."""
    for _ in range(8):
        if kind_of(value) == K.DECL_REF_EXPR:
            ref = value.referenced
            return ref.spelling if ref is not None and kind_of(ref) == K.FUNCTION_DECL else None
        kids = [k for k in value.get_children() if kind_of(k) != K.TYPE_REF]
        if len(kids) != 1:
            return None
        value = kids[0]
    return None
