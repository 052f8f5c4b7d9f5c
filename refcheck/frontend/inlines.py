"""Header inline functions that hand back their argument (issue 32, glib-networking's OpenSSL
backend): `sk_X509_free (sk)` expands to `OPENSSL_sk_free (ossl_check_X509_sk_type (sk))`, and
`ossl_check_X509_sk_type`'s body, in a system header the analysis does not read, is `return
(OPENSSL_STACK *) sk;`. A call of such a function is its argument, by C's own semantics read
from the body: the release inside the macro releases `sk` itself."""

from __future__ import annotations

from refcheck.frontend.binding import cursor_key, referenced
from refcheck.frontend.clangutil import K, kind_of, strip
from refcheck.frontend.clangutil import kids as children_of

# cursor_key of a callee declaration -> the parameter its body returns, or None.
_SEEN: dict = {}


def identity_position(decl) -> int | None:
    """The index of the parameter a function's whole body returns (`return (T *) p;`, casts and
    parentheses aside), when its result is a pointer; None for any other body or none."""
    key = cursor_key(decl)
    if key not in _SEEN:
        if len(_SEEN) > 4096:  # keys hold a unit's pointers: keep the table from growing per unit
            _SEEN.clear()
        _SEEN[key] = _identity(decl)
    return _SEEN[key]


def _identity(decl) -> int | None:
    try:
        d = decl.get_definition()
    except Exception:  # a cursor libclang cannot resolve: no body known
        return None
    if d is None or kind_of(d) != K.FUNCTION_DECL or d.result_type.get_canonical().kind.name != "POINTER":
        return None
    kids = children_of(d)
    params = [c for c in kids if kind_of(c) == K.PARM_DECL]
    bodies = [c for c in kids if kind_of(c) == K.COMPOUND_STMT]
    if not params or len(bodies) != 1:
        return None
    stmts = children_of(bodies[0])
    if len(stmts) != 1 or kind_of(stmts[0]) != K.RETURN_STMT or len(children_of(stmts[0])) != 1:
        return None
    e = strip(children_of(stmts[0])[0])
    if kind_of(e) != K.DECL_REF_EXPR:
        return None
    target = referenced(e)
    return next((i for i, p in enumerate(params) if target is not None and p == target), None)
