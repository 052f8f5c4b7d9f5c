"""Header inline functions that hand back their argument (issue 32, glib-networking's OpenSSL
backend): `sk_X509_free (sk)` expands to `OPENSSL_sk_free (ossl_check_X509_sk_type (sk))`, and
`ossl_check_X509_sk_type`'s body, in a system header the analysis does not read, is `return
(OPENSSL_STACK *) sk;`. A call of such a function is its argument, by C's own semantics read
from the body: the release inside the macro releases `sk` itself."""

from __future__ import annotations

from refcheck.frontend.binding import arguments, cursor_key, definition, referenced
from refcheck.frontend.clangutil import K, kind_of, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.perunit import PerUnit
from refcheck.frontend.unit import in_system_header

# cursor_key of a callee declaration -> the parameter its body returns, or None.
_SEEN: PerUnit[dict] = PerUnit()  # per unit: keys hold the unit's pointers


def identity_position(decl, passes=None) -> int | None:
    """The index of the parameter a function's whole body returns (`return (T *) p;`, casts and
    parentheses aside), when its result is a pointer; None for any other body or none.
    `passes(name)`: the argument position a callee returns, or None (the conventions' record):
    `return f (p, ...)` of such a callee returns p too. G_DECLARE_FINAL_TYPE's and
    G_DECLARE_DERIVABLE_TYPE's cast functions in an installed header (librest's REST_PROXY_CALL,
    libsoup 3's SOUP_SESSION) are `return G_TYPE_CHECK_INSTANCE_CAST (ptr, ...)`, which is
    `g_type_check_instance_cast ((GTypeInstance *) ptr, ...)` unless cast checks are disabled."""
    key = cursor_key(decl)
    seen = _SEEN.of(decl.translation_unit, dict)
    if key not in seen:
        seen[key] = _identity(decl, passes)
    return seen[key]


def _identity(decl, passes) -> int | None:
    try:
        d = definition(decl)
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
    if kind_of(e) == K.CALL_EXPR and passes is not None:
        e = _passed(e, passes)
    if e is None or kind_of(e) != K.DECL_REF_EXPR:
        return None
    target = referenced(e)
    return next((i for i, p in enumerate(params) if target is not None and p == target), None)


def _passed(call, passes):
    """The argument (casts aside) a call hands back by its callee's record, or None. Only a
    callee of a system header (g_type_check_instance_cast): asking for a function of the unit
    would make the inline's callers depend on its definition (a stale definition more in the
    second round, frontend.graph's summaries)."""
    callee = referenced(call)
    i = passes(callee.spelling) if callee is not None and kind_of(callee) == K.FUNCTION_DECL \
        and callee.location.file is not None and in_system_header(callee.location) else None
    args = arguments(call) if i is not None else []
    return strip(args[i]) if i is not None and i < len(args) else None
