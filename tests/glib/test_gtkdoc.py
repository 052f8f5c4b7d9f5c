"""The project's own gtk-doc annotations as records (conventions/gtkdoc.py): what a comment says,
what it does not, and bad input."""

from __future__ import annotations

import random

from refcheck.conventions import gtkdoc
from refcheck.conventions.gtkdoc import annotated, project_records, scan
from refcheck.conventions.presets import PRESETS
from refcheck.conventions.summary import Returns
from refcheck.conventions.records import parse_record


def _doc(name: str, tags: str, signature: str) -> str:
    lines = "\n".join(f" * {t}" for t in tags.splitlines())
    return f"/**\n * {name}:\n{lines}\n */\n{signature}\n{{\n}}\n"


def test_results_and_parameters():
    text = (_doc("a_validate", "@self: me\n\nReturns: (transfer container) (element-type X): list",
                 "GPtrArray *\na_validate (A *self, GError **error)")
            + _doc("a_peek_name", "Returns: (transfer none) (nullable): the name", "const gchar *a_peek_name (A *self)")
            + _doc("a_load", "@out: (out) (transfer full): obj\n@n: (out): count\n@error: err\n\nReturns: %TRUE",
                   "gboolean\na_load (A *self, GObject **out, gint *n, GError **error)")
            + _doc("a_adopt", "@obj: (transfer full): given", "void a_adopt (A *self, GObject *obj)"))
    assert scan(text) == {
        "a_validate": {"returns": "owned"},
        "a_load": {"arguments": {"1": {"effect": "acquire-out", "when": "nonzero"}}},
    }


def test_what_says_nothing():
    # `(transfer none)` on a result: the body and the name decide (a body returning a new object).
    assert scan(_doc("a_peek", "Returns: (transfer none): x", "const gchar *a_peek (A *self)")) == {}
    # `(transfer full)` on an input parameter, a floating result: left out (docs/semantics.md).
    assert scan(_doc("a_adopt", "@obj: (transfer full): given", "void a_adopt (A *self, GObject *obj)")) == {}
    assert scan(_doc("a_ser", "Returns: (transfer full): a floating #GVariant", "GVariant *a_ser (A *self)")) == {}
    # No ownership annotation; a pointer result it leaves unsaid (the body or name decide it, and
    # the parameters' annotations wait with it); a block over a macro or a struct.
    text = (_doc("a_get", "Returns: (nullable): maybe", "GObject *a_get (A *self)")
            + _doc("a_fill", "@out: (out) (transfer full): obj\n\nReturns: a new thing",
                   "GObject *a_fill (A *self, GObject **out)")
            + "/**\n * A_MACRO:\n * Returns: (transfer full): x\n */\n#define A_MACRO(x) (x)\n"
            + "/**\n * AStruct:\n * @p: (transfer full): x\n */\nstruct AStruct { int p; };\n")
    assert scan(text) == {}


def test_input_taken_over_says_nothing_at_all():
    # glib26, libdex's dex_await_object: a result's `(transfer full)` beside an input parameter's
    # would be a record of the result alone, the parameter borrowed over the body's release.
    awaited = _doc("a_await", "@future: (transfer full): f\n@error: err\n\nReturns: (transfer full): obj",
                   "gpointer\na_await (AFuture *future, GError **error)")
    assert scan(awaited) == {}
    # The same result without the input annotation is kept.
    kept = _doc("a_await", "@future: f\n@error: err\n\nReturns: (transfer full): obj",
                "gpointer\na_await (AFuture *future, GError **error)")
    assert scan(kept) == {"a_await": {"returns": "owned"}}


def test_two_comments_disagreeing_say_nothing(tmp_path):
    one, two = tmp_path / "one.c", tmp_path / "two.c"
    one.write_text(_doc("helper_get", "@a: (out) (transfer full): x", "static void helper_get (GObject **a, GObject **b)"))
    two.write_text(_doc("helper_get", "@b: (out) (transfer full): x", "static void helper_get (GObject **a, GObject **b)"))
    assert project_records([str(one), str(two)]) == {}
    assert project_records([str(one), str(tmp_path / "missing.c")]) == {"helper_get": {"arguments": {"0": "acquire-out"}}}


def test_a_name_two_sources_define_says_nothing(tmp_path):
    # glib31, colord: the client library documents `cd_device_get_metadata` `(transfer container)`,
    # the daemon (another binary of the project) defines an undocumented one of the same name
    # returning a `const gchar *`: which of them a call reaches is the build's choice.
    lib, daemon, user = tmp_path / "lib.c", tmp_path / "daemon.c", tmp_path / "user.c"
    lib.write_text(_doc("dev_get_metadata", "Returns: (transfer container): table",
                        "GHashTable *\ndev_get_metadata (Dev *device)"))
    daemon.write_text("const gchar *\ndev_get_metadata (Dev *device, const gchar *key)\n{\n  return NULL;\n}\n")
    assert project_records([str(lib), str(daemon)]) == {}
    # Calls, a test's condition, a macro and a comment's mention define nothing.
    user.write_text("/*\n * dev_get_metadata() is {\n */\n#define dev_get_metadata(d) { d }\n"
                    "void f (Dev *d)\n{\n  if (dev_get_metadata (d)) {\n  }\n"
                    "  h = dev_get_metadata (d);\n}\n")
    assert project_records([str(lib), str(user)]) == {"dev_get_metadata": {"returns": "owned"}}


def test_bad_input_never_fails():
    rng = random.Random(7)
    pieces = ["/**", "*/", " * ", "(transfer", "full)", "(out", ")", "@x:", "Returns:", "f_g:", "(", ",",
              "GObject *", "f_g (", "void", "{", ";", "\n", ":", "((", "))", "(closure", "(scope async)"]
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        scan(text)  # no exception, whatever it returns
    assert scan("/**\n * f:\n * Returns: (transfer ((: x\n */\nGObject *f (void);\n") == {}


def test_precedence():
    conv = PRESETS["glib"].conventions
    import tempfile, os

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "a.c")
        with open(path, "w") as f:
            f.write(_doc("a_validate", "Returns: (transfer full): x", "GPtrArray *a_validate (A *self)")
                    + _doc("a_unref", "Returns: (transfer full): x", "GObject *a_unref (GObject *o)"))
        plain = annotated(conv, [path])
        assert plain.summary("a_validate").returns is Returns.OWNED
        # A name the patterns make a releaser keeps its role, as a .gir's record does.
        assert "a_unref" not in plain.summaries
        # A configured record wins over the comment.
        from dataclasses import replace

        mine = replace(conv, summaries={**conv.summaries, "a_validate": parse_record({"returns": "borrowed"}, "t")})
        assert annotated(mine, [path]).summary("a_validate").returns is Returns.BORROWED


def test_skipped_functions_say_nothing():
    # g-ir-scanner leaves a `(skip)` function out of the .gir: its annotations were never checked.
    text = "/**\n * a_from_xml: (skip)\n * Returns: (transfer none): a tree\n */\nANode *a_from_xml (const gchar *d);\n"
    assert scan(text) == {}


def test_functions_taking_a_destructor_say_nothing():
    # The data/destructor pairing decides those (gdk_pixbuf_new_from_data): no record stops it.
    text = _doc("a_new_from_data", "Returns: (transfer full): x",
                "GObject *a_new_from_data (guchar *data, GDestroyNotify destroy_fn, gpointer fn_data)")
    text += _doc("a_wrap", "Returns: (transfer full): x", "GObject *a_wrap (guchar *data, void (*free_fn) (guchar *))")
    assert scan(text) == {}


def test_variadic_lists_taken_over():
    # glib27, libdex's dex_future_first: `@first_future: (transfer full)` and `@...: a %NULL
    # terminated list of futures`, defined as `(dex_future_first) (...)` past a macro of its name.
    first = _doc("a_first", "@first: (transfer full): a future\n@...: a %NULL terminated list of futures\n\n"
                 "Returns: (transfer full): a set", "AFuture *\n(a_first) (AFuture *first,\n ...)")
    said = {"returns": "owned", "arguments": {"0": "consume"}, "variadic": {"from": 1, "effect": "consume"}}
    assert scan(first) == {"a_first": said}
    # `@...: (transfer full)` of its own, after a borrowed parameter.
    own = _doc("a_adopt_all", "@self: me\n@...: (transfer full): objects, %NULL-terminated",
               "void a_adopt_all (A *self, ...)")
    assert scan(own) == {"a_adopt_all": {"variadic": {"from": 1, "effect": "consume"}}}
    # A list not said to be NULL-terminated does not continue its first element, whose input
    # `(transfer full)` alone is not trusted; a `(transfer none)` list says nothing.
    loose = _doc("a_read", "@first: (transfer full): x\n@...: more", "void a_read (A *first, ...)")
    none = _doc("a_look", "@...: (transfer none): objects", "void a_look (A *self, ...)")
    assert scan(loose) == {} and scan(none) == {}
    # Checked as a configured record: the variadic key is one the record reader knows.
    assert parse_record(said, "t").variadic[0] == 1


# glib30: documented input takes (a hint the body reads) and `(transfer none)` finish functions.
_ADD = """
/**
 * reg_add:
 * @reg: the registry
 * @item: (transfer full): an item
 * @slot: (transfer full): a slot missing its (out)
 *
 * Returns: %TRUE on success
 */
gboolean
reg_add (Reg *reg, Item *item, Item **slot)
{
  return TRUE;
}
"""

_FINISH = """
/**
 * op_finish:
 * @self: the object
 * @result: a #GAsyncResult
 * @error: an error location
 *
 * Returns: (transfer none): the action
 */
Action *
op_finish (Op *self, GAsyncResult *result, GError **error)
{
  Action *action;

  g_return_val_if_fail (G_IS_TASK (result), NULL);
  if (self == NULL)
    return NULL;
  action = g_task_propagate_pointer (G_TASK (result), error);
  return action;
}
"""


def test_documented_input_takes_are_hints_not_records():
    records, takes = gtkdoc._scan(_ADD)
    assert "reg_add" not in records
    assert takes == {"reg_add": (1,)}  # not the `Item **` misannotated out parameter


def test_transfer_none_finish_over_a_propagated_pointer_is_borrowed():
    records, _ = gtkdoc._scan(_FINISH)
    assert records == {"op_finish": {"returns": "borrowed"}}


def test_transfer_none_over_anything_else_yields_to_the_body():
    made = _FINISH.replace("return action;", "return g_object_new (ACTION_TYPE, NULL);")
    assert gtkdoc._scan(made)[0] == {}
    full = _FINISH.replace("(transfer none)", "(transfer full)")
    assert gtkdoc._scan(full)[0] == {"op_finish": {"returns": "owned"}}


def _getter(name: str, transfer: str, signature: str, body: str, skip: str = "") -> str:
    return f"/**\n * {name}:{skip}\n * Returns: (transfer {transfer}): x\n */\n{signature}\n{{\n{body}\n}}\n"


_PEEK = ("  GDBusInterface *ret;\n  ret = g_dbus_object_get_interface (G_DBUS_OBJECT (object), \"a.B\");\n"
         "  if (ret == NULL)\n    return NULL;\n  g_object_unref (ret);\n  return A_B (ret);")


def test_a_transfer_none_getter_dropping_its_owners_reference_lends_its_result():
    # gdbus-codegen's goa_object_peek_* (all `(skip)`): the body confirms the comment.
    text = _getter("a_object_peek_b", "none", "AB *a_object_peek_b (AObject *object)", _PEEK, " (skip)")
    assert scan(text) == {"a_object_peek_b": {"returns": "borrowed"}}
    cached = ("  AProxy *proxy = A_PROXY (object);\n  GVariant *variant;\n  GVariant *value = NULL;\n"
              "  variant = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (proxy), \"B\");\n"
              "  value = variant;\n  if (variant != NULL)\n    g_variant_unref (variant);\n  return value;")
    text = _getter("a_proxy_get_b", "none", "GVariant *a_proxy_get_b (AObject *object)", cached)
    assert scan(text) == {"a_proxy_get_b": {"returns": "borrowed"}}


def test_a_reference_with_no_owner_is_not_lent():
    # A constructor's result, a string's icon, a comment saying transfer full: the body decides.
    fresh = "  GObject *o = g_object_new_with (object);\n  g_object_unref (o);\n  return o;"
    assert scan(_getter("a_fresh", "none", "GObject *a_fresh (AObject *object)", fresh, " (skip)")) == {}
    icon = "  GIcon *i = g_themed_icon_for (name);\n  g_object_unref (i);\n  return i;"
    assert scan(_getter("a_icon", "none", "GIcon *a_icon (const gchar *name)", icon)) == {}
    said = scan(_getter("a_object_get_b", "full", "AB *a_object_get_b (AObject *object)", _PEEK))
    assert said == {"a_object_get_b": {"returns": "owned"}}  # what it says: the body's release is RC003
    # Another return of something else: not only the owner's object.
    other = _PEEK.replace("  return A_B (ret);", "  if (object->x)\n    return object->other;\n  return A_B (ret);")
    assert scan(_getter("a_object_peek_b", "none", "AB *a_object_peek_b (AObject *object)", other, " (skip)")) == {}
