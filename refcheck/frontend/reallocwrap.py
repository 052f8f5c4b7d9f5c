"""A reallocation wrapper whose body returns realloc's result as it is fails as realloc does
(issue 32, glib46: msitools' `static inline void *msi_realloc (void *mem, size_t len) { return
realloc (mem, len); }`).

The glib preset names every `*_realloc (mem, size)` a reallocation; the name cannot say what a
failure does: return NULL with the old block still the caller's (realloc, g_try_realloc), or
abort (g_realloc). A wrapper whose one statement returns a reallocation that may fail, of its own
first parameter, hands that failure on: its caller's `p = x_realloc (old, n); if (!p) { free
(old); ... }` frees the block it still owns, once. A body that checks the result, or does more
than return it, is left to the name's record.
"""

from __future__ import annotations

from refcheck.conventions.summary import Returns
from refcheck.frontend.binding import definition
from refcheck.frontend.clangutil import K, kids, kind_of, named_parameter, strip
from refcheck.frontend.graph import resolved_callee
from refcheck.frontend.overloads import record_of


def returns_failing_realloc(conv, decl) -> bool:
    """`decl`'s definition is `return R (first, ...);` for a reallocation R that may fail."""
    fn = definition(decl)
    if fn is None:
        return False
    bodies = [c for c in kids(fn) if kind_of(c) == K.COMPOUND_STMT]
    statements = kids(bodies[0]) if len(bodies) == 1 else []
    if len(statements) != 1 or kind_of(statements[0]) != K.RETURN_STMT or len(kids(statements[0])) != 1:
        return False
    call = strip(kids(statements[0])[0])
    if kind_of(call) != K.CALL_EXPR:
        return False
    inner = record_of(conv, *resolved_callee(call, conv))
    if inner.returns is not Returns.REALLOCATED or not inner.may_fail:
        return False
    args, params = list(call.get_arguments()), list(fn.get_arguments())
    first = named_parameter(args[0]) if args else None
    return first is not None and bool(params) and first == params[0]
