"""The C++ standard library's owning pointers take the pointer they are given (issue 31, cpy45's
kiwisolver: `std::unique_ptr<Row> row (new Row (...))`, `m_objective.reset (new Row ())`).

`std::unique_ptr`, `std::shared_ptr` and `std::auto_ptr` delete the object they are constructed
from or `reset` to, as the standard specifies ([unique.ptr.single.ctor], [util.smartptr.shared
.const]). libstdc++ keeps the pointer in a `std::tuple` behind `_M_t._M_ptr ()`, which the
holder reading of `frontend.raiimembers` (a member the destructor releases) does not follow, so
the `new` result was reported leaked where the owner took it. Such a constructor or `reset`,
declared by the system's standard library, takes its pointer argument over: handed over as to a
sink, so a later `delete` of the same pointer is still reported (RC006), and a `new` kept by no
owner still leaks.
"""

from __future__ import annotations

from refcheck.frontend.binding import in_system_location, location_file, semantic_parent, spelling
from refcheck.frontend.clangutil import K, has_pointer_type, kind_of

OWNERS = frozenset({"unique_ptr", "shared_ptr", "auto_ptr"})
_CLASSES = (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE, K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION)


def _in_std(cursor) -> bool:
    """The cursor is declared in namespace std (or an inline namespace in it: libc++'s `__1`)."""
    p = semantic_parent(cursor)
    while p is not None and kind_of(p) == K.NAMESPACE:
        if spelling(p) == "std":
            return semantic_parent(p) is None or kind_of(semantic_parent(p)) == K.TRANSLATION_UNIT
        p = semantic_parent(p)
    return False


def owner_takes(decl, args: list) -> frozenset[int]:
    """The argument a standard owning pointer's constructor or `reset` takes over: its first,
    a pointer; empty for any other call."""
    if decl is None or not args or not has_pointer_type(args[0]):
        return frozenset()
    k = kind_of(decl)
    if k not in (K.CONSTRUCTOR, K.CXX_METHOD) or (k == K.CXX_METHOD and spelling(decl) != "reset"):
        return frozenset()
    cls = semantic_parent(decl)
    if cls is None or kind_of(cls) not in _CLASSES or spelling(cls) not in OWNERS or not _in_std(cls):
        return frozenset()
    return frozenset({0}) if in_system_location(location_file(decl)[0]) else frozenset()
