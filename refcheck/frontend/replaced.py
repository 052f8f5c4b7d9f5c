"""Setters that release a field's old value and store a parameter there (GLib's clear-then-store).

`g_clear_object (&priv->connection); priv->connection = connection;` (libsoup's
`soup_connection_set_connection`): the function gives up the reference the field held, so the
field owns its value, and the parameter stored in its place is handed to it, not lent (the glib
preset lends a parameter only stored into memory, `fixtures/glib_setters_lend.c`). The release is
read off the spelled tokens, since GLib's `g_clear_object`/`g_clear_pointer` are macros whose
expansion hides the field behind a `_pp` temporary: a releaser's or `g_clear_*`'s call on `&L` or
`L`, written before the store `L = p;` in the same body, L the same member expression text.
The release may be a helper of the unit clearing the slot around L (msitools'
`_libmsi_free_field (&rec->fields[i]); rec->fields[i].u.stream = stream;`, whose body unrefs
`field->u.stream`): its call on `&X` (`X`) releases `X.m` (`X->m`) for each member path `m` of its
parameter its own body releases so (`fixtures/glib_clear_slot_helper.c`). So may the container's own
free function, a member of GDestroyNotify's shape (libsoup's path map: `map->free_func
(mappings[match].data); mappings[match].data = data;`).
"""

from __future__ import annotations

import re

import clang.cindex as ci

from refcheck.frontend.argtypes import destroy_notify
from refcheck.frontend.binding import cursor_key, definition, of_kinds, referenced
from refcheck.frontend.clangutil import K, binop, has_pointer_type, kind_of, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.unit import in_system_header


_ASSIGNS = frozenset((K.BINARY_OPERATOR.value,))
_CALLS = frozenset((K.CALL_EXPR.value,))
# A cast around a released member, `G_OBJECT (f->u.stream)` or `(GObject *) f->u.stream`: the
# member is what is released.
_CAST_MACRO = re.compile(r"^[A-Za-z_]\w*\((.*)\)$")
_CAST = re.compile(r"^\((?:const)?[A-Za-z_]\w*\**\)(.*)$")
_PATH = re.compile(r"^[A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*)+$")


def replacing_parameters(fn, conv) -> list:
    """The pointer parameters (their declarations) stored plainly into a field `L` (`L = p;`)
    after the body released the value `L` held: each such store of p must follow a release."""
    stores: dict = {}  # parameter key -> [(offset, field text)]
    decls: dict = {}
    for c in of_kinds(fn, _ASSIGNS):
        if binop(c) != "=":
            continue
        lhs, rhs = (strip(x) for x in children_of(c))
        if kind_of(rhs) != K.DECL_REF_EXPR or not has_pointer_type(rhs):
            continue
        ref = referenced(rhs)
        if ref is None or kind_of(ref) != K.PARM_DECL:
            continue
        if _local_member(lhs):
            continue  # `mapping.data = data;` into a struct of the frame: the summary follows the copy
        text = _text(lhs) if kind_of(lhs) == K.MEMBER_REF_EXPR else None
        key = (ref.spelling, ref.location.offset)
        decls[key] = ref
        stores.setdefault(key, []).append((c.extent.start.offset, text))
    if not stores:
        return []
    released = _released(fn, conv) + _notified(fn)
    if not all(_follows(where, released) for where in stores.values()):
        released += _cleared_by_helpers(fn, conv)  # only where needed: it reads other bodies
    return [decls[key] for key, where in stores.items() if _follows(where, released)]


def _follows(where: list, released: list) -> bool:
    """Whether each store `L = p` (offset, text of L) comes after a release of L."""
    return all(text is not None and any(t == text and at < off for at, t in released) for off, text in where)


def _text(c) -> str:
    return "".join(t.spelling for t in c.get_tokens())


def _released(fn, conv) -> list[tuple[int, str]]:
    """(offset, text of L) for each spelled `f (&L ...)` / `f (L)` with f a releaser or a
    `g_clear_*` macro: the first argument's tokens up to its comma or closing parenthesis."""
    toks = list(fn.get_tokens())
    out = []
    for i, t in enumerate(toks[:-2]):
        name = t.spelling
        if toks[i + 1].spelling != "(" or not (name.startswith("g_clear_") or _releases(conv, name)):
            continue
        depth, j, arg = 0, i + 2, []
        while j < len(toks):
            s = toks[j].spelling
            if s in ("(", "["):
                depth += 1
            elif s in (")", "]"):
                if depth == 0:
                    break
                depth -= 1
            elif s == "," and depth == 0:
                break
            arg.append(s)
            j += 1
        text = "".join(arg[1:] if arg[:1] == ["&"] else arg)
        if "->" in text or "." in text:
            out.append((t.extent.start.offset, text))
    return out


def _local_member(lhs) -> bool:
    """`s.m` for s a struct variable of the frame (not a pointer): memory the caller cannot reach."""
    if kind_of(lhs) != K.MEMBER_REF_EXPR:
        return False
    base = next(iter(children_of(lhs)), None)
    base = strip(base) if base is not None else None
    ref = referenced(base) if base is not None and kind_of(base) == K.DECL_REF_EXPR else None
    return ref is not None and kind_of(ref) == K.VAR_DECL and ref.type.get_canonical().kind == ci.TypeKind.RECORD


def _notified(fn) -> list[tuple[int, str]]:
    """(offset, text of L) for each call `o->free_func (L)` through a member of GDestroyNotify's
    shape (`void (*) (T *)`): the container's own free function called on the value its slot
    held (libsoup's `soup_path_map_add`: `map->free_func (mappings[match].data);
    mappings[match].data = data;`, `fixtures/glib_notify_then_store.c`)."""
    out = []
    for call in of_kinds(fn, _CALLS):
        kids = children_of(call)
        callee = strip(kids[0]) if kids else None
        if callee is None or kind_of(callee) != K.MEMBER_REF_EXPR or len(kids) != 2:
            continue
        t = callee.type.get_canonical()
        if t.kind != ci.TypeKind.POINTER or not destroy_notify(t.get_pointee().get_canonical()):
            continue
        text = _text(kids[1])
        text = text[1:] if text.startswith("&") else text
        if "->" in text or "." in text:
            out.append((call.extent.start.offset, text))
    return out


def _cleared_by_helpers(fn, conv) -> list[tuple[int, str]]:
    """(offset, text of `X.m` / `X->m`) for each call `h (&X)` / `h (X)` of a function of the unit
    whose body releases `P->m`, P its parameter at that position (module docstring)."""
    out, seen = [], {}
    for call in of_kinds(fn, _CALLS):
        callee = referenced(call)
        body = definition(callee)
        if body is None or body == fn or in_system_header(body.location):
            continue
        key = cursor_key(body)  # not `Cursor.hash`: 32 bits that distinct bodies can share
        if key not in seen:
            seen[key] = _member_releases(body, conv)
        freed = seen[key]
        if not freed:
            continue
        for param, arg in zip(body.get_arguments(), call.get_arguments()):
            text = _text(arg)
            base, sep = (text[1:], ".") if text.startswith("&") else (text, "->")
            out.extend((call.extent.start.offset, base + sep + m) for m in freed.get(param.spelling, ()))
    return out


def _member_releases(body, conv) -> dict[str, set[str]]:
    """Parameter name -> the member paths `m` of it its body releases (`g_free (p->m)`)."""
    out: dict = {}
    for _, text in _released(body, conv):
        for pattern in (_CAST_MACRO, _CAST):
            m = pattern.match(text)
            text = m.group(1) if m else text
        head, sep, rest = text.partition("->")
        if sep and _PATH.match(text):
            out.setdefault(head, set()).add(rest)
    return out


def _releases(conv, name: str) -> bool:
    return conv.classify(name) == "release"
