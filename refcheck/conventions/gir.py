"""Ownership records from GObject-Introspection data (.gir XML), for the `glib` preset.

A .gir file states, for every C function of a GObject library, who owns what crosses the call:
`transfer-ownership="full"` on the return value means the caller owns the result (OWNED),
`"none"` that it does not (BORROWED: accessors, and floating references such as
g_variant_new's, which the call they are passed to sinks); a parameter with transfer full is
taken over by the callee (CONSUME); an out parameter with transfer full receives a fresh owned
reference (ACQUIRE_OUT); the user data of a call that also takes a destroy notify is kept until
the notify runs, or that an async callback receives (SINK: `g_signal_connect_data(o, s, cb,
g_object_ref(x), unref, 0)`, `g_file_read_async(f, prio, NULL, cb, g_object_ref(self))`). Argument
positions count the C arguments: the `instance-parameter` of a method is argument 0. A function
documented as "Like X()" sinks floating GVariants where X does, for the parameters of the same name.

Records are plain tables in the shape of `[tool.refcheck.summaries.NAME]` (docs/semantics.md),
so the committed JSON (refcheck/data/glib_gir.json, written by tools/glib_gir.py) and a
project's own .gir files (config key `gir`) are read the same way. libclang-free.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from importlib import resources

from refcheck.conventions.girdefaults import corrected, linked_records, record_types

CORE = "{http://www.gtk.org/introspection/core/1.0}"
C_NS = "{http://www.gtk.org/introspection/c/1.0}"
CALLABLES = ("function", "method", "constructor")
NOTIFY_TYPES = {"GLib.DestroyNotify", "DestroyNotify", "GObject.ClosureNotify", "ClosureNotify"}
RETURNS = ("owned", "borrowed", "reallocated", "argument", "unknown")
FLOATING_TYPES = {"GParamSpec*"}
EFFECTS = ("consume", "sink", "store", "sink-floating", "acquire-out", "release", "retain", "borrow")
Record = dict  # {"returns": "owned", "arguments": {"1": "sink"}}
# The one conditional effect GIR gives: an out parameter a throwing gboolean function fills on TRUE.
_ON_TRUE = {"effect": "acquire-out", "when": "nonzero"}


class GirError(ValueError):
    """A .gir file or a record table that cannot be read."""


def _is_pointer(holder) -> bool:
    """The value's C type is a pointer (strings, arrays and objects; not gboolean, not an enum)."""
    for child in holder:
        if child.tag in (CORE + "type", CORE + "array"):
            ctype = child.get(C_NS + "type", "")
            return "*" in ctype or ctype in ("gpointer", "gconstpointer") or child.tag == CORE + "array"
    return False


def _holds_pointer(holder) -> bool:
    """An out parameter's C type points to a pointer (`gchar **contents`, `GError **error`), so
    that `*arg` can receive a reference; `gint *argc` and `gsize *length` receive a number."""
    for child in holder:
        if child.tag in (CORE + "type", CORE + "array"):
            ctype = child.get(C_NS + "type", "")
            # An untyped `gpointer *` (g_hash_table_iter_next's key and value) says no more than
            # an untyped result does: the container's element, owned or not. A `const gchar **`
            # receives a `const` pointer, which no one frees without casting the const away: a
            # place in memory someone else owns, GLib's `const` convention (g_variant_type_string_scan's
            # endptr, a pointer into its argument, which the scanner's default calls transfer full).
            return ctype.count("*") >= 2 and not (ctype.startswith("const ") and ctype.count("*") == 2)
    return False


# The mark of a constructor's `transfer none` result in a record of parse_gir (not a record key:
# glibpreset.gir_records takes it out).
UNOWNED_CONSTRUCTOR = "unowned-constructor"


def record_of(callable_) -> Record | None:
    """The record of one GIR callable element (a .gir file's, or one built from a project's
    gtk-doc comment: conventions/gtkdoc.py), None where it says nothing."""
    return _record(callable_)


def _result(callable_, ret) -> Record:
    """What the return value's annotation says of the result (an empty record: nothing)."""
    record: Record = {}
    if ret is not None and _is_pointer(ret) and ret.get("transfer-ownership") is None:
        # A function GIR cannot introspect (g_strsplit, g_array_new, g_option_context_new) has
        # no transfer annotation at all: that says nothing, not "none". Its documentation may.
        if _NEWLY_ALLOCATED.search(_doc(ret)):
            record["returns"] = "owned"
    elif ret is not None and _is_pointer(ret):
        full = ret.get("transfer-ownership") in ("full", "container")
        if _floating_variant(ret):
            # GLib: "All functions with names starting with g_variant_new_ return floating
            # references": the creator's until a call sinks it (g_variant_builder_add_value),
            # or g_variant_unref frees it. Owned, consumed by the calls documented to sink it.
            record["returns"] = "owned"
        elif full and _floating(ret):
            # GObject: "GParamSpec's are floating initially": the class that installs one sinks
            # it (g_object_class_install_property), and g_param_spec_unref frees one never sunk
            # (bolt's tests' `g_autoptr(GParamSpec) spec = g_param_spec_int (...)`). Neither a
            # lent object nor the caller's plain reference, as GInitiallyUnowned's constructors
            # below: unknown, not tracked (borrowed made every such unref RC010).
            record["returns"] = "unknown"
        elif full:
            record["returns"] = "owned"
        elif not full and callable_.tag == CORE + "constructor":
            # A constructor's `transfer none` is a floating reference (GTK 3's widgets, which
            # GInitiallyUnowned makes floating: sunk by the container they are added to) or one
            # the library keeps (a toplevel GtkWindow, released by gtk_widget_destroy): neither
            # a lent object nor the caller's plain reference. Unknown (issue 32, glib25), marked
            # so that a `*_new` name does not make it owned again (glibpreset.gir_records).
            record["returns"] = "unknown"
            record[UNOWNED_CONSTRUCTOR] = True
        elif full or not _opaque(ret):
            record["returns"] = "borrowed"
        else:
            # An unannotated gpointer (g_malloc's, g_queue_pop_head's, g_hash_table_lookup's is
            # "none") says nothing: the element a container gives back may be its caller's to
            # free or not. Unknown, so neither a release of it nor a hand-over is misjudged.
            record["returns"] = "unknown"
    return record


# A result documented as one of the arguments: "Returns: @string" (g_string_append and its kin,
# g_strchomp), "the same pointer passed in as @string" (g_strreverse), "the #GValueArray passed
# in as @value_array" (g_value_array_append: the array is grown in place, its struct stays).
# GIR's transfer says "none" or "full" of what is the argument itself (issue 32, glib33).
_RETURNS_ARGUMENT = re.compile(r"^(?:the (?:same )?(?:pointer |#\w+ )?(?:passed in as )?)?@(\w+)\.?$", re.I)
# A copy kept inside another object's memory: "a pointer to the copy of @string within the
# #GStringChunk" (g_string_chunk_insert*, which GIR calls transfer full): the chunk frees it.
_INSIDE_OTHER = re.compile(r"\bwithin the #\w+\s*$|\ba pointer into\b", re.I)


def _documented_result(callable_, ret) -> Record:
    """What the return value's documentation says over its transfer annotation."""
    if ret is None or not _is_pointer(ret):
        return {}
    text = " ".join(_doc(ret).split())
    match = _RETURNS_ARGUMENT.match(text)
    if match:
        params = callable_.find(CORE + "parameters")
        names = [] if params is None else [p.get("name") for p in params
                                            if p.tag in (CORE + "instance-parameter", CORE + "parameter")]
        if match.group(1) in names:
            return {"returns": "argument", "returned": names.index(match.group(1))}
    if ret.get("transfer-ownership") == "full" and _INSIDE_OTHER.search(text):
        return {"returns": "borrowed"}
    return {}


def _record(callable_) -> Record | None:
    record: Record = {}
    ret = callable_.find(CORE + "return-value")
    record.update(_result(callable_, ret))
    record.update(_documented_result(callable_, ret))
    params = callable_.find(CORE + "parameters")
    arguments: dict[str, str] = {}
    if params is not None:
        shift = 1 if params.find(CORE + "instance-parameter") is not None else 0
        plain = params.findall(CORE + "parameter")
        # User data outlives the call when a destroy notify frees it, or when an async callback,
        # called once, receives it (the GIO pattern: the callback releases what it was given).
        notify = any(_type_name(p) in NOTIFY_TYPES or p.get("destroy") or p.get("scope") == "async"
                     for p in plain)
        # A function that throws fills its out parameters only when its result says success
        # (g_file_get_contents: TRUE; g_socket_receive_message: a gssize >= 0; a call returning a
        # GVariant *: non-NULL): on failure `*contents` is untouched. A gboolean one fills them
        # on TRUE: a conditional acquisition on a nonzero result (issue 32, glib23: gnome-autoar's
        # and geocode-glib's fixed leaks of g_file_get_contents' `contents`); other results are
        # not modelled. One documented to fill them "even if the function returns FALSE"
        # (g_regex_match_full's match_info) fills them always. A void one has no result to test:
        # it fills them (or sets the error) always.
        conditional = callable_.get("throws") == "1" and ret is not None and _c_type(ret) not in ("", "void")
        # A gboolean one that does not throw says whether it found or made what it fills (gck's
        # `gck_attributes_find_string (attrs, type, &value)`: "Whether a value was found or
        # not"): filled on TRUE too, nothing of the caller's to free on FALSE (issue 32, glib46).
        on_true = _c_type(ret) == "gboolean" if ret is not None else False
        conditional = conditional or on_true
        if on_true and _EVEN_IF_FALSE.search(_doc(callable_)):
            conditional = on_true = False
        for i, p in enumerate(plain):
            position = str(i + shift)
            out = p.get("direction") in ("out", "inout")
            full = p.get("transfer-ownership") == "full"
            if p.find(CORE + "varargs") is not None:
                if full:  # `@...: (transfer full)`: every variadic argument is taken over
                    record["variadic"] = {"from": i + shift, "effect": "consume"}
                continue
            # An inout array (g_option_context_parse's argv) is the caller's own, rewritten in place.
            if (p.get("direction") == "out" and full and not p.get("caller-allocates") == "1"
                    and _holds_pointer(p) and (on_true or not conditional)):
                arguments[position] = dict(_ON_TRUE) if on_true else "acquire-out"
            elif out:
                pass  # a number written back, or the caller's own buffer filled in
            elif (full or p.get("transfer-ownership") == "container") and _is_pointer(p):
                # `(transfer container)` on an argument: the callee takes the container, and frees
                # it, its elements moved (g_ptr_array_extend_and_steal's second array: "@array is
                # then freed"); the caller's reference to it is gone either way.
                arguments[position] = "consume"
            if notify and p.get("closure") is not None:  # a callback's user data
                # The attribute links the callback and its data either way round
                # (g_idle_add_full: on the function; g_signal_connect_data: on the data).
                for j in (i, int(p.get("closure"))):
                    if 0 <= j < len(plain) and _type_name(plain[j]) == "gpointer":
                        arguments[str(j + shift)] = "sink"
            # Data followed by the notify that frees it, with no closure attribute to link them
            # (g_task_set_task_data(task, data, destroy), g_object_set_data_full(o, key, data, destroy)).
            # Or the notify's own data right after it (g_variant_new_from_data(..., notify, user_data)).
            if _type_name(p) == "gpointer" and (_notified(plain[i + 1:])
                                                 or i > 0 and _type_name(plain[i - 1]) in NOTIFY_TYPES):
                arguments[position] = "sink"
    for position in _sinks_floating(callable_, params):
        arguments.setdefault(position, "sink-floating")
    if arguments:
        record["arguments"] = dict(sorted(arguments.items(), key=lambda kv: int(kv[0])))
    return record or None


def _floating(ret) -> bool:
    """A floating reference: GIR marks g_param_spec_int's result full, but the class that installs
    it sinks it (g_object_class_install_property). Unknown: not tracked."""
    t = ret.find(CORE + "type")
    return t is not None and t.get(C_NS + "type", "") in FLOATING_TYPES


# What GLib's documentation says of a result its caller must free, where GIR has no annotation.
_NEWLY_ALLOCATED = re.compile(r"newly[- ]allocated|(?:should|must) be freed|use g_\w+\(\) to free", re.I)
# A documentation sentence saying a floating GVariant argument is taken over: "If @value is
# floating, it is consumed", "the @builder instance takes ownership of @value", "the new instance
# takes ownership of them as if via g_variant_ref_sink()".
_SENTENCE = re.compile(r"[^.]*\bfloating\b[^.]*\.")
_SINKS = re.compile(r"consume|takes ownership|assumes ownership|ref_sink", re.I)
_NOT_FLOATING = re.compile(r"non-floating|never floating|not be floating", re.I)


def _doc(holder) -> str:
    d = holder.find(CORE + "doc")
    return " ".join((d.text or "").split()) if d is not None else ""


def _floating_variant(ret) -> bool:
    """A GVariant result documented as floating (g_variant_new_int32, g_variant_builder_end)."""
    text = _doc(ret)
    # A `(transfer none)` GVariant "newly created" is floating too (json_gvariant_deserialize_data).
    new = ret.get("transfer-ownership") == "none" and re.search(r"newly[- ]created", text, re.I)
    return (_c_type(ret) == "GVariant*" and ("floating" in text.lower() or new)
            and not _NOT_FLOATING.search(text))


def _sinks_floating(callable_, params) -> list[str]:
    """The GVariant parameters a function is documented to sink when floating (a `store`: an
    owned floating reference is handed over, a borrowed one is only read). Sentences naming
    `@param` pick that parameter; the others, every single GVariant parameter."""
    doc = _doc(callable_)
    # _SENTENCE scans to the next full stop from every position: on a long doc without the
    # word (most of them) that is quadratic, 0.3 s of reading Soup-3.0.gir (issue 32, glib24).
    if params is None or "floating" not in doc:
        return []
    sentences = [m.group(0) for m in _SENTENCE.finditer(doc) if _SINKS.search(m.group(0))]
    if not sentences:
        return []
    variants = _variant_parameters(params)
    named = [pos for pos, name in variants if any(f"@{name}" in s for s in sentences)]
    return named or [pos for pos, _ in variants]


def _variant_parameters(params) -> list[tuple[str, str]]:
    """(position, name) of the borrowed GVariant input parameters."""
    shift = 1 if params.find(CORE + "instance-parameter") is not None else 0
    return [(str(i + shift), p.get("name")) for i, p in enumerate(params.findall(CORE + "parameter"))
            if _c_type(p) == "GVariant*" and p.get("transfer-ownership", "none") == "none"
            and p.get("direction") is None]


def _opaque(ret) -> bool:
    t = ret.find(CORE + "type")
    return t is not None and t.get(C_NS + "type", "") in ("gpointer", "gconstpointer", "void*")


def _notified(rest) -> bool:
    """The parameters after a data pointer reach its destroy notify, past callbacks only
    (g_test_add_data_func_full(path, data, func, data_free): no closure attribute there)."""
    for p in rest:
        if _type_name(p) in NOTIFY_TYPES:
            return True
        if p.get("scope") is None:
            return False
    return False


def _c_type(holder) -> str:
    t = holder.find(CORE + "type")
    return t.get(C_NS + "type", "") if t is not None else ""


def _type_name(p) -> str:
    t = p.find(CORE + "type")
    return t.get("name", "") if t is not None else ""


def parse_gir(path: str) -> dict[str, Record]:
    """Every C function of one .gir file with something to say: name -> record."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise GirError(f"{path}: cannot read GObject-Introspection data: {e}") from None
    out: dict[str, Record] = {}
    callables = {c.get(C_NS + "identifier"): c for tag in CALLABLES for c in root.iter(CORE + tag)
                 if c.get(C_NS + "identifier")}
    # g-ir-scanner's default `full` where the structure says the value is the argument's.
    linked, records = linked_records(root), record_types(root)
    owners = {m: rec for rec in root.iter(CORE + "record") for m in rec.findall(CORE + "method")}
    for name, c in callables.items():
        if c.get("introspectable") == "0" and c.get("shadowed-by"):
            continue
        record = corrected(c, _record(c), owners.get(c), linked, records)
        inherited = _like_floating(c, callables)
        if inherited:
            record = record or {}
            arguments = {**inherited, **record.get("arguments", {})}
            record["arguments"] = dict(sorted(arguments.items(), key=lambda kv: int(kv[0])))
        if record:
            out[name] = record
    return out


# g_regex_match_full: "even if the function returns %FALSE" the match_info is to be freed.
_EVEN_IF_FALSE = re.compile(r"even if the function returns %?FALSE")

# "Like g_dbus_connection_call() but also takes a #GUnixFDList object": the doc's first words.
_LIKE = re.compile(r"^Like #?(\w+)\(\)")


def _like_floating(callable_, callables) -> dict[str, str]:
    """The GVariant parameters a function documented as "Like X()" sinks because X sinks the
    parameter of the same name when floating, where its own doc says nothing of floating values
    (g_dbus_connection_call_with_unix_fd_list's `parameters`, as g_dbus_connection_call's)."""
    params = callable_.find(CORE + "parameters")
    if params is None or "floating" in _doc(callable_).lower():
        return {}
    sunk = _sunk_names(callable_, callables, ())
    return {pos: "sink-floating" for pos, name in _variant_parameters(params) if name in sunk}


def _sunk_names(callable_, callables, seen) -> set[str]:
    """Names of the parameters a function is documented to sink when floating, itself or through
    the chain of functions it is documented to be like (a cycle ends the chain)."""
    params = callable_.find(CORE + "parameters")
    if params is None:
        return set()
    own = set(_sinks_floating(callable_, params))
    names = {name for pos, name in _variant_parameters(params) if pos in own}
    m = _LIKE.match(_doc(callable_))
    if names or m is None or m.group(1) in seen or m.group(1) not in callables:
        return names
    return _sunk_names(callables[m.group(1)], callables, (*seen, m.group(1)))


def floating_results(path: str) -> list[str]:
    """The C functions of one .gir file whose result is a floating GVariant (g_variant_new_int32)."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise GirError(f"{path}: cannot read GObject-Introspection data: {e}") from None
    return sorted(c.get(C_NS + "identifier") for tag in CALLABLES for c in root.iter(CORE + tag)
                  if c.get(C_NS + "identifier") and (r := c.find(CORE + "return-value")) is not None
                  and _floating_variant(r))


def gir_version(path: str) -> str:
    """The namespace and version a .gir file describes, as `GLib-2.0`."""
    root = ET.parse(path).getroot()
    ns = root.find(CORE + "namespace")
    return f"{ns.get('name')}-{ns.get('version')}" if ns is not None else "?"


def check_record(name: str, record, where: str) -> Record:
    """A record table validated (clear errors, never a traceback)."""
    if not isinstance(record, dict):
        raise GirError(f"{where}: {name}: expected a table")
    unknown = set(record) - {"returns", "returned", "arguments", UNOWNED_CONSTRUCTOR}
    if unknown:
        raise GirError(f"{where}: {name}: unknown key {sorted(unknown)[0]!r}")
    if UNOWNED_CONSTRUCTOR in record and (record[UNOWNED_CONSTRUCTOR] is not True or record.get("returns") != "unknown"):
        raise GirError(f"{where}: {name}: {UNOWNED_CONSTRUCTOR} goes with returns = unknown only")
    if record.get("returns", "borrowed") not in RETURNS:
        raise GirError(f"{where}: {name}: returns must be one of {', '.join(RETURNS)}")
    for position, effect in record.get("arguments", {}).items():
        if not position.lstrip("-").isdigit() or not (effect in EFFECTS or effect == _ON_TRUE):
            raise GirError(f"{where}: {name}: bad argument {position!r} = {effect!r}")
    return record


def load_table(text: str, where: str) -> tuple[str, dict[str, Record], list[str]]:
    """(the GLib version it came from, name -> record, the floating acquirers) of a committed table."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise GirError(f"{where}: not JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("summaries"), dict):
        raise GirError(f"{where}: expected an object with 'summaries'")
    floating = data.get("floating", [])
    if not isinstance(floating, list) or not all(isinstance(n, str) for n in floating):
        raise GirError(f"{where}: 'floating' must be a list of function names")
    return str(data.get("glib-version", "?")), {
        n: check_record(n, r, where) for n, r in data["summaries"].items()}, floating


def bundled() -> tuple[str, dict[str, Record], list[str]]:
    """The table generated from GLib's own .gir files (refcheck/data/glib_gir.json)."""
    text = resources.files("refcheck.data").joinpath("glib_gir.json").read_text(encoding="utf-8")
    return load_table(text, "refcheck/data/glib_gir.json")
