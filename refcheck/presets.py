"""Ready-made conventions for code bases that count references the way TH, CPython or GLib do.

A preset is only a starting point: every list in `[tool.refcheck]` replaces or extends it. The
engine knows nothing about any of them; it asks `Conventions`, so these show how general it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from refcheck.conventions import Conventions
from refcheck.girtable import bundled


@dataclass
class Preset:
    name: str
    summary: str
    conventions: Conventions
    # Rules that the code base's naming cannot support, off unless the user selects them.
    ignore: list[str] = field(default_factory=list)


# The TH defaults of these tables name TH/THC functions (newWithAllocator, THCudaCheck, resizeAs):
# other code bases start from empty tables and add their own in [tool.refcheck].
_NO_TH_TABLES = dict(sinks={}, error_if_nonzero={}, may_return_argument={}, same_size={}, same_size_test={})


def _cpython() -> Conventions:
    return Conventions(
        # CPython does not spell ownership in names, so "new" here means the documented
        # new-reference constructors and conversions; anything else is treated as borrowed.
        acquire=[
            r"^Py\w*_New\w*$", r"^Py\w*_From\w*$", r"^Py_BuildValue$", r"^Py_NewRef$",
            r"^Py_XNewRef$", r"^PyObject_(?:Call\w*|GetAttr\w*|GetItem|Repr|Str|Dir|GetIter)$",
            r"^PyNumber_\w+$", r"^PySequence_(?:GetItem|GetSlice|List|Tuple|Concat)$",
            r"^PyImport_Import\w*$", r"^PyIter_Next$", r"^PyDict_(?:Copy|Keys|Values|Items)$",
            r"^PyUnicode_(?:Concat|Format|Join|Split|AsEncodedString|AsUTF8String)$",
            r"^PyErr_NewException$", r"^PyMem_(?:Raw)?(?:Malloc|Calloc)$", r"^PyObject_(?:Malloc|Calloc)$",
        ],
        reallocate=[r"^PyMem_(?:Raw)?Realloc$", r"^PyObject_Realloc$"],
        retain=[r"^_?Py_X?INCREF$"],
        release=[r"^_?Py_X?DECREF$", r"^Py_CLEAR$", r"^PyMem_(?:Raw)?Free$", r"^PyObject_Free$"],
        # These steal a reference to the item (PyModule_AddObjectRef does not, so it borrows).
        consume=[r"^Py(?:List|Tuple)_(?:SET_ITEM|SetItem)$", r"^PyModule_AddObject$",
                 r"^PyCell_SET$"],
        # CPython reports errors by returning NULL; nothing unwinds the C stack.
        error=[],
        exit=[r"^Py_FatalError$", r"^Py_Exit$", r"^abort$", r"^exit$", r"^_exit$"],
        conditional_error={},
        pure=[r"^Py\w*_Check(?:Exact)?$", r"^Py\w*_(?:GET_SIZE|Size|Length)$"],
        errors="abort",
        # The allocator implementations (CPython's own Objects/obmalloc.c).
        primitive=[r"^_?PyMem_(?:Raw)?(?:Malloc|Calloc|Realloc|Free)$", r"^_?PyObject_(?:Malloc|Calloc|Realloc|Free)$"],
        **_NO_TH_TABLES,
    )


def base_glib() -> Conventions:
    """The glib preset's name patterns alone, before the GObject-Introspection table."""
    return Conventions(
        # g_string_new, g_object_new, g_hash_table_new_full ... follow the TH spelling already.
        acquire=[r"(?:^|_)new(?:[A-Z0-9_]|$)", r"^g_(?:try_)?malloc0?(?:_n)?$", r"^g_strdup\w*$",
                 r"^g_strndup$", r"^g_strconcat$", r"^g_strjoin\w*$", r"^g_memdup2?$"],
        reallocate=[r"^g_(?:try_)?realloc(?:_n)?$"],
        retain=[r"_ref(?:_sink)?$"],
        release=[r"_unref$", r"(?:^|_)free(?:_full)?$", r"^g_clear_object$", r"^g_clear_pointer$",
                 r"_destroy$", r"^g_strfreev$"],
        # g_steal_pointer(&x) is a `steal` (the default list): it moves x's value out.
        consume=[r"_take$"],
        error=[],
        # g_error() logs at G_LOG_LEVEL_ERROR, which always aborts.
        exit=[r"^g_error$", r"^g_assert_not_reached$", r"^abort$", r"^exit$", r"^_exit$"],
        # g_return_if_fail() returns from the caller rather than aborting: an ordinary exit.
        conditional_error={},
        pure=[r"^G_IS_\w+$", r"^g_\w+_(?:get_length|length|size)$"],
        errors="abort",
        primitive=[r"^g_(?:try_)?(?:malloc0?|realloc)(?:_n)?$", r"^g_free$", *AUTOPTR_PRIMITIVES],
        **_NO_TH_TABLES,
    )


# What GIR does not say. Containers keep the data pointer they are given (a hand-over: they free
# it with their own free function, or the caller frees it through them). The list and GString
# functions return their first argument, or the list's new head: `l = g_list_prepend(l, x)` gives
# up the old head and owns the new one, which is a reallocation (Returns.REALLOCATED) as far as
# ownership goes (the spec's Returns.ARGUMENT, until the analysis has it).
_HEAD = {"returns": "reallocated"}
GLIB_RULES: dict[str, dict] = {
    **{f"g_{kind}_{op}": {"returns": "reallocated", "arguments": {str(pos): "sink"}}
       for kind in ("list", "slist")
       for op, pos in (("append", 1), ("prepend", 1), ("insert", 1), ("insert_sorted", 1),
                       ("insert_sorted_with_data", 1), ("insert_before", 2))},
    **{f"g_{kind}_{op}": _HEAD for kind in ("list", "slist")
       for op in ("reverse", "sort", "sort_with_data", "remove", "remove_all", "remove_link", "delete_link",
                  "concat")},
    "g_ptr_array_add": {"arguments": {"1": "sink"}},
    "g_ptr_array_insert": {"arguments": {"2": "sink"}},
    "g_queue_push_head": {"arguments": {"1": "sink"}},
    "g_queue_push_tail": {"arguments": {"1": "sink"}},
    "g_queue_push_nth": {"arguments": {"1": "sink"}},
    "g_hash_table_insert": {"arguments": {"1": "sink", "2": "sink"}},
    "g_hash_table_replace": {"arguments": {"1": "sink", "2": "sink"}},
    "g_hash_table_add": {"arguments": {"1": "sink"}},
    **{f"g_string_{op}": {"returns": "argument"} for op in (
        "append", "append_c", "append_len", "append_unichar", "append_uri_escaped", "prepend",
        "prepend_c", "prepend_len", "prepend_unichar", "insert", "insert_c", "insert_len",
        "insert_unichar", "overwrite", "overwrite_len", "assign", "truncate", "set_size", "erase",
        "ascii_down", "ascii_up", "down", "up")},
    # Unannotated `gchar *` results default to transfer full in GIR; these point into (or are)
    # their argument.
    **{name: {"returns": "borrowed"} for name in (
        "g_strstr_len", "g_strrstr", "g_strrstr_len", "g_ascii_dtostr", "g_ascii_formatd", "g_stpcpy",
        "g_strchug", "g_strchomp", "g_strdelimit", "g_strcanon", "g_strreverse", "g_mapped_file_get_contents",
        "g_utf8_strncpy", "g_utf8_offset_to_pointer", "g_utf8_find_next_char", "g_utf8_find_prev_char",
        "g_utf8_prev_char", "g_utf8_strchr", "g_utf8_strrchr")},
}
# Functions G_DEFINE_AUTOPTR_CLEANUP_FUNC writes into a project's own headers: they release the
# pointer they are handed, as g_object_unref does.
AUTOPTR_PRIMITIVES = [r"^glib_(?:auto|listauto|slistauto|queueauto)(?:ptr)?_(?:clear|cleanup)_\w+$"]


def role_of(record: dict) -> tuple[str | None, tuple[int, ...]]:
    """A record as the conventions' exact-name entry: OWNED acquires; every argument the callee
    takes over (consume, sink) is a hand-over of that argument. ACQUIRE_OUT is not modelled yet
    (the out argument borrows, as `&x` passed anywhere does)."""
    role = {"owned": "acquire", "reallocated": "reallocate", "argument": "argument"}.get(record.get("returns"))
    kept = tuple(sorted(int(p) for p, e in record.get("arguments", {}).items() if e in ("consume", "sink")))
    return role, kept


def with_records(conv: Conventions, records: dict[str, dict]) -> Conventions:
    """`conv` with exact-name records added; names its patterns make a retain, release or
    consume keep that role (GIR: g_object_ref returns a full reference, its argument retained)."""
    named = dict(conv.named)
    for name, record in records.items():
        if conv.classify(name) not in ("retain", "release", "consume", "reallocate", "error", "exit"):
            named[name] = role_of(record)
    return replace(conv, named=named)


def _glib() -> Conventions:
    _, table = bundled()
    return with_records(with_records(base_glib(), table), GLIB_RULES)


PRESETS: dict[str, Preset] = {p.name: p for p in [
    Preset("th", "PyTorch TH/THC: new* functions, retain/free, THError aborts", Conventions()),
    # Names do not say who owns a result in CPython, so the naming rules would flag every
    # function returning a new reference; the leak and release rules still apply.
    Preset("cpython", "CPython C API: new references, Py_INCREF/Py_DECREF, stolen references",
           _cpython(), ignore=["RC004", "RC005"]),
    Preset("glib", "GLib/GObject: *_new, *_ref/*_unref, g_free", _glib(), ignore=["RC004", "RC005"]),
]}
