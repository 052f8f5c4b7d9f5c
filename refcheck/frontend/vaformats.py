"""Variadic functions of the unit that pass their format and arguments on as a `va_list` to a
Py_VaBuildValue-style function (`va-formats`): apsw's `Call_PythonMethodV (obj, name, mandatory,
format, ...)` does `args = Py_VaBuildValue (format, list)`, so `Call_PythonMethodV (o, "m", 1,
"(Ni)", convertutf8string (zName), flags)` steals the string as `Py_BuildValue ("(Ni)", ...)`
would. The format parameter is read from the callee's body (its format reaches the forwarding
call's format argument, casts aside), never from its name."""

from __future__ import annotations

from refcheck.frontend.binding import cursor_key, definition, referenced
from refcheck.frontend.clangutil import K, kind_of, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.perunit import PerUnit

_SEEN: PerUnit[dict] = PerUnit()  # per unit: keys hold the unit's pointers


def forwarded_format(conv, decl) -> int | None:
    """The index of the format parameter a variadic callee defined in this unit hands, with its
    `...`, to a `va-formats` function; None for any other callee."""
    if not conv.va_formats or decl is None:
        return None
    key = cursor_key(decl)
    seen = _SEEN.of(decl.translation_unit, dict)
    if key not in seen:
        seen[key] = _forwarded(conv, decl)
    return seen[key]


def _forwarded(conv, decl) -> int | None:
    try:
        if not decl.type.is_function_variadic():
            return None
        d = definition(decl)
    except Exception:  # a cursor libclang cannot resolve (no prototype, no body known)
        return None
    if d is None or kind_of(d) != K.FUNCTION_DECL:
        return None
    kids = children_of(d)
    params = [c for c in kids if kind_of(c) == K.PARM_DECL]
    stack = [c for c in kids if kind_of(c) == K.COMPOUND_STMT]
    while stack:
        c = stack.pop()
        if kind_of(c) == K.CALL_EXPR:
            index = conv.pattern_value("va_formats", c.spelling)
            args = list(c.get_arguments()) if index is not None else []
            if index is not None and index < len(args):
                e = strip(args[index])
                target = referenced(e) if kind_of(e) == K.DECL_REF_EXPR else None
                found = next((i for i, p in enumerate(params) if target is not None and p == target), None)
                if found is not None:
                    return found
        stack.extend(children_of(c))
    return None
