"""Replacing setters guarded by a same-pointer test (issue 32, bolt's `bolt_set_str`).

    ptr = *target;
    if (ptr == str)
      return FALSE;
    g_free (ptr);
    *target = str;
    return TRUE;

The slot `*target` owns what it holds (its old value is released before the store), so `str`
is handed to it; the one return that does not store it is taken where `str` is the slot's value
already, which the slot owns: there too the caller's pointer is the slot's. So `str` is given up
on every result, not on TRUE only (a fresh `g_strdup` passed in can never equal the slot's old
value, and `bolt_set_str (&s, s)` hands over what `s` already held). Read off the syntax:

- a store `*q = p;` of the pointer parameter p through the parameter q;
- before it, a release (a releaser's or `g_clear_*`'s call) of `*q`, or of a local whose every
  assignment is `*q`;
- a guard `if (X == p) return K;` (or `p == X`), X that same `*q` or local, K an integer constant;
- every other return spelled in the body returns an integer constant other than K (one written
  by a macro, g_return_val_if_fail's, ends at a programmer-error exit and is not counted).
"""

from __future__ import annotations

from refcheck.frontend.binding import of_kinds, referenced
from refcheck.frontend.clangutil import K, binop, constant, has_pointer_type, kind_of, strip, unop
from refcheck.frontend.clangutil import kids as children_of


def same_guarded_parameters(fn, releases) -> list:
    """The parameter declarations p of the shape above. `releases(name)`: whether a call to
    `name` releases its argument."""
    params = {_key(c): c for c in children_of(fn) if kind_of(c) == K.PARM_DECL}
    if len(params) < 2:
        return []
    stores = _stores(fn, params)
    if not stores:  # most functions: one walk of their assignments
        return []
    aliases = _slot_aliases(fn, params)
    released = _released(fn, releases, aliases, params)
    out = []
    for key, (q, at) in stores.items():
        p = params[key]
        if not any(slot == q and off < at for off, slot in released):
            continue
        guard = _guard(fn, p, q, aliases, params)
        if guard is not None and _other_returns_differ(fn, *guard):
            out.append(p)
    return out


def _key(c) -> tuple:
    return c.spelling, c.location.offset


def _param_of(c, params) -> tuple | None:
    c = strip(c)
    if kind_of(c) != K.DECL_REF_EXPR:
        return None
    ref = referenced(c)
    return _key(ref) if ref is not None and kind_of(ref) == K.PARM_DECL and _key(ref) in params else None


def _deref_param(c, params) -> tuple | None:
    """q's key where c is `*q`, q a parameter."""
    c = strip(c)
    if kind_of(c) != K.UNARY_OPERATOR or unop(c) != "*":
        return None
    inner = next(iter(children_of(c)), None)
    return _param_of(inner, params) if inner is not None else None


def _slot_aliases(fn, params) -> dict:
    """Local declaration key -> q, for the locals whose every assignment (or initialiser) is `*q`."""
    seen: dict = {}
    for c in of_kinds(fn, frozenset((K.VAR_DECL.value,))):
        init = [x for x in children_of(c) if kind_of(x) != K.TYPE_REF]
        if init:
            seen.setdefault(_key(c), set()).add(_deref_param(init[-1], params))
    for c in of_kinds(fn, frozenset((K.BINARY_OPERATOR.value,))):
        if binop(c) != "=":
            continue
        lhs, rhs = (strip(x) for x in children_of(c))
        ref = referenced(lhs) if kind_of(lhs) == K.DECL_REF_EXPR else None
        if ref is not None and kind_of(ref) == K.VAR_DECL:
            seen.setdefault(_key(ref), set()).add(_deref_param(rhs, params))
    return {k: next(iter(qs)) for k, qs in seen.items() if len(qs) == 1 and None not in qs}


def _slot_of(c, aliases, params) -> tuple | None:
    """q where c is `*q` or a local alias of it."""
    q = _deref_param(c, params)
    if q is not None:
        return q
    c = strip(c)
    ref = referenced(c) if kind_of(c) == K.DECL_REF_EXPR else None
    return aliases.get(_key(ref)) if ref is not None else None


def _stores(fn, params) -> dict:
    """p's key -> (q's key, offset) of the last store `*q = p;` of each pointer parameter p."""
    out: dict = {}
    for c in of_kinds(fn, frozenset((K.BINARY_OPERATOR.value,))):
        if binop(c) != "=":
            continue
        lhs, rhs = children_of(c)
        q, p = _deref_param(lhs, params), _param_of(rhs, params)
        if q is not None and p is not None and p != q and has_pointer_type(strip(rhs)):
            out[p] = (q, c.extent.start.offset)
    return out


def _released(fn, releases, aliases, params) -> list:
    """(offset, q) of each call releasing `*q` or a local alias of it."""
    out = []
    for c in of_kinds(fn, frozenset((K.CALL_EXPR.value,))):
        name = c.spelling or ""
        if not name or not (name.startswith("g_clear_") or releases(name)):
            continue
        args = list(c.get_arguments())
        q = _slot_of(args[0], aliases, params) if args else None
        if q is not None:
            out.append((c.extent.start.offset, q))
    return out


def _guard(fn, p, q, aliases, params) -> tuple | None:
    """(the guard's return statement, its constant) of `if (X == p) return K;`."""
    pk = _key(p)
    for c in of_kinds(fn, frozenset((K.IF_STMT.value,))):
        parts = list(children_of(c))
        if len(parts) != 2:
            continue  # an else arm: not a plain early return
        cond, then = strip(parts[0]), parts[1]
        if kind_of(cond) != K.BINARY_OPERATOR or binop(cond) != "==":
            continue
        a, b = children_of(cond)
        if not any(_param_of(x, params) == pk and _slot_of(y, aliases, params) == q for x, y in ((a, b), (b, a))):
            continue
        if kind_of(then) == K.COMPOUND_STMT:
            inner = list(children_of(then))
            then = inner[0] if len(inner) == 1 else then
        if kind_of(then) != K.RETURN_STMT:
            continue
        value = list(children_of(then))
        k = constant(strip(value[0])) if value else None
        if k is not None:
            return then, k
    return None


def _other_returns_differ(fn, guard, k: int) -> bool:
    """Every return spelled in the function's own file text but the guard returns a constant
    other than k; a return a macro expands (g_return_val_if_fail) is not counted."""
    for r in of_kinds(fn, frozenset((K.RETURN_STMT.value,))):
        if r == guard or _from_macro(r):
            continue
        value = list(children_of(r))
        v = constant(strip(value[0])) if value else None
        if v is None or v == k:
            return False
    return True


def _from_macro(c) -> bool:
    """Whether the statement comes from a macro's expansion (its spelling location differs
    from its expansion location)."""
    tokens = list(c.get_tokens())
    return not tokens or tokens[0].spelling != "return"
