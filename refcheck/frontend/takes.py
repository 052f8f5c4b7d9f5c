"""A `_take` method's taken argument: `tmpl_scope_take (self, name, symbol)` keeps its last
argument in the instance it is a method of, not the instance (the name patterns' consume of the
first tracked argument, right for a constructor's `g_bytes_new_take (data, size)`)."""

from __future__ import annotations

import re
from dataclasses import replace

import clang.cindex as ci

from refcheck.conventions.summary import Effect, Source, Summary
from refcheck.frontend.argtypes import parameter_types

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _type_name(t) -> str:
    """The struct or typedef a parameter points to, pointers and qualifiers stripped."""
    while t.kind == ci.TypeKind.POINTER:
        t = t.get_pointee()
    return re.sub(r"\b(?:const|volatile|struct)\b", "", t.spelling).strip().lstrip("_")


def method_taken(name: str, decl, args: list) -> tuple[int, ...] | None:
    """The positions a `<type>_take (instance, ..., value)` method keeps: its last pointer argument
    where its first parameter points to `<Type>` (TmplScope, DexPosixAioContext, GtkStringList,
    GstStructure **: GLib's naming of a type's methods; none where it hands a pointer back), else
    every later writable data pointer of a `void` method on a container its name does not spell
    (gnome-keyring's `gkm_secret_fields_take (GHashTable *fields, gchar *name, gchar *value)`);
    None for any other callee (a constructor's `record_block_take (value, length)`)."""
    if not name.endswith("_take") or len(args) < 2 or decl is None:
        return None
    types = parameter_types(decl, args)
    if not types or types[0].kind != ci.TypeKind.POINTER:
        return None
    owner = _CAMEL.sub("_", _type_name(types[0])).lower()
    if not owner or name[:-len("_take")] != owner:
        return _container_taken(name, decl, types)
    try:
        # at-spi2-core's `GObject *spi_leasing_take (SpiLeasing *leasing, GObject *object)` leases
        # the object with a reference of its own and returns it: the caller's stays the caller's.
        if decl.result_type.get_canonical().kind == ci.TypeKind.POINTER:
            return ()
    except Exception:  # a declaration libclang cannot type
        return None
    pointers = [i for i in range(1, len(args)) if types[i].get_canonical().kind == ci.TypeKind.POINTER]
    return (pointers[-1],) if pointers else None


def _container_taken(name: str, decl, types: list) -> tuple[int, ...] | None:
    """A `void` `_take` whose first parameter is a writable container of another name and which has
    writable data pointers after it: those it keeps, the container lent (`gkm_secret_fields_take
    (fields, name, value)` puts both strings into the fields' GHashTable). A constructor
    (`_new_take`), a function-pointer argument (g_ptr_array_new_take's free function) or a
    `const` pointee (a key only read) is no value kept."""
    if "_new" in name or not _writable_data(types[0]):
        return None
    try:
        if decl.result_type.get_canonical().kind != ci.TypeKind.VOID:
            return None
    except Exception:  # a declaration libclang cannot type
        return None
    kept = tuple(i for i in range(1, len(types)) if _writable_data(types[i]))
    return kept or None


def _writable_data(t) -> bool:
    """A pointer to non-const data (not to a function)."""
    t = t.get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return False
    pointee = t.get_pointee()
    return pointee.kind not in (ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO) \
        and not pointee.is_const_qualified()


def method_take(record: Summary, name: str, decl, args: list) -> Summary:
    """A name's consume of the first argument (`_take$`), for a type's method: a sink of what it
    keeps in the instance, which stays lent (the value is the instance's now, alive while it is);
    nothing taken where the method hands a pointer back. A `*_take_*` setter's last argument
    (the name patterns' sink at -1) is a value after the instance: a method called with the
    instance alone (its one parameter points to the type its name starts with) takes something
    out of it (gnome-keyring's `gkd_secret_prompt_take_secret (GkdSecretPrompt *self)` returns
    the secret the prompt stashed) and keeps nothing; a module's function taking its one
    argument (`gkm_mock_module_take_object (GArray *attrs)`) still keeps it."""
    if record.source is Source.CONVENTIONS and len(args) == 1 and (-1, Effect.SINK) in record.arguments \
            and _instance_alone(name, decl, args):
        return replace(record, arguments=tuple(a for a in record.arguments if a != (-1, Effect.SINK)))
    if record.source is not Source.CONVENTIONS or record.role != "consume":
        return record
    taken = method_taken(name, decl, args)
    if taken is None:
        return record
    rest = tuple(a for a in record.arguments if a[1] is not Effect.CONSUME)
    return replace(record, arguments=rest + tuple((i, Effect.SINK) for i in taken))


def _instance_alone(name: str, decl, args: list) -> bool:
    """`<type>_take_<what> (instance)`: the one parameter points to `<Type>`, the name's prefix
    before `_take_`."""
    types = parameter_types(decl, args) if decl is not None else []
    if "_take_" not in name or not types or types[0].kind != ci.TypeKind.POINTER:
        return False
    owner = _CAMEL.sub("_", _type_name(types[0])).lower()
    return bool(owner) and name.startswith(owner + "_take_")
