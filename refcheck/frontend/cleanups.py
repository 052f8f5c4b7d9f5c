"""Variables declared `__attribute__((cleanup(f)))`: `f(&x)` runs at every exit of x's scope.

This is what GLib's `g_autoptr(T)`, `g_autofree` and `g_auto(T)` expand to. The builder keeps a
stack of scopes (one per compound statement) holding the cleanup variables declared so far; each
way out of a scope (falling off its end, `return`, `break`/`continue` out of it, a `goto` to a
label outside it or before the variable's declaration) runs the cleanups of the variables it
leaves, innermost and latest first, as C does. Calls that never return (abort, exit, error
functions) run none.

The cleanup function receives `T **` for a pointer variable x and, as every cleanup function of a
pointer does in practice (glib_autoptr_cleanup_*, g_autoptr_cleanup_generic_gfree, a
hand-written `freep(char **p) { free(*p); }`), releases `*p`: it is lowered as a release of x's
value, which is a no-op on NULL (so after `g_steal_pointer(&x)` it releases nothing). A cleanup
of a struct variable (`g_auto(T)` with G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC: `T_clear (&x)`, which
GLib documents as freeing the struct's contents; `g_auto(GValue)`, a lock guard) receives the
whole struct: what its members hold when the scope ends is handed to it (a store of each member
written here, as `*out = s` hands them over), so none of it is reported as leaked; an unwritten
member or a scalar variable (`g_auto(GMutexLocker)`) touches no counted reference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import clang.cindex as ci

from refcheck import ir
from refcheck.frontend.binding import pretty_printed
from refcheck.frontend.clangutil import K, has_pointer_type, kind_of
from refcheck.frontend.clangutil import kids as children_of
from refcheck.findings import Location

# clang prints the attribute after the declarator, macros expanded:
# `GFile_autoptr f __attribute__((cleanup(glib_autoptr_cleanup_GFile))) = ...`.
_CLEANUP = re.compile(r"__attribute__\(\(cleanup\((?P<name>[A-Za-z_]\w*)\)\)\)")


def cleanup_function(decl) -> str | None:
    """The cleanup function of a pointer or struct local `decl`, or None (no cleanup attribute)."""
    if not any(kind_of(c) == K.UNEXPOSED_ATTR for c in children_of(decl)):
        return None  # no attribute at all: the common case, without printing anything
    if not has_pointer_type(decl) and not is_struct(decl):
        return None
    text = pretty_printed(decl)
    head = text.split(" = ", 1)[0]  # not a match inside the initializer
    m = _CLEANUP.search(head)
    return m["name"] if m else None


def is_struct(decl) -> bool:
    """A local of struct type (not a pointer, not a union): its cleanup gets the whole struct."""
    t = decl.type.get_canonical()
    return t.kind == ci.TypeKind.RECORD and kind_of(t.get_declaration()) == K.STRUCT_DECL


@dataclass(frozen=True)
class Cleanup:
    var: str
    function: str
    # The variable points to a record (an object, which others may hold a reference to too), not
    # to plain memory (`g_autofree gchar *`), whose only owner this variable is.
    shared: bool = False
    # The variable is a struct (`g_auto(T)`): its cleanup takes what its members hold.
    whole: bool = False


@dataclass
class Scope:
    ident: int
    cleanups: list[Cleanup] = field(default_factory=list)


# Where a jump lands, as scope ident -> how many cleanup variables of that scope exist there.
Mark = dict[int, int]


class Scopes:
    """The cleanup variables of the scopes enclosing the statement being built."""

    def __init__(self) -> None:
        self.stack: list[Scope] = []
        self.count = 0
        # A goto's cleanup block, the scopes it leaves, and its label (resolved at the end: the
        # label may come after the goto).
        self.pending: list[tuple[int, list[Scope], Mark, str, Location]] = []
        self.labels: dict[str, Mark] = {}

    def push(self) -> None:
        self.count += 1
        self.stack.append(Scope(self.count))

    def pop(self) -> Scope:
        return self.stack.pop()

    def declare(self, var: str, function: str, shared: bool = False, whole: bool = False) -> None:
        if self.stack:
            self.stack[-1].cleanups.append(Cleanup(var, function, shared, whole))

    def mark(self) -> Mark:
        return {s.ident: len(s.cleanups) for s in self.stack}

    def shared(self, var: str) -> bool:
        """`var` is a cleanup variable pointing to an object (see Cleanup.shared)."""
        return any(c.var == var and c.shared for s in self.stack for c in s.cleanups)

    def any(self) -> bool:
        return any(s.cleanups for s in self.stack)

    def leaving(self, target: Mark, snapshot: list[Scope] | None = None,
                counts: Mark | None = None) -> list[Cleanup]:
        """The cleanups that run jumping from here (or from `snapshot`, with `counts` variables
        per scope) to a place with `target` variables per scope: innermost, latest first."""
        scopes = self.stack if snapshot is None else snapshot
        out: list[Cleanup] = []
        for s in reversed(scopes):
            have = s.cleanups if counts is None else s.cleanups[:counts[s.ident]]
            out.extend(reversed(have[target.get(s.ident, 0):]))
        return out


def releases(cleanups: list[Cleanup], loc: Location, members: dict[str, dict[str, str]]) -> list:
    """The ops running `cleanups` at `loc`: a pointer's release; for a struct, a hand-over of
    each member `members` (local struct -> field -> its variable) knows it to have been written."""
    ops: list = []
    for c in cleanups:
        if c.whole:
            ops.extend(ir.Store(loc, held) for held in members.get(c.var, {}).values())
        else:
            ops.append(ir.Release(loc, (c.var,), c.function, cleanup=True))
    return ops
