"""Calls that are exits because of the macro that wrote them (the conventions' `exit_macros`).

GLib's `g_return_val_if_reached (val)` expands to `g_log (G_LOG_DOMAIN, G_LOG_LEVEL_CRITICAL,
"file %s: line %d (%s): should not be reached", ...); return (val);`: a programmer error by
GLib's documentation ("See g_return_if_fail() for guidance"), whose path the glib preset does not
check, as it does not check g_return_if_fail's (its g_return_if_fail_warning is an `exit`). The
callee alone cannot say so (a g_critical is the same g_log call and a real error path, reported),
so the macro's name is read at the call's expansion: a call a macro writes has the extent of
that macro's use (libclang), whose text starts with the macro's name (issue 32, libsecret's
egg_dh_gen_pair and response_open_session_aes).
"""

from __future__ import annotations

import re

from refcheck.frontend.binding import extent_places
from refcheck.frontend.clangutil import name_of_file, read_source

_NAME = re.compile(rb"[A-Za-z_]\w*")


def macro_role(b, c, name: str) -> str | None:
    """"exit" where call `c` to `name` is written by a macro that makes it one, else None."""
    pattern = b.conv.exit_macro(name)
    if pattern is None:
        return None
    start, _ = extent_places(c)
    path = name_of_file(start[0]) if start[0] else ""
    m = _NAME.match(read_source(path), start[3]) if path else None
    return "exit" if m is not None and re.search(pattern, m.group().decode()) is not None else None
