"""References held in a local array's elements, released by a loop over them (issue 31, cpyarr).

mysqlclient keeps each string whose UTF-8 buffer it reads alive in a local array until the
connection is made, then releases them all:

    PyObject *keep[5] = {NULL}; int n = 0;
    t = PyMapping_GetItemString (ssl, "ca"); if (t) { ca = PyUnicode_AsUTF8 (t); keep[n++] = t; }
    ...
    for (i = 0; i < n; i++) Py_DECREF (keep[i]);

Such a store is an alias (docs/semantics.md: the array dies with the frame, the variable keeps
the duty), so taking the next string into `t` lost the first (RC007) and the loop released
nothing. Where the function has a *covering* releasing loop over the array, each store site of a
local's reference (outside a loop) gets a variable standing for its element, as a local struct's
member does; the loop releases every such element once, where the loop begins. A loop covers the
array when it runs its index from 0 while below the array's size or below the counter its stores
advance (`keep[n++]`), and its body hands `keep[i]` to a releaser: such a loop visits every element
filled (its zero-trip edge has nothing to release), so the elements' references end there. An
exit before the loop leaks what the elements hold (RC001); a loop from 1, or to `n - 1`, covers
nothing and the stores stay aliases, their variables' references reported as before. A store
inside a loop (`for (i = 0; i < dim; i++) { bases[i] = base; Py_INCREF (base); }`, pygame's
`vector_elementwiseproxy_pow`) fills one element per trip, which no single variable can stand
for: into a covered array it is a store into memory, the array keeping the reference (its
retain after the store pays it, as for a field), each element released by the covering loop.
"""

from __future__ import annotations

import re

import clang.cindex as ci

from refcheck import ir
from refcheck.frontend.binding import arguments, extent_places, of_kinds, referenced
from refcheck.frontend.clangutil import K, binop, constant, has_pointer_type, kind_of, name_of_file, read_source, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.loops import for_parts

_ARRAYS = (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY)
_LOOPS = frozenset({K.FOR_STMT.value})
_SUBSCRIPTS = frozenset({K.ARRAY_SUBSCRIPT_EXPR.value})
_CALLS = frozenset({K.CALL_EXPR.value})
_ASSIGNS = frozenset({K.BINARY_OPERATOR.value})


def array_decl(b, c):
    """The declaration of the local array of pointers `c` names (a plain reference), else None."""
    c = strip(c)
    if kind_of(c) != K.DECL_REF_EXPR:
        return None
    decl = referenced(c)
    if decl is None or b.var(decl) is None or kind_of(decl) == K.PARM_DECL:
        return None  # a parameter `T *p[]` is a pointer to the caller's memory (C11 6.7.6.3p7)
    t = decl.type.get_canonical()
    if t.kind not in _ARRAYS or t.element_type.get_canonical().kind != ci.TypeKind.POINTER:
        return None
    return decl


def _parts(c):
    """(base, index) of a subscript expression, else (None, None)."""
    if kind_of(c) != K.ARRAY_SUBSCRIPT_EXPR:
        return None, None
    kids = list(children_of(c))
    return (strip(kids[0]), strip(kids[1])) if len(kids) == 2 else (None, None)


def _var_of(b, c):
    c = strip(c) if c is not None else None
    return b.var(referenced(c)) if c is not None and kind_of(c) == K.DECL_REF_EXPR else None


def _counters(b, arr: str) -> set:
    """The variables the stores into arr advance as their index (`keep[n++] = t`)."""
    out = set()
    for c in of_kinds(b.fn, _SUBSCRIPTS):
        base, index = _parts(c)
        if base is None or _var_of(b, base) != arr or kind_of(index) != K.UNARY_OPERATOR:
            continue
        if unop(index) in ("post++", "++"):
            v = _var_of(b, next(iter(children_of(index)), None))
            if v is not None:
                out.add(v)
    return out


def _fill_bounds(b, arr: str) -> set:
    """The variables B such that every store into arr is `arr[j] = ...` in the body of a loop
    `for (j = 0; j < B; j++)` (pygame's `for (i = 0; i < dim; ++i) bases[i] = ...;`): a loop to
    the same B visits every element filled."""
    loops = []
    for loop in of_kinds(b.fn, _LOOPS):
        init, cond, inc, body = for_parts(loop)
        j = _index(b, init)
        bound = _bound(b, cond, j) if j is not None else None
        limit = _var_of(b, bound) if bound is not None else None
        if limit is not None and _steps(b, inc, j):
            loops.append((limit, j, {_place(t) for t in _stores(b, body, arr)}))
    stores = _stores(b, b.fn, arr)
    if not stores:
        return set()
    out = set()
    for limit in {limit for limit, _, _ in loops}:
        inside = set()
        for lim, j, keys in loops:
            if lim == limit:
                inside |= {_place(t) for t in stores if _place(t) in keys and _var_of(b, _parts(t)[1]) == j}
        if all(_place(t) in inside for t in stores):
            out.add(limit)
    return out


def _place(c) -> tuple:
    """Where a cursor is (its extent), the same from every walk that reaches it."""
    return extent_places(c)


def _stores(b, top, arr: str) -> list:
    """The subscripts `arr[...]` that `=` writes under top."""
    out = []
    for c in of_kinds(top, _ASSIGNS):
        kids = list(children_of(c))
        if binop(c) != "=" or len(kids) != 2:
            continue
        base, _ = _parts(strip(kids[0]))
        if base is not None and _var_of(b, base) == arr:
            out.append(strip(kids[0]))
    return out


def _index(b, init) -> str | None:
    """The variable a for loop's init sets to 0 (`i = 0`, `int i = 0`), else None."""
    if init is None:
        return None
    init = strip(init)
    if kind_of(init) == K.DECL_STMT:
        decls = list(children_of(init))
        if len(decls) != 1 or kind_of(decls[0]) != K.VAR_DECL:
            return None
        value = list(children_of(decls[0]))
        return b.var(decls[0]) if value and constant(strip(value[-1])) == 0 else None
    kids = list(children_of(init))
    if kind_of(init) == K.BINARY_OPERATOR and binop(init) == "=" and len(kids) == 2:
        return _var_of(b, kids[0]) if constant(strip(kids[1])) == 0 else None
    return None


def _steps(b, inc, i: str) -> bool:
    """Whether inc advances i by one (`i++`, `++i`, `i += 1`)."""
    inc = strip(inc) if inc is not None else None
    if inc is None:
        return False
    kids = list(children_of(inc))
    if kind_of(inc) == K.UNARY_OPERATOR and unop(inc) in ("post++", "++"):
        return bool(kids) and _var_of(b, kids[0]) == i
    if kind_of(inc) == K.COMPOUND_ASSIGNMENT_OPERATOR and binop(inc) == "+=" and len(kids) == 2:
        return _var_of(b, kids[0]) == i and constant(strip(kids[1])) == 1
    return False


def _bound(b, cond, i: str):
    """The bound B of `i < B`, else None."""
    cond = strip(cond) if cond is not None else None
    kids = list(children_of(cond)) if cond is not None else []
    if cond is None or kind_of(cond) != K.BINARY_OPERATOR or binop(cond) != "<" or len(kids) != 2:
        return None
    return strip(kids[1]) if _var_of(b, kids[0]) == i else None


def _released(b, body, i: str) -> dict:
    """The arrays (value name -> declaration) whose element `arr[i]` the body hands to a releaser."""
    out = {}
    for c in of_kinds(body, _CALLS):
        decl, name = b.callee_of(c)
        record = b.summary_of(decl, name)
        args = arguments(c)
        if record.at_call(len(args), lambda _: False).role != "release":
            continue
        for a in args:
            base, index = _parts(strip(a))
            decl = array_decl(b, base) if base is not None else None
            if decl is not None and _var_of(b, index) == i:
                out[b.var(decl)] = decl
    return out


def released_by(b, loop) -> tuple:
    """(arrays, releaser): the local arrays a for loop releases every element of, else ((), "")."""
    init, cond, inc, body = for_parts(loop)
    i = _index(b, init)
    bound = _bound(b, cond, i) if i is not None else None
    if bound is None or not _steps(b, inc, i):
        return (), ""
    out = []
    n = constant(bound)
    for arr, decl in sorted(_released(b, body, i).items()):
        size = decl.type.get_canonical().get_array_size()
        limit = _var_of(b, bound)
        if (n is not None and n == size) or limit in _counters(b, arr) or (
                limit is not None and limit in _fill_bounds(b, arr)):
            out.append(arr)
    return tuple(out), _releaser(b, body)


def _releaser(b, body) -> str:
    for c in of_kinds(body, _CALLS):
        decl, name = b.callee_of(c)
        if b.summary_of(decl, name).at_call(1, lambda _: False).role == "release":
            return name
    return ""


def covered(b, arr: str) -> bool:
    """Whether some for loop of the function releases every element of arr (once per array)."""
    found = b.array_loops.get(arr)
    if found is None:
        found = b.array_loops[arr] = any(arr in released_by(b, c)[0] for c in of_kinds(b.fn, _LOOPS))
    return found


def holder(b, target, loc) -> str | None:
    """The variable standing for the element `arr[...]` a local's reference is stored into, where
    arr is covered by a releasing loop and the store is outside any loop; else None."""
    base, _ = _parts(target)
    if base is None or b.continues or not has_pointer_type(target) or array_decl(b, base) is None:
        return None
    arr = b.var(referenced(base))
    if not covered(b, arr):
        return None
    name = f"{arr}[@{loc.line}:{loc.column}]"
    held = b.array_holders.setdefault(arr, [])
    if name not in held:
        held.append(name)
        b.names[name] = f"{b.names.get(arr, arr)}[...]"
    return name


def filled_in_loop(b, target) -> bool:
    """A store into an element of a covered array inside a loop (`bases[i] = base;` on each
    trip): one element per trip, each released by the covering loop, so the array keeps what the
    store puts there as memory does (a store; the variable's duty, or the retain after it, is
    the array's)."""
    base, _ = _parts(target)
    if base is None or not b.continues or not has_pointer_type(target) or array_decl(b, base) is None:
        return False
    return covered(b, b.var(referenced(base)))


def initialize_elements(lowerer, loc, init) -> bool:
    """`T arr[] = { ..., f (x), ... }` (or of structs, `{ { "pi", PyFloat_FromDouble (M_PI) },
    ... }`, pyephem's module constants) for a local array: each call result an element's
    initializer holds is stored into the array, as `arr[i] = f (x);` is (a hand-over: array
    elements are not tracked), not dropped. A local's value there is an alias, as its store is."""
    c = strip(init)
    if kind_of(c) != K.INIT_LIST_EXPR or init.type.get_canonical().kind not in _ARRAYS:
        return False
    for leaf in _leaves(c):
        src = lowerer.value(leaf)
        if (isinstance(src, str) and src.startswith("$") and kind_of(strip(leaf)) == K.CALL_EXPR
                and has_pointer_type(leaf)):
            lowerer.b.emit(ir.Store(loc, src))
    return True


def _leaves(c) -> list:
    """The expressions of a (nested) initializer list, in order."""
    out = []
    for k in children_of(c):
        s = strip(k)
        if kind_of(s) == K.INIT_LIST_EXPR:
            out += _leaves(s)
        else:
            out.append(k)
    return out


_INVOKED = re.compile(r"^([A-Za-z_]\w*)\s*\(")
# Writing an element in place (`PyList_SET_ITEM`, `Py_SETREF (PyTuple_GET_ITEM (t, i), v)`): a
# body that does releases the old element it replaces, which the list's own reference paid for.
_WRITES_ITEMS = re.compile(rb"_SET_ITEM\s*\(|Py_SETREF\s*\(|Py_XSETREF\s*\(")


def borrowed_item(b, text: str) -> str:
    """The macro a loaded element is read through (`PyTuple_GET_ITEM (args, 0)`), where the
    conventions call its value borrowed and the body writes no element in place; else ""."""
    if not b.conv.borrowed_items:
        return ""
    m = _INVOKED.match(text)
    if m is None or not b.conv.matches("borrowed_items", m.group(1)):
        return ""
    if b.writes_items is None:
        b.writes_items = _WRITES_ITEMS.search(function_text(b.fn)) is not None
    return "" if b.writes_items else m.group(1)


def function_text(fn) -> bytes:
    """The source text of a function's definition (empty where it spans files)."""
    start, end = extent_places(fn)
    name = name_of_file(start[0])
    if not name or name != name_of_file(end[0]):
        return b""
    return read_source(name)[start[3]:end[3]]
