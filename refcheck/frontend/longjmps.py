"""setjmp returns twice (issue 27): libpng's `if (setjmp(png_jmpbuf(png)))`, libjpeg's error
manager. The first return is 0; the second comes when a later library call longjmps back, with
whatever the function acquired between the setjmp and that call still owned. So the nonzero
branch of the `if` is entered from just before each later call that may longjmp, as a catch is
from each call in a try (expressions.throw_split), and the branch is the error path.

Which calls may longjmp: those with no body in the unit and no record at all (the library's own
calls, `png_read_image(png, rows)`); not an acquirer, a release, a Lua call with a record, a
function of the unit, nor one of the project's other units (declared in a header of its own, not
a system header: gdk-pixbuf's `gdk_pixbuf_set_option` between libjpeg's calls) or of the preset's
library, which never longjmps (GLib), nor the C library's (memcpy; not qsort, with its callback,
nor raise, with a signal handler). A later setjmp takes over as the target. Nor does a call
handed `&p`, p the pointer the buffer is reached through (`png_destroy_read_struct (&png, &info,
NULL)`): it ends p's context and the buffer with it; where it is a statement of the setjmp's own
block, no later call jumps back either.
"""

from __future__ import annotations

import os

from refcheck import ir
from refcheck.frontend.argtypes import is_function_pointer
from refcheck.frontend.binding import cursor_key, referenced, spelling
from refcheck.frontend.clangutil import K, binop, constant, has_pointer_type, kind_of, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.graph import GraphBuilder, in_library, callee_of
from refcheck.frontend.owning import address_of_local
from refcheck.frontend.unit import in_system_header
from refcheck.findings import Location

# The C library's own headers: their functions never longjmp, but through a callback they are
# handed (qsort's comparison) or a signal handler they run (raise, kill).
_LIBC_HEADERS = frozenset({"string.h", "strings.h", "stdlib.h", "stdio.h", "ctype.h", "wchar.h", "wctype.h",
                           "math.h", "time.h", "locale.h", "inttypes.h", "unistd.h", "fcntl.h", "stat.h"})
_SIGNALS = frozenset({"raise", "kill", "killpg", "abort", "pthread_kill", "sigqueue"})

# glibc spells setjmp as a macro over _setjmp; sigsetjmp over __sigsetjmp.
SETJMPS = frozenset({"setjmp", "_setjmp", "__setjmp", "sigsetjmp", "__sigsetjmp", "__builtin_setjmp"})


def second_return(cond) -> bool | None:
    """Which branch of `if (cond)` the second return of a setjmp in cond takes: True for
    `setjmp(b)` and `setjmp(b) != 0`, False for `!setjmp(b)` and `setjmp(b) == 0`; None when
    cond is no such test."""
    c = strip(cond)
    k = kind_of(c)
    if k == K.UNARY_OPERATOR and unop(c) == "!":
        inner = second_return(next(iter(children_of(c)), None))
        return None if inner is None else not inner
    if k == K.BINARY_OPERATOR and binop(c) in ("==", "!="):
        lhs, rhs = list(children_of(c))
        for a, b in ((lhs, rhs), (rhs, lhs)):
            if _is_zero(b) and second_return(a) is True:
                return binop(c) == "!="
        return None
    if k == K.CALL_EXPR:
        return True if callee_of(c)[1] in SETJMPS else None
    return None


def buffer_root(b: GraphBuilder, cond) -> str | None:
    """The local pointer variable the setjmp's buffer is reached through (`png` of
    `setjmp (png_jmpbuf (png))`); None for a buffer in a struct of the function's own
    (libjpeg's `setjmp (jerr.setjmp_buffer)`)."""
    stack = [cond]
    while stack:
        e = stack.pop()
        if kind_of(e) == K.DECL_REF_EXPR and has_pointer_type(e):
            var = b.var(referenced(e))
            if var is not None:
                return var
        stack.extend(reversed(children_of(e)))
    return None


def context_ends(b: GraphBuilder, call, args: list) -> bool:
    """Whether `call` is handed `&p`, p the setjmp buffer's pointer: p's context ends there, and
    the call does not jump back. As a statement of the setjmp's own block, every later path has
    passed it: no later call jumps back (the target is dropped)."""
    if b.longjmp_context is None:
        return False
    root, block = b.longjmp_context
    if not any(address_of_local(b, a) == root for a in args):
        return False
    statement = strip(b.statement) if b.statement is not None else None
    if block is not None and b.blocks and b.blocks[-1] is block and statement is not None \
            and cursor_key(statement) == cursor_key(strip(call)):
        b.longjmp_target = None
        b.longjmp_context = None
    return True


def _is_zero(c) -> bool:
    c = strip(c)
    return kind_of(c) == K.INTEGER_LITERAL and constant(c) == 0


def may_longjmp(b: GraphBuilder, decl, defined: bool, summary, name: str) -> bool:
    """A call that may longjmp to the function's setjmp: a library call refcheck knows nothing of."""
    if not name or defined or summary.says_something or summary.role is not None:
        return False
    return not _never_jumps(b, decl)


def _never_jumps(b: GraphBuilder, decl) -> bool:
    """Declared by the project in a header of its own (its body in another unit: the project's,
    as the unit's own functions are), or in the preset's library headers (GLib never longjmps).
    A prototype in the unit's own file (an extern of a library) and a system header's
    declaration (libpng, libjpeg) stay library calls."""
    f = decl.location.file if decl is not None else None
    if f is None:
        return False
    if in_system_header(decl.location):
        return (bool(b.conv.library_header) and in_library(f.name, b.conv.library_header)) or _libc(decl, f.name)
    own = b.fn.location.file
    return own is not None and f.name != own.name


def _libc(decl, path: str) -> bool:
    """A C library function (memcpy, strlen, malloc) that no callback or signal handler of the
    program's runs inside."""
    if os.path.basename(path) not in _LIBC_HEADERS or spelling(decl) in _SIGNALS:
        return False
    return not any(is_function_pointer(a.type) for a in decl.get_arguments())


def longjmp_split(b: GraphBuilder, loc: Location, name: str) -> None:
    """Before the call: an edge to the setjmp's second return (the call longjmped) and one on."""
    n = b.node("branch", loc, cond=ir.Opaque(f"{name} longjmps"), text=f"{name} longjmps to the setjmp")
    on = b.node("block")
    b.start(n)
    b.edge(n, b.longjmp_target, True)
    b.edge(n, on, False)
    b.cur = on
