"""Elements a field's container holds a reference to (issue 32, glib33: libgweather's pending
requests): a parameter removed from a list kept in a field, then released, gives up the list's
reference, not its caller's.

`_gweather_info_request_done (info, message)` runs `info->requests_pending = g_slist_remove
(info->requests_pending, message); g_object_unref (message);`: the reference released is the one
the list held (`_gweather_info_begin_request` prepended the message with `g_object_ref`). Its
callers pass a borrowed message (`soup_session_get_async_result_message`); read as a release of
theirs, every callback was a borrowed reference handed to a call that keeps it (RC009). The
container's pointer goes with the release, so the reference it held is the one that ends: a
pointer the container kept without a reference would have dangled whenever its owner released
it. Only lists and queues whose removal leaves the element alone (a GPtrArray may free it
through its element notify, after which the release is the caller's own)."""

from __future__ import annotations

from refcheck.frontend.binding import cursor_key, of_kinds, referenced
from refcheck.frontend.clangutil import K, kind_of, strip
from refcheck.frontend.clangutil import kids as children_of

# Unlinks the element (argument 1) from the container (argument 0), dropping no reference.
_REMOVERS = frozenset(("g_list_remove", "g_slist_remove", "g_list_remove_all", "g_slist_remove_all",
                       "g_queue_remove", "g_queue_remove_all"))
_CALLS = frozenset((K.CALL_EXPR.value,))


def container_held(b, c, args: list) -> list[int]:
    """The positions of release `c`'s arguments that are parameters an earlier call of the body
    removed from a container kept in a field (module docstring)."""
    removed = _removed(b)
    at = c.extent.start.offset
    return [i for i, a in enumerate(args)
            if kind_of(x := strip(a)) == K.DECL_REF_EXPR and removed.get(cursor_key(referenced(x)), at) < at]


def _removed(b) -> dict:
    """Parameter -> the offset of the body's first removal of it from a field's container."""
    if b.held_elements is None:
        found: dict = {}
        for call in of_kinds(b.fn, _CALLS):
            if call.spelling not in _REMOVERS:
                continue
            args = list(call.get_arguments())
            if len(args) != 2 or not _field(args[0]):
                continue
            x = strip(args[1])
            p = referenced(x) if kind_of(x) == K.DECL_REF_EXPR else None
            if p is not None and kind_of(p) == K.PARM_DECL:
                at = call.extent.start.offset
                found[cursor_key(p)] = min(found.get(cursor_key(p), at), at)
        b.held_elements = found
    return b.held_elements


def _field(a) -> bool:
    """`r->f` or `&r->f`: a container some record owns, not a local list of the body's own."""
    x = strip(a)
    if kind_of(x) == K.UNARY_OPERATOR:
        kids = list(children_of(x))
        x = strip(kids[0]) if len(kids) == 1 else x
    return kind_of(x) == K.MEMBER_REF_EXPR
