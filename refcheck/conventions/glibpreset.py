"""The `glib` preset: GLib/GObject's name patterns, and records from GObject-Introspection data."""

from __future__ import annotations

from dataclasses import replace

from refcheck.conventions import NO_TH_TABLES, Conventions
from refcheck.conventions.libraries import GLIB_LIBRARIES
from refcheck.conventions.summary import Summary
from refcheck.conventions.records import parse_record


# GLib's `*_unref_to_*`: a consumer (the reference it is given) whose result is owned.
_UNREF_TO = r"_unref_to_[a-z]\w*$"


def base_glib() -> Conventions:
    """The glib preset's name patterns alone, before the GObject-Introspection table."""
    return Conventions(
        libraries=GLIB_LIBRARIES,
        # g_string_new, g_object_new, g_hash_table_new_full ... follow the TH spelling already.
        acquire=[r"(?:^|_)new(?:[A-Z0-9_]|$)", r"^g_(?:try_)?malloc0?(?:_n)?$", r"^g_strdup\w*$",
                 r"^g_slice_(?:alloc0?|copy)$",
                 r"^g_strndup$", r"^g_strconcat$", r"^g_strjoin\w*$", r"^g_memdup2?$",
                 # libc's allocators, which GLib code uses too (dconf: `filename = strndup (...)`
                 # into a g_autofree variable; g_free and free are one family here).
                 r"^(?:malloc|calloc|strdup|strndup)$"],
        # A project's own `*_realloc (mem, size)` wraps one (gcr's gcr_secure_memory_realloc, "Glib
        # memory is also reallocated correctly when passed to this function": NULL allocates,
        # size 0 frees, else the block moves to the result).
        reallocate=[r"^g_(?:try_)?realloc(?:_n)?$", r"^realloc$", r"^\w+_(?:try_)?realloc$"],
        # "Contrary to g_realloc(), this function returns NULL on failure" (g_try_realloc), the
        # old block left valid as realloc leaves it: on NULL it is still where it was
        # (gdk-pixbuf's io-ico.c: `tmp = g_try_realloc (State->HeaderBuf, n); if (!tmp) return;`
        # with the block still in the field). g_realloc aborts instead.
        may_fail=[r"^g_try_realloc(?:_n)?$", r"^realloc$", r"^reallocarray$", r"^\w+_try_realloc$"],
        # `dec_ref` decrements (glib-networking's session cache calls its `inc_ref`/`dec_ref`
        # function-pointer members): a release, not the retain `_ref` would make it.
        # Weak references take none: g_object_weak_ref "Adds a weak reference callback to an
        # object. Weak references are used for notification when an object is disposed", and
        # g_object_weak_unref "Removes a weak reference callback": neither a retain nor a release
        # (at-spi2-core's atk_relation_add_target, gupnp's context manager). A toggle reference is
        # a strong one: g_object_add_toggle_ref "Increases the reference count of the object by
        # one", g_object_remove_toggle_ref "Removes a reference added with g_object_add_toggle_ref().
        # The reference count of the object is decreased by one" (a release, not `_ref`'s retain).
        # A setter's `_set_..._ref` names what it sets (libgit2-glib's
        # ggit_rebase_options_set_rewrite_notes_ref: a git notes ref, strdup'd), and GIOChannel's
        # g_io_channel_set/get_close_on_unref a flag: neither retains nor releases (glib45: 4 false).
        retain=[r"^(?!\w*_set_)\w*(?<!dec)(?<!weak)(?<!remove_toggle)_ref(?:_sink)?$"],
        # g_source_destroy is no release: it "removes a source from its GMainContext" and drops
        # the context's reference; "This does not unref the GSource: if you still hold a
        # reference, use g_source_unref() to drop it" (GLib's documentation; glib-networking's
        # `g_source_destroy (s); g_source_unref (s);`, where the pattern made it RC002).
        release=[r"(?<!weak)(?<!_on)_unref$", r"_remove_toggle_ref$", r"(?:^|_)dec_ref$", r"(?:^|_)free(?:_full)?$", r"^g_clear_object$", r"^g_clear_pointer$",
                 r"(?<!^g_source)_destroy$", r"^g_strfreev$", r"^g_slice_free1$", r"^g_dir_close$",
                 # "Frees one GList element" (g_list_free1 is its alias): an unlinked node's free.
                 r"^g_s?list_free_?1$"],
        # g_steal_pointer(&x) is a `steal` (the default list): it moves x's value out.
        # GLib's `*_unref_to_*` (g_bytes_unref_to_data, g_bytes_unref_to_array; libsecret's
        # secret_value_unref_to_password): drops the reference it is given, returns a new owned
        # result made from the object (its contents stolen when that was the last reference).
        consume=[r"_take$", _UNREF_TO],
        consume_owned=[_UNREF_TO],
        null_sorted=[r"^g_strcmp0$"],
        # g_queue_clear: "Removes all the elements in queue. If queue elements contain
        # dynamically-allocated memory, they should be freed first" (a GQueue on the stack).
        shallow_free=[r"^g_(?:s?list|queue)_free$", r"^g_queue_clear$"],
        list_pops=[r"^g_queue_(?:pop|peek)_(?:head|tail|nth)$"],
        # g_hash_table_new (hash, equal) frees neither keys nor values; g_hash_table_new_full
        # (hash, equal, key_destroy, value_destroy) those its non-NULL functions free.
        table_new={r"^g_hash_table_new$": {}, r"^g_hash_table_new_full$": {"key": 2, "value": 3}},
        table_store=[r"^g_hash_table_(?:insert|replace|add)$"],
        # "If the task resulted in an error, or was cancelled, then this will instead return NULL"
        # (g_task_propagate_pointer); g_task_had_error (task) tells whether it did.
        error_state={r"^g_task_had_error$": r"^g_task_propagate_pointer$"},
        # g_task_return_pointer (task, result, NULL): the task holds the result for the `_finish`
        # whose g_task_propagate_pointer takes it (transfer full): a store, not a lent value
        # (grilo's get_url_mocked); with a notify it stays GIR's sink (a lent one is RC009).
        held_results=[r"^g_task_return_pointer$"],
        # G_DEFINE_TYPE's `static gpointer <type>_parent_class`, hand-written `parent_class`:
        # `G_OBJECT_CLASS (foo_parent_class)->finalize (obj)` chains up to the parent's function.
        parent_classes=[r"parent_class$"],
        # g_return_if_reached () and g_return_val_if_reached (val): "Logs a critical message and
        # returns", a programmer error as for g_return_if_fail (see `exit`), through a bare g_log.
        exit_macros={r"^g_log$": r"^g_return_(?:val_)?if_reached\b"},
        error=[],
        # g_error() logs at G_LOG_LEVEL_ERROR, which always aborts.
        # A failed g_return_if_fail()/g_return_val_if_fail() precondition is a programmer error
        # (it logs a critical, and G_DISABLE_CHECKS compiles it out): what it leaves behind is
        # not reported, as for an abort. Its path ends at g_return_if_fail_warning.
        # A failed g_assert*() is the same: g_assertion_message*() aborts (unless a test asked
        # g_test_set_nonfatal_assertions(), which the macros' cleanup after it allows for).
        exit=[r"^g_error$", r"^g_assert_not_reached$", r"^abort$", r"^exit$", r"^_exit$",
              r"^g_return_if_fail_warning$", r"^g_assertion_message\w*$"],
        # `if (g_test_subprocess ()) { ... }` is the run of the child g_test_trap_subprocess()
        # spawns (expected to abort at a critical, or watched for its output): it ends there.
        child_process=[r"^g_test_subprocess$"],
        # A function that sets its GError returns no value: `r = f (..., &error)` is NULL where
        # `error` is set (GLib's error reporting rules; frontend.gerrors).
        error_out=[r"^struct _GError$"],
        # "If error is NULL, FALSE will be returned" (g_error_matches' documentation).
        false_if_null=[r"^g_error_matches$"],
        zero_if_null=[r"^g_s?list_length$"],
        conditional_error={},
        # String comparisons read their arguments only: tested again with the same text and
        # nothing assigned, they give the same answer (totem-pl-parser's `g_str_equal (field,
        # GENRE)` in an if/else-if chain ending in `g_str_equal (field, GENRE) == FALSE`).
        pure=[r"^G_IS_\w+$", r"^g_\w+_(?:get_length|length|size)$", r"^g_task_had_error$",
              r"^(?:g_str_equal|g_strcmp0|g_str_has_prefix|g_str_has_suffix|g_ascii_strn?casecmp|strn?cmp|strn?casecmp)$"],
        errors="abort",
        primitive=[r"^g_(?:try_)?(?:malloc0?|realloc)(?:_n)?$", r"^g_free$", *AUTOPTR_PRIMITIVES],
        # A helper that frees its parameter on every path, or frees it on one and returns it on
        # the others (libnotify's destroy_action_info, get_parsed_variant), takes it over.
        infer_steals=True,
        # Constructors keep what they are given, releasers free what their bodies free (dconf).
        refine_patterns=True,
        # cairo_create, archive_entry_new's kin: an opaque handle from a library nothing describes
        # is not taken as lent (frontend.argtypes.opaque_unknown).
        opaque_unknown=True,
        # libsoup 2's SoupMemoryUse: with SOUP_MEMORY_TAKE "the caller has allocated the memory
        # for the SoupBuffer's use; libsoup will assume ownership of it and free it (with
        # g_free()) when it is done with it" (soup_message_set_request, soup_message_body_append,
        # soup_buffer_new: the data follows the constant); _COPY, _STATIC, _TEMPORARY only read it.
        take_constants=[r"^SOUP_MEMORY_TAKE$"],
        # A flag saying the callee frees the buffer before it (libgsf's gsf_input_memory_new
        # `needs_free`, GIR's "transfer none" on the buffer: the flag cannot be annotated).
        take_flags=[r"^(?:needs?|should|must)_free$", r"^free_(?:data|buf|buffer|mem|memory|on_destroy)$",
                    r"^take_ownership$", r"^owns?_(?:data|buf|buffer|mem|memory)$"],
        # A project's `*_take_*` setter (json_node_take_array(node, array), g_value_take_string)
        # keeps its last argument without a reference of its own: the caller hands its over. Not
        # `*_take_ref` (g_variant_take_ref, g_object_take_ref): GLib's ref_sink kind, returning
        # the argument it was given with the caller's one reference (`ref_sink` below).
        **{**NO_TH_TABLES, "sinks": {r"_take_(?!ref$)[a-z]\w*$": [-1]}},
    )


# What GIR does not say. Containers keep the data pointer they are given (a hand-over: they free
# it with their own free function, or the caller frees it through them). The list and GString
# functions return their first argument, or the list's new head: `l = g_list_prepend(l, x)` gives
# up the old head and owns the new one, which is a reallocation (Returns.REALLOCATED) as far as
# ownership goes.
_HEAD = {"returns": "reallocated"}
GLIB_RULES: dict[str, dict] = {
    **{f"g_{kind}_{op}": {"returns": "reallocated", "arguments": {str(pos): "store"}}
       for kind in ("list", "slist")
       for op, pos in (("append", 1), ("prepend", 1), ("insert", 1), ("insert_sorted", 1),
                       ("insert_sorted_with_data", 1), ("insert_before", 2))},
    **{f"g_{kind}_{op}": _HEAD for kind in ("list", "slist")
       for op in ("reverse", "sort", "sort_with_data", "remove", "remove_all", "delete_link")},
    # The link g_list_remove_link takes out is the caller's own one-node list, to free
    # (g_list_free_1) or hand on (g_list_concat): `tmp = set; set = g_list_remove_link (set, tmp);
    # ... tmp->data` pops the head, which the reallocation gave up (glib29, grilo's list_union).
    **{f"g_{kind}_remove_link": {"returns": "reallocated", "arguments": {"1": "detach"}}
       for kind in ("list", "slist")},
    # "The elements of the second GList are not copied. They are used directly": list2 becomes
    # the tail of the result, taken over (libsecret's `g_list_concat (items, g_list_copy (l))`).
    **{f"g_{kind}_concat": {"returns": "reallocated", "arguments": {"1": "consume"}} for kind in ("list", "slist")},
    "g_ptr_array_add": {"arguments": {"1": "store"}},
    "g_ptr_array_insert": {"arguments": {"2": "store"}},
    "g_queue_push_head": {"arguments": {"1": "store"}},
    "g_queue_push_tail": {"arguments": {"1": "store"}},
    "g_queue_push_nth": {"arguments": {"1": "store"}},
    # The GList-taking inserts keep their data as the pushes do (libpeas's plugin list).
    "g_queue_insert_before": {"arguments": {"2": "store"}},
    "g_queue_insert_after": {"arguments": {"2": "store"}},
    "g_queue_insert_sorted": {"arguments": {"1": "store"}},
    # The _link variants keep the GList element they are given ("link_: a single GList
    # element"), which intrusive queues embed in the item they list (`item->link.data = item;
    # g_queue_push_tail_link (&q, &item->link)`): the queue keeps the item (glib26, libdex's
    # channel, scheduler and work queues, 6 false RC001).
    **{f"g_queue_{op}_link": {"arguments": {str(pos): "store"}}
       for op, pos in (("push_head", 1), ("push_tail", 1), ("push_nth", 1), ("insert_before", 2),
                       ("insert_after", 2))},
    # A GNode tree: g_node_new (data) keeps its data pointer in the node, as a list keeps its
    # element; the inserts hand the node to the parent's tree, which g_node_destroy on the root
    # frees ("Removes root and its children from the tree, freeing any memory allocated"), and
    # return it ("Returns: the inserted GNode"). g_node_append (_data), g_node_insert_data
    # (_after, _before) and g_node_prepend_data are macros over these (geocode-glib's place tree,
    # libgusb's device tree: `g_node_append_data (node, device)`).
    "g_node_new": {"returns": "owned", "arguments": {"0": "store"}},
    **{f"g_node_{op}": {"returns": "argument", "returned": pos, "arguments": {str(pos): "store"}}
       for op, pos in (("insert", 2), ("insert_before", 2), ("insert_after", 2), ("prepend", 1))},
    # An async queue keeps what is pushed until a pop hands it to the consumer (its items are
    # freed by g_async_queue_new_full's item_free_func when the queue goes): GIR says nothing.
    **{f"g_async_queue_push{how}{locked}": {"arguments": {"1": "store"}}
       for how in ("", "_front", "_sorted") for locked in ("", "_unlocked")},
    # GMarkup's sub-parsers: g_markup_parse_context_push (context, parser, user_data) keeps the
    # user data for the pushed parser's callbacks until g_markup_parse_context_pop gives it back
    # ("Returns: the user data passed to g_markup_parse_context_push()"), and the parent's end
    # handler that pops frees it (GLib's documented sub-parser pattern; libgxps pushes a new
    # matrix, brush or path so). A thread pool keeps each pushed item until its function runs
    # with it ("data: a new task for pool"). GIR says nothing of either gpointer.
    "g_markup_parse_context_push": {"arguments": {"2": "store"}},
    "g_thread_pool_push": {"arguments": {"1": "store"}},
    # Thread-local and once-only storage keeps what it is given: g_private_set (key, value) and
    # g_private_replace hand the value to the GPrivate, whose G_PRIVATE_INIT notify frees it at
    # thread exit ("the GDestroyNotify for key is not called on the old value": set keeps the
    # new one), and g_once_init_leave (location, result) publishes the result into a static for
    # every later caller. A lazily made per-thread or singleton value returned after the store is
    # lent to the caller (glib26, libdex's `dex_thread_storage_get`: g_new0, g_private_set,
    # return; 19 false RC001 in its callers). GIR says nothing of either gpointer.
    "g_private_set": {"arguments": {"1": "store"}},
    "g_private_replace": {"arguments": {"1": "store"}},
    **{name: {"arguments": {"1": "store"}} for name in ("g_once_init_leave", "g_once_init_leave_pointer")},
    "g_hash_table_insert": {"arguments": {"1": "store", "2": "store"}},
    "g_hash_table_replace": {"arguments": {"1": "store", "2": "store"}},
    # g_hash_table_iter_replace (iter, value) stores value where the iterator stands, as
    # g_hash_table_replace does (the table's value_destroy_func frees the old one), and
    # g_string_free_to_bytes takes its GString over (both `transfer full` in GLib's GIR: the
    # generated table reads no instance parameter's); glib29: gupnp's context manager, 3 false.
    "g_hash_table_iter_replace": {"arguments": {"1": "store"}},
    "g_string_free_to_bytes": {"arguments": {"0": "consume"}, "returns": "owned"},
    "g_hash_table_add": {"arguments": {"1": "store"}},
    **{f"g_string_{op}": {"returns": "argument", "returned": 0} for op in (
        "append", "append_c", "append_len", "append_unichar", "append_uri_escaped", "prepend",
        "prepend_c", "prepend_len", "prepend_unichar", "insert", "insert_c", "insert_len",
        "insert_unichar", "overwrite", "overwrite_len", "assign", "truncate", "set_size", "erase",
        "ascii_down", "ascii_up", "down", "up",
        # What the header's macros expand to (gstring.h: g_string_append_c under G_CAN_INLINE);
        # header bodies are not analysed, so their records are needed here.
        "append_c_inline", "append_len_inline", "truncate_inline")},
    # GArray's and GByteArray's in-place operations return the array they are given ("Returns:
    # the GByteArray"): `data = g_byte_array_append (data, buf, n)` keeps data's block (GIR's
    # `transfer none` result made it a borrowed result overwriting the owner; gdk-pixbuf's
    # io-icns.c). The copies they make of what they are given are not the caller's concern.
    # The vals functions copy the elements they are given into the array: `g_array_append_val
    # (texts, text)` (`&text`, a struct) hands what the struct's members hold to the array
    # (gdk-pixbuf's io-png.c, whose cleanup frees each element's `text`).
    **{f"g_array_{op}": {"returns": "argument", "returned": 0, "arguments": {str(pos): "store"}}
       for op, pos in (("append_vals", 1), ("prepend_vals", 1), ("insert_vals", 2))},
    **{f"g_{kind}_{op}": {"returns": "argument", "returned": 0}
       for kind, ops in (("array", ("set_size", "remove_index", "remove_index_fast", "remove_range")),
                         ("byte_array", ("append", "prepend", "set_size", "remove_index",
                                         "remove_index_fast", "remove_range")))
       for op in ops},
    # GVariant format strings: a GVariant passed for `v`, `@...`, `*`, `?` or `r` is consumed if
    # floating (GLib's "GVariant Format Strings"); GIR cannot describe the variadic arguments.
    **{name: {**extra, "arguments": {str(i): "sink-floating" for i in range(first, first + 24)}}
       for name, first, extra in (("g_variant_new", 1, {"returns": "owned"}),
                                  ("g_variant_new_parsed", 1, {"returns": "owned"}),
                                  ("g_variant_builder_add", 2, {}), ("g_variant_builder_add_parsed", 2, {}),
                                  ("g_variant_dict_insert", 3, {}))},
    # gobject.h's static inline g_set_object (&x, y) (a header body, not analysed): refs y, stores
    # it into x, unrefs x's old value. g_set_weak_pointer takes no reference: it borrows.
    "g_set_object": {"arguments": {"0": "replace", "1": "keep"}},
    # g_clear_error (&err): "If err or *err is NULL, does nothing. Otherwise, calls g_error_free()
    # on *err and sets *err to NULL." A clear of the caller's variable (GIR calls it an out).
    "g_clear_error": {"arguments": {"0": "clear"}},
    # g_propagate_prefixed_error (dest, src, format, ...): "If dest is NULL, free src; otherwise,
    # moves src into *dest. *dest must be NULL. After the move, add a prefix as with
    # g_prefix_error()": g_propagate_error's record (GIR: dest out, src transfer full), which
    # GIR cannot give a variadic function (glib45, bolt's journal: 4 false RC001).
    "g_propagate_prefixed_error": {"arguments": {"0": "acquire-out", "1": "consume"}},
    # GLib's reference-counted boxes: g_rc_box_acquire (mem_block) "Acquires a reference on the
    # data pointed by mem_block. Returns: (transfer full): a pointer to the data, with its
    # reference count increased" (the same pointer; g_atomic_rc_box_acquire likewise). GIR's
    # owned gpointer made a new object of it: `g_atomic_rc_box_acquire (body); return body;`, a
    # boxed type's _ref, leaked the "new" result (glib39, libsoup, 4 false RC001).
    **{name: {"returns": "argument", "returned": 0, "arguments": {"0": "retain"}}
       for name in ("g_rc_box_acquire", "g_atomic_rc_box_acquire")},
    # The checked casts G_OBJECT(x), G_ICON(x) ... expand to: x itself.
    "g_type_check_instance_cast": {"returns": "argument", "returned": 0},
    "g_type_check_class_cast": {"returns": "argument", "returned": 0},
    # Documented "(transfer full)" upstream; GLib 2.74's GIR lacks the annotation.
    "g_variant_new_take_string": {"returns": "owned", "arguments": {"0": "consume"}},
    # "g_thread_join() consumes the reference to the passed-in thread" (GLib's documentation; GIR
    # leaves the instance borrowed). Its result is whatever the thread's function returned: GIR
    # says transfer full of a gpointer, which says nothing of who frees it.
    "g_thread_join": {"returns": "unknown", "arguments": {"0": "release"}},
    # GIR marks the data transfer full for bindings (it must outlive the GBytes); in C the
    # GBytes never frees it: the caller's buffer stays the caller's (dconf's tests g_free it).
    "g_bytes_new_static": {"returns": "owned"},
    # Stores its value into the static location (gthread.h's macro casts it to gsize first):
    # the lazily made singleton is kept for the process's life.
    "g_once_init_leave": {"arguments": {"1": "store"}},
    # A pointer GValue holds what it is set to as a container holds an item, with no free
    # function of its own: a get_property's `g_value_set_pointer (value, list)` hands the list to
    # whoever reads the property (glib-networking's "accepted-cas", which
    # g_tls_client_connection_get_accepted_cas returns `(transfer full)`). GIR's `transfer none`
    # made a list built for it a leak.
    "g_value_set_pointer": {"arguments": {"1": "store"}},
    # Copies GIR cannot introspect (no transfer annotation): new lists and nodes.
    **{name: {"returns": "owned"} for name in (
        "g_list_copy", "g_slist_copy", "g_queue_copy", "g_node_copy", "g_node_copy_deep", "g_hmac_copy",
        "g_rand_copy")},
    # Unannotated `gchar *` results default to transfer full in GIR; these point into their
    # argument.
    **{name: {"returns": "borrowed"} for name in (
        "g_strstr_len", "g_strrstr", "g_strrstr_len", "g_stpcpy", "g_mapped_file_get_contents",
        "g_utf8_offset_to_pointer", "g_utf8_find_next_char", "g_utf8_find_prev_char",
        "g_utf8_prev_char", "g_utf8_strchr", "g_utf8_strrchr")},
    # These modify their first argument in place (or fill it) and return it, the same pointer
    # ("Returns: the same pointer passed in as string"): `s = g_strchomp (g_strdup (v))` holds
    # the copy (totem-pl-parser's totem_pl_parser_fix_string).
    **{name: {"returns": "argument", "returned": 0} for name in (
        "g_strchug", "g_strchomp", "g_strdelimit", "g_strcanon", "g_strreverse", "g_ascii_dtostr",
        "g_ascii_formatd", "g_utf8_strncpy")},
    # "Returns: A pointer to tmpl, which has been modified to hold the directory name", or NULL on
    # error while tmpl stays the caller's (GIR says transfer full): no object of its own; not
    # `argument`, whose NULL would make the template NULL too (libsecret's `if (!g_mkdtemp (dir))`).
    "g_mkdtemp": {"returns": "unknown"},
    "g_mkdtemp_full": {"returns": "unknown"},
    # "In general, a copy is made of the property contents and the caller is responsible for
    # freeing the memory": each `&out` after a property name receives a copy (a g_strdup'd
    # string, a referenced object or GVariant, a copied boxed value); GIR cannot describe the
    # variadic list. The frontend keeps the fill to typed pointers (frontend.argtypes).
    "g_object_get": {"variadic": {"from": 2, "effect": "acquire-out"}},
    # "Returns: the GValue structure that has been passed in" (g_value_reset; GIR writes its
    # unannotated boxed result `full`): bolt's tests' `g_value_reset (&val)`, 10 false RC001.
    "g_value_reset": {"returns": "argument", "returned": 0},
    # gtestutils.h's inline: "Assert that object is non-NULL, then unref it and assert that it
    # has been finalized" (template-glib's tests: 3 false RC001 on the objects it ends).
    "g_assert_finalize_object": {"arguments": {"0": "release"}},
}
# Functions G_DEFINE_AUTOPTR_CLEANUP_FUNC writes into a project's own headers: they release the
# pointer they are handed, as g_object_unref does.
AUTOPTR_PRIMITIVES = [r"^glib_(?:auto|listauto|slistauto|queueauto)(?:ptr)?_(?:clear|cleanup)_\w+$"]


# The roles a name pattern gives that a GIR record does not override: GIR says g_object_ref
# returns a full reference, where the patterns know it retains its argument and returns it.
_PATTERN_ROLES = ("retain", "release", "consume", "reallocate", "error", "exit")


def gir_records(conv: Conventions, tables: dict[str, dict], where: str) -> dict[str, Summary]:
    """GObject-Introspection records (TOML-form tables) for the names whose role the patterns
    do not already decide."""
    from refcheck.conventions.gir import UNOWNED_CONSTRUCTOR

    out = {}
    for name, t in tables.items():
        role = conv.classify(name)
        if role in _PATTERN_ROLES:
            continue
        if UNOWNED_CONSTRUCTOR in t:
            # A constructor's `transfer none` (gtk_label_new's floating widget) is unknown
            # whatever its `*_new` name says.
            t = {k: v for k, v in t.items() if k != UNOWNED_CONSTRUCTOR}
        elif role == "acquire" and t.get("returns") == "unknown":
            # An unannotated gpointer result says nothing: g_malloc's name says it is owned.
            t = {k: v for k, v in t.items() if k != "returns"}
            if not t:
                continue
        out[name] = parse_record(t, f"{where}: {name}")
    return out


def glib_conventions() -> Conventions:
    """The glib preset: the name patterns, the bundled GIR table, the rules GIR cannot say."""
    from refcheck.conventions.gir import bundled

    base = base_glib()
    version, table, floating = bundled()
    # GLib's own functions take the table only where GLib's headers declare them (glib.h's
    # folder and below: glib/, gobject/, gio/); a project's function of the same name does not.
    # Floating results (g_variant_new_*) are owned until sunk; g_variant_ref_sink and
    # g_object_ref_sink take such a reference over rather than adding one; the take_ref pair adds
    # none to a full reference either (gdbus-codegen's `g_variant_take_ref (value)` statement).
    from refcheck.conventions.installed import installed

    return replace(base, library_header="glib.h", floating=[rf"^(?:{'|'.join(floating)})$"] if floating else [],
                   installed_gir=installed(),
                   ref_sink=[r"^g_(?:variant|object)_(?:ref_sink|take_ref)$"],
                   take_ref=[r"^g_(?:variant|object)_take_ref$"], library_summaries={
        **gir_records(base, table, f"glib_gir.json (GLib {version})"),
        **gir_records(base, GLIB_RULES, "glibpreset.GLIB_RULES"),
        **{name: parse_record(t, f"glibpreset.GLIB_FREE_SEGMENT: {name}") for name, t in GLIB_FREE_SEGMENT.items()}})


# The container destructors that hand their contents over when told to keep them
# (`return g_string_free (str, FALSE);`, GLib's most common way to build a string): the container
# is released, and the result, when `free_segment` is a FALSE constant, is the caller's to g_free
# (GIR: `transfer full`); with TRUE it is NULL. Their `*_free` names make them plain releasers
# for the patterns (and the GIR table leaves pattern roles alone), so the records are here, over
# the pattern. A variable `free_segment` is taken as TRUE (nothing owned: the result is not
# tracked). g_string_free_and_steal (2.76, what g_string_free (s, FALSE) expands to there)
# always hands the buffer over.
GLIB_FREE_SEGMENT: dict[str, dict] = {
    **{name: {"returns": "owned", "owned-if-null": 1, "arguments": {"0": "release"}}
       for name in ("g_string_free", "g_array_free", "g_ptr_array_free", "g_byte_array_free")},
    "g_string_free_and_steal": {"returns": "owned", "arguments": {"0": "release"}},
}
