"""Fields a record's destroy notify does not free (issue 32, colord's colorhug): a parameter
stored into such a field of a local record is lent, not handed over.

`ch_device_write_command_async (device, cmd, in, in_len, buffer_out, out_len, ...)` fills a task
data record (`tdata->buffer_out = buffer_out; tdata->buffer = g_new0 (...)`) and hands it to
`g_task_set_task_data (task, tdata, (GDestroyNotify) ch_device_task_data_free)`. The record's
destructor says what it owns: `g_free (tdata->buffer); g_free (tdata->buffer_orig); g_free
(tdata);`, never `buffer_out`, the caller's out buffer, lent for the call. Read so only where the
notify's body is in the unit and every use of its parameter is a field of it or a release of the
record itself (a helper handed the whole record may free any field); a field it names is owned
as before (the store hands the parameter over)."""

from __future__ import annotations

from refcheck.conventions.summary import Effect
from refcheck.frontend.argtypes import named_function, notify_after
from refcheck.frontend.binding import cursor_key, definition, of_kinds, referenced
from refcheck.frontend.clangutil import K, binop, kind_of, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.parents import body_sites
from refcheck.frontend.perunit import PerUnit

# (cursor_key of a notify, field name) -> whether its body may free that field.
_SEEN: PerUnit[dict] = PerUnit()  # per unit: keys hold the unit's pointers

# The kinds a body is scanned for (`binding.of_kinds`: one visit, compiled where built).
_RETURNS = frozenset((K.RETURN_STMT.value,))
_CALLS = frozenset((K.CALL_EXPR.value,))
_LOCALS = frozenset((K.VAR_DECL.value,))


def lent_field(b, target, rhs) -> bool:
    """`r->f = p`: p a parameter, r a local record the function hands (and never returns or
    stores) as data beside a destroy notify whose body never frees field f (module docstring)."""
    value, member = strip(rhs), strip(target)
    if kind_of(value) != K.DECL_REF_EXPR or kind_of(referenced(value)) != K.PARM_DECL:
        return False
    if kind_of(member) != K.MEMBER_REF_EXPR:
        return False
    base = strip(next(iter(children_of(member)), member))
    record = referenced(base) if kind_of(base) == K.DECL_REF_EXPR else None
    if record is None or kind_of(record) != K.VAR_DECL:
        return False
    notifies = _notifies_of(b, record)
    return bool(notifies) and not any(_may_free(b, fn, member.spelling) for fn in notifies)


def _names(e, record) -> bool:
    c = strip(e)
    return kind_of(c) == K.DECL_REF_EXPR and referenced(c) == record


def _notifies_of(b, record) -> list:
    """The destroy notifies the record is handed beside; [] where it also leaves otherwise
    (returned, stored: another owner whose destructor is not read)."""
    found = []
    for c in body_sites(b):
        if kind_of(c) == K.CALL_EXPR:
            args = list(c.get_arguments())
            for i, a in enumerate(args):
                if _names(a, record):
                    fn = notify_after(b.callee_of(c)[0], args, i)
                    if fn is not None:
                        # The callbacks handed beside it read the record too: one that names
                        # the field may hand it on (grilo's `get_url_cb` passes `c->result`).
                        found.extend(f for a in args if (f := named_function(a)) is not None)
        elif binop(c) == "=":
            kids = children_of(c)
            if len(kids) == 2 and _names(kids[1], record):
                return []
    if any(_names(k, record) for r in of_kinds(b.fn, _RETURNS) for k in children_of(r)):
        return []
    return found


def _may_free(b, fn, field: str) -> bool:
    key = (cursor_key(fn), field)
    seen = _SEEN.of(fn.translation_unit, dict)
    if key not in seen:
        d = definition(fn)
        seen[key] = True if d is None else _frees_field(b, d, field)
    return seen[key]


def _frees_field(b, d, field: str) -> bool:
    """Whether notify `d` may free `field` of its record: it names the field, or hands the
    record (its first parameter, or a local initialised from it) to anything but a release."""
    params = [k for k in children_of(d) if kind_of(k) == K.PARM_DECL]
    if not params:
        return True
    holders = {params[0]}
    calls = of_kinds(d, _CALLS)
    for k in of_kinds(d, _LOCALS):
        if any(_is_one(x, holders) for x in children_of(k)):
            holders.add(k)
    for parent, k in edges(d):
        if kind_of(k) == K.MEMBER_REF_EXPR and k.spelling == field:
            return True
        if kind_of(k) != K.DECL_REF_EXPR or referenced(k) not in holders:
            continue
        if kind_of(parent) in (K.MEMBER_REF_EXPR, K.VAR_DECL):
            continue  # `tdata->buffer`, `Data *data = user_data;`
        if kind_of(parent) == K.BINARY_OPERATOR and binop(parent) in ("==", "!="):
            continue  # a test reads it (g_slice_free's `(type *) 0 == (mem)` type check)
        if not _released_by(b, calls, k):
            return True
    return False


def _is_one(x, holders) -> bool:
    c = strip(x)
    return kind_of(c) == K.DECL_REF_EXPR and referenced(c) in holders


def _released_by(b, calls: list, ref) -> bool:
    """Whether the reference `ref` is an argument a call releases (`g_free (tdata)`,
    `g_slice_free (T, data)`): the record itself goes, its fields with it unfreed."""
    for call in calls:
        args = list(call.get_arguments())
        hit = [i for i, a in enumerate(args) if strip(a) == ref]
        if hit:
            summary = b.summary_of(*b.callee_of(call))
            effects = summary.effects(len(args))
            # `g_free (tdata)`: a releaser's record names its argument among the tracked ones.
            return summary.role == "release" or all(effects.get(i) is Effect.RELEASE for i in hit)
    return False


# Casts and parentheses between a reference and what uses it.
_WRAPPERS = frozenset({K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR})


def edges(c, user=None):
    """(user, cursor) pairs: the nearest enclosing cursor that is no cast or parentheses."""
    user = c if user is None or kind_of(c) not in _WRAPPERS else user
    for k in children_of(c):
        yield user, k
        yield from edges(k, user)
