"""Structs of a function's frame that own what is stored into them.

An inferred setter handed `&s`, a struct of this frame, stores into memory that dies with the
function: an alias, no hand-over (`Calls.call_effects`). Not where the function also hands `&s`
to a call whose record frees what its parameter points to (`Summary.frees_contents`): C's
intrusive containers kept on the stack, pyahocorasick's `List queue; list_append (&queue,
item); ... list_delete (&queue);`, whose list_delete frees every item left in it. The items
are the list's from the append on; one appended to a list the function never deletes still
leaks, as before. Found per function, by syntax, once per build.
"""

from __future__ import annotations

from refcheck.frontend.binding import arguments, kind_of, referenced
from refcheck.frontend.clangutil import K, strip, unop
from refcheck.frontend.clangutil import kids as children_of


def owning_locals(b) -> frozenset:
    """The local variables `v` whose address this function hands to a call that frees their
    contents."""
    if b.owning is None:
        b.owning = frozenset(_owning(b))
    return b.owning


def address_of_local(b, a) -> str | None:
    """The local variable v of an argument `&v`, else None."""
    inner = strip(a)
    if kind_of(inner) != K.UNARY_OPERATOR or unop(inner) != "&":
        return None
    target = strip(next(iter(children_of(inner)), None) or inner)
    return b.var(referenced(target)) if kind_of(target) == K.DECL_REF_EXPR else None


def _owning(b):
    stack = [b.fn]
    while stack:
        c = stack.pop()
        stack.extend(children_of(c))
        if kind_of(c) != K.CALL_EXPR:
            continue
        args = arguments(c)
        locals_ = {i: v for i, a in enumerate(args) if (v := address_of_local(b, a)) is not None}
        if not locals_:
            continue
        decl, name = b.callee_of(c)
        if not name:
            continue
        freed = b.summary_of(decl, name).frees_contents
        yield from (v for i, v in locals_.items() if i in freed)
