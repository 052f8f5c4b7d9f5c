"""Locals that hold a pointer moved off another by an offset (`last = ptr + len`).

Pointer arithmetic keeps the object (`expressions`: `p + n` lowers to `p`), which ownership needs
(the end of a buffer points into it), but it made `last` and `ptr` one object, so a comparison of
the two (`ir.SameObject`) was decided equal: `if (!ptr && last != ptr) return ERR;` and `while (ptr
!= last)` never ran their true edges (gnome-keyring's gkm_secret_fields_parse: every failure
return lost, so its out parameter read as filled on every result). A comparison with such a local
is left a plain fact, which nothing decides."""

from __future__ import annotations

from refcheck.frontend.binding import kind_of
from refcheck.frontend.clangutil import K, binop, constant, has_pointer_type, strip
from refcheck.frontend.clangutil import kids as children_of


def moved_pointer(c) -> bool:
    """Whether expression `c` is pointer arithmetic by an offset that is not a constant 0."""
    e = strip(c) if c is not None else None
    if e is None or kind_of(e) != K.BINARY_OPERATOR or binop(e) not in ("+", "-") or not has_pointer_type(e):
        return False
    sides = list(children_of(e))
    offsets = [s for s in sides if not has_pointer_type(s)]
    return len(sides) == 2 and len(offsets) == 1 and constant(strip(offsets[0])) != 0
