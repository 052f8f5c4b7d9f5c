"""A local struct copied by the C library's memory copy (issue 32, glib46's gnome-keyring).

`memcpy (*result, &attr, sizeof (CK_ATTRIBUTE))` after `attr.pValue = g_malloc0 (n)` and
`*result = g_slice_new (CK_ATTRIBUTE)` (gkm-manager.c's `read_attribute`, `read_value`) copies the
struct whole into memory its caller keeps: what its members hold goes with the copy, as with the
assignment `**result = attr;` the builder already lowers so. Read as a plain call that only looks
at both blocks, each member's allocation leaked at the return (7 `[struct-copy]` RC001). A copy
into memory of the frame (`&copy`, a local array) dies with the function: nothing is handed over
and a member never freed stays the function's leak.
"""

from __future__ import annotations

from refcheck.frontend.aliases import pointed_local
from refcheck.frontend.clangutil import K, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of

# The C library's copies of a block (destination first), and what _FORTIFY_SOURCE and clang make
# of them.
_COPIES = frozenset(("memcpy", "memmove", "__builtin_memcpy", "__builtin_memmove",
                     "__builtin___memcpy_chk", "__builtin___memmove_chk", "mempcpy", "__builtin_mempcpy"))


def copied_members(b, name: str, args: list) -> list[str]:
    """The variables standing for the members of local struct s at `memcpy (dst, &s, n)`, dst
    memory outside the frame (module docstring); empty for any other call."""
    if name not in _COPIES or len(args) < 2 or not b.members or _in_frame(b, args[0]):
        return []
    s = pointed_local(b, args[1])
    return list(b.members.get(s, {}).values()) if s is not None else []


def _in_frame(b, a) -> bool:
    """Whether the destination is memory of this function's frame: the address of a local (`&copy`,
    `&copy.inner`) or a local array."""
    c = strip(a)
    address = kind_of(c) == K.UNARY_OPERATOR and unop(c) == "&"
    if address:
        c = strip(next(iter(children_of(c)), c))
        while kind_of(c) == K.MEMBER_REF_EXPR and c.type.get_canonical().kind.name == "RECORD":
            c = strip(next(iter(children_of(c)), c))  # `&copy.inner`: still the frame's
    if kind_of(c) != K.DECL_REF_EXPR:
        return pointed_local(b, a) is not None
    d = referenced(c)
    if d is None or kind_of(d) not in (K.VAR_DECL, K.PARM_DECL) or b.var(d) is None:
        return False  # a global's memory, a function: outside the frame
    # `&copy`, a local array; not the block a local or parameter pointer points to.
    return address or d.type.get_canonical().kind.name != "POINTER"
