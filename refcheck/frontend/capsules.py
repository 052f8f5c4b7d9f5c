"""What a CPython capsule's destructor takes over (issue 31, cpy25): the pointer PyCapsule_New is
given, where the destructor fetches it (`PyCapsule_GetPointer`), and the context
PyCapsule_SetContext sets, where the destructor of the capsule the function made fetches that
(`PyCapsule_GetContext`). The destructor is handed the capsule, not the data, so the
data/destroy-notify pairs of `userdata` do not see it; its body says which of the two it frees."""

from __future__ import annotations

from refcheck import ir
from refcheck.frontend.argtypes import named_function
from refcheck.frontend.binding import arguments, definition, of_kinds, referenced
from refcheck.frontend.clangutil import K, binop, kind_of, named_parameter, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import NULL, is_null_constant
from refcheck.frontend.graph import in_library

_NEW, _SET_CONTEXT = "PyCapsule_New", "PyCapsule_SetContext"
_GET_POINTER, _GET_CONTEXT = "PyCapsule_GetPointer", "PyCapsule_GetContext"
_CALLS = frozenset((K.CALL_EXPR.value,))
_STORES = frozenset((K.VAR_DECL.value, K.BINARY_OPERATOR.value))


def given_pointer(b, decl, name: str, args: list) -> frozenset[int]:
    """`{0}` for `PyCapsule_New (p, name, d)` where d's body in the unit fetches the capsule's
    pointer: the capsule frees p when it goes, once it was made (`held_if_made`). A local
    only: a parameter is left as it was."""
    if name != _NEW or len(args) != 3 or not _capsule_api(b, decl):
        return frozenset()
    # A parameter is the caller's to give (python-fuse's `if (ph) pollhandle = PyCapsule_New
    # (ph, ...); ... if (ph) Py_DECREF (pollhandle);` hands the library's handle on).
    if named_parameter(args[0]) is not None:
        return frozenset()
    return frozenset({0}) if _destructor_fetches(args[2], _GET_POINTER) else frozenset()


def held_if_made(b, loc, name: str, capsule: str, data: list) -> None:
    """Where the capsule `capsule` was made (not NULL), `data` is the capsule's (a store: a
    release after it is RC006); where PyCapsule_New failed it is still the caller's, to free or
    to leak (python-lz4's `return PyCapsule_New (context, ...)` leaks it there)."""
    data = [v for v in data if isinstance(v, str) and v != NULL]
    if not data:
        return
    join = b.non_null_arm(loc, capsule, f"{name} made the capsule")
    for v in data:
        b.emit(ir.Store(loc, v, "", frozenset()))
    b.goto(join)
    b.cur = join


def given_context(b, decl, name: str, args: list) -> frozenset[int]:
    """`{1}` for `PyCapsule_SetContext (cap, ctx)` where every value the function gives the local
    `cap` (other than NULL) is `PyCapsule_New (..., d)` whose destructor d fetches the context:
    the destructor releases ctx, so the call takes it over (a borrowed ctx is RC009). A capsule
    made elsewhere, or a destructor that does not read its context, takes nothing."""
    if name != _SET_CONTEXT or len(args) != 2 or not _capsule_api(b, decl):
        return frozenset()
    x = strip(args[0])
    var = referenced(x) if kind_of(x) == K.DECL_REF_EXPR else None
    if var is None or kind_of(var) != K.VAR_DECL:
        return frozenset()
    made = _values_given(b.fn, var)
    if not made or any(v is None for v in made):
        return frozenset()
    ok = all(_is_call(v, _NEW) and len(arguments(v)) == 3 and _destructor_fetches(arguments(v)[2], _GET_CONTEXT)
             for v in made)
    return frozenset({1}) if ok else frozenset()


def _capsule_api(b, decl) -> bool:
    """The callee is declared in the preset's library headers (Python.h's folder)."""
    header = b.conv.library_header
    f = decl.location.file if decl is not None else None
    return bool(header) and f is not None and in_library(f.name, header)


def _destructor_fetches(arg, getter: str) -> bool:
    """`arg` names a function with a body in the unit that calls `getter` on its first parameter."""
    fn = named_function(arg)
    body = definition(fn)
    if body is None:
        return False
    params = list(body.get_arguments())
    if not params:
        return False
    for call in of_kinds(body, _CALLS):
        got = arguments(call)
        if call.spelling == getter and got and _names(got[0], params[0]):
            return True
    return False


def _values_given(fn, var) -> list:
    """The expressions function `fn` gives local `var` (its initializer, `var = e`), NULLs left
    out; None for one the function gives another way (`&var` is not looked for: a capsule
    handed out to be filled is rare, and its `var = ...` stores are still all read)."""
    out = []
    for c in of_kinds(fn, _STORES):
        if kind_of(c) == K.VAR_DECL:
            if c == var:
                init = [k for k in children_of(c) if kind_of(k) not in (K.TYPE_REF, K.PARM_DECL)]
                if init and not is_null_constant(init[-1]):
                    out.append(strip(init[-1]))
            continue
        kids = children_of(c)
        if binop(c) == "=" and len(kids) == 2 and _names(kids[0], var) and not is_null_constant(kids[1]):
            out.append(strip(kids[1]))
    return out


def _is_call(x, name: str) -> bool:
    return x is not None and kind_of(x) == K.CALL_EXPR and x.spelling == name


def _names(arg, var) -> bool:
    x = strip(arg)
    return kind_of(x) == K.DECL_REF_EXPR and referenced(x) == var
