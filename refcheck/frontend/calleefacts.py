"""What a callee's declaration alone says, asked at every call to it: kept, not asked again.

A call's lowering asks several helpers about its callee (`calls.CallLowering.call`'s hand-over
takers, the notify and callback readers); those that read the declaration only answered again
at each of its calls, each a libclang round trip: on gmpy2 (19,712 calls of 926 callees),
`defined_here` about 50,000 times and the callee's parameter types 8,046 times. The answers hold
for the unit's life (its AST does not change). Plain answers (a flag, a USR) are kept per unit
by the declaration's cursor key (`PerUnit`: a worker checks its units one after another); the
parameter types, which hold their unit, for the function being built (`clangutil.build_memo`).
"""

from __future__ import annotations

import clang.cindex as ci

from refcheck.frontend.binding import cursor_key, definition
from refcheck.frontend.clangutil import argument_types, build_memo
from refcheck.frontend.perunit import PerUnit

_UNIT: PerUnit[dict] = PerUnit()


def _unit_memo(c) -> dict | None:
    """The memo of c's unit, None for a cursor the binding made without its unit."""
    tu = getattr(c, "_tu", None)
    return None if tu is None else _UNIT.of(tu, dict)


def defined_here(decl) -> bool:
    """The callee's body is in this unit (`definition(decl)`), `decl` not None."""
    memo = _unit_memo(decl)
    key = cursor_key(decl) if memo is not None else None
    found = memo.get(key) if memo is not None else None
    if found is None:
        try:
            found = definition(decl) is not None
        except Exception:  # a cursor libclang cannot resolve: no body known
            found = False
        if memo is not None:
            memo[key] = found
    return found


def usr(fn) -> str:
    """`fn.get_usr()` (the function being built, asked at every call that may hand it its own
    data: `userdata.to_itself`)."""
    memo = _unit_memo(fn)
    if memo is None:
        return fn.get_usr()
    key = (b"usr", cursor_key(fn))
    found = memo.get(key)
    if found is None:
        found = memo[key] = fn.get_usr()
    return found


def declared_types(decl) -> tuple:
    """The prototype's parameter types of `decl` (a function, or a pointer to one: a field called
    through); empty where it has none (no prototype, a type libclang cannot read)."""
    if decl is None:
        return ()
    memo = build_memo()
    key = (b"params", cursor_key(decl)) if memo is not None else None
    found = memo.get(key) if memo is not None else None
    if found is None:
        found = _declared(decl)
        if memo is not None:
            memo[key] = found
    return found


def _declared(decl) -> tuple:
    try:
        t = decl.type.get_canonical()
        if t.kind == ci.TypeKind.POINTER:
            t = t.get_pointee().get_canonical()
        if t.kind == ci.TypeKind.FUNCTIONPROTO:
            return tuple(argument_types(t))
    except Exception:  # a declaration libclang cannot type
        pass
    return ()
