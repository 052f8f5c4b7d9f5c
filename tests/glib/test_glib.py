"""The glib preset's pieces that need no GLib install: GIR records, system headers, the table."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from dataclasses import replace

from cunit import CUnit
from refcheck.conventions.gir import GirError, bundled, floating_results, load_table, parse_gir
from refcheck.conventions.glibpreset import gir_records
from refcheck.conventions.presets import PRESETS
from refcheck.conventions.summary import Effect, Returns
from refcheck.driver.engine import Settings, check_unit

GIR = textwrap.dedent("""\
    <?xml version="1.0"?>
    <repository version="1.2" xmlns="http://www.gtk.org/introspection/core/1.0"
                xmlns:c="http://www.gtk.org/introspection/c/1.0">
      <namespace name="Foo" version="1.0">
        <class name="Thing">
          <constructor name="new" c:identifier="foo_thing_new">
            <return-value transfer-ownership="full"><type name="Thing" c:type="FooThing*"/></return-value>
          </constructor>
          <method name="get_name" c:identifier="foo_thing_get_name">
            <return-value transfer-ownership="none"><type name="utf8" c:type="const char*"/></return-value>
            <parameters><instance-parameter name="self" transfer-ownership="none">
              <type name="Thing" c:type="FooThing*"/></instance-parameter></parameters>
          </method>
          <method name="adopt" c:identifier="foo_thing_adopt">
            <return-value transfer-ownership="none"><type name="none" c:type="void"/></return-value>
            <parameters>
              <instance-parameter name="self" transfer-ownership="none"><type name="Thing" c:type="FooThing*"/></instance-parameter>
              <parameter name="child" transfer-ownership="full"><type name="Thing" c:type="FooThing*"/></parameter>
              <parameter name="out" direction="out" transfer-ownership="full"><type name="utf8" c:type="char**"/></parameter>
            </parameters>
          </method>
        </class>
        <function name="split" c:identifier="foo_split" introspectable="0">
          <return-value><doc>a newly-allocated array of strings.</doc><array c:type="gchar**"><type name="utf8"/></array></return-value>
        </function>
        <function name="nth" c:identifier="foo_nth" introspectable="0">
          <return-value><doc>the element, or %NULL</doc><type name="GLib.List" c:type="GList*"/></return-value>
        </function>
        <function name="make" c:identifier="foo_make">
          <return-value transfer-ownership="none"><doc>a floating reference to a new #GVariant</doc>
            <type name="GLib.Variant" c:type="GVariant*"/></return-value>
        </function>
        <function name="parse" c:identifier="foo_parse">
          <return-value transfer-ownership="none"><doc>A newly created `GVariant`</doc>
            <type name="GLib.Variant" c:type="GVariant*"/></return-value>
        </function>
        <function name="put" c:identifier="foo_put">
          <doc>Stores @value. If @value is floating, it is consumed.</doc>
          <return-value transfer-ownership="none"><type name="none" c:type="void"/></return-value>
          <parameters>
            <parameter name="key" transfer-ownership="none"><type name="GLib.Variant" c:type="GVariant*"/></parameter>
            <parameter name="value" transfer-ownership="none"><type name="GLib.Variant" c:type="GVariant*"/></parameter>
          </parameters>
        </function>
        <function name="put_at" c:identifier="foo_put_at">
          <doc>Like foo_put() but also takes a position.</doc>
          <return-value transfer-ownership="none"><type name="none" c:type="void"/></return-value>
          <parameters>
            <parameter name="at" transfer-ownership="none"><type name="gint" c:type="gint"/></parameter>
            <parameter name="key" transfer-ownership="none"><type name="GLib.Variant" c:type="GVariant*"/></parameter>
            <parameter name="value" transfer-ownership="none"><type name="GLib.Variant" c:type="GVariant*"/></parameter>
          </parameters>
        </function>
        <function name="put_twice" c:identifier="foo_put_twice">
          <doc>Like foo_put_at() but twice.</doc>
          <return-value transfer-ownership="none"><type name="none" c:type="void"/></return-value>
          <parameters>
            <parameter name="value" transfer-ownership="none"><type name="GLib.Variant" c:type="GVariant*"/></parameter>
          </parameters>
        </function>
        <function name="hold_like" c:identifier="foo_hold_like">
          <doc>Like foo_put() but @value is never floating.</doc>
          <return-value transfer-ownership="none"><type name="none" c:type="void"/></return-value>
          <parameters>
            <parameter name="value" transfer-ownership="none"><type name="GLib.Variant" c:type="GVariant*"/></parameter>
          </parameters>
        </function>
        <function name="hold" c:identifier="foo_hold">
          <return-value transfer-ownership="none"><type name="none" c:type="void"/></return-value>
          <parameters>
            <parameter name="key" transfer-ownership="none"><type name="Thing" c:type="FooThing*"/></parameter>
            <parameter name="value" transfer-ownership="none"><type name="Thing" c:type="FooThing*"/></parameter>
          </parameters>
        </function>
        <function name="receive" c:identifier="foo_receive" throws="1">
          <return-value transfer-ownership="none"><type name="gssize" c:type="gssize"/></return-value>
          <parameters>
            <parameter name="messages" direction="out" transfer-ownership="full"><type name="utf8" c:type="char**"/></parameter>
          </parameters>
        </function>
        <function name="load" c:identifier="foo_load" throws="1">
          <return-value transfer-ownership="none"><type name="gboolean" c:type="gboolean"/></return-value>
          <parameters>
            <parameter name="contents" direction="out" transfer-ownership="full"><type name="utf8" c:type="char**"/></parameter>
          </parameters>
        </function>
        <function name="match" c:identifier="foo_match" throws="1">
          <doc>Like a regex match: @info is set even if the function returns %FALSE.</doc>
          <return-value transfer-ownership="none"><type name="gboolean" c:type="gboolean"/></return-value>
          <parameters>
            <parameter name="info" direction="out" transfer-ownership="full"><type name="Info" c:type="FooInfo**"/></parameter>
          </parameters>
        </function>
        <function name="fill" c:identifier="foo_fill" throws="1">
          <return-value transfer-ownership="none"><type name="none" c:type="void"/></return-value>
          <parameters>
            <parameter name="out" direction="out" transfer-ownership="full"><type name="utf8" c:type="char**"/></parameter>
          </parameters>
        </function>
      </namespace>
    </repository>
    """)


def test_gir_records(tmp_path: Path) -> None:
    path = tmp_path / "Foo-1.0.gir"
    path.write_text(GIR)
    records = parse_gir(str(path))
    assert records["foo_thing_new"] == {"returns": "owned"}
    assert records["foo_thing_get_name"] == {"returns": "borrowed"}
    # The instance parameter is argument 0: the child is argument 1, the out parameter 2.
    assert records["foo_thing_adopt"] == {"arguments": {"1": "consume", "2": "acquire-out"}}
    # No transfer annotation (not introspectable) says nothing, unless the documentation does.
    assert records["foo_split"] == {"returns": "owned"}
    assert "foo_nth" not in records
    # A floating GVariant is its creator's until a call documented to sink it takes it.
    assert records["foo_make"] == {"returns": "owned"}
    assert records["foo_put"] == {"arguments": {"1": "sink-floating"}}
    # "Like foo_put()": the parameter of the same name is sunk as foo_put sinks it, at its own
    # position, through a chain of such functions too; a doc speaking of floating values itself wins.
    assert records["foo_put_at"] == {"arguments": {"2": "sink-floating"}}
    assert records["foo_put_twice"] == {"arguments": {"0": "sink-floating"}}
    assert "foo_hold_like" not in records
    assert records["foo_parse"] == {"returns": "owned"}  # transfer none, "newly created": floating
    assert floating_results(str(path)) == ["foo_make", "foo_parse"]
    # A throwing function fills its out parameters on success only, whatever its result's type
    # (a gssize >= 0 here): no acquisition; a void one has no result to say, so it always fills.
    assert "foo_receive" not in records
    assert records["foo_fill"] == {"arguments": {"0": "acquire-out"}}
    # A gboolean one fills them where it returns TRUE (g_file_get_contents), or on both results
    # where its documentation says so (g_regex_match_full's match_info).
    assert records["foo_load"] == {"arguments": {"0": {"effect": "acquire-out", "when": "nonzero"}}}
    assert records["foo_match"] == {"arguments": {"0": "acquire-out"}}
    assert gir_records(PRESETS["glib"].conventions, {"foo_load": records["foo_load"]}, "t")["foo_load"].conditional


def test_installed_gir(tmp_path: Path) -> None:
    """Another library's installed .gir gives a callee its records where a system header of that
    library declares it: the header's folder or one of the two above holds the file's c:include."""
    from refcheck.conventions.installed import gir_of, installed, records

    gir_dir, include = tmp_path / "gir-1.0", tmp_path / "include" / "foo-1.0" / "foo"
    gir_dir.mkdir()
    include.mkdir(parents=True)
    (include / "foo.h").write_text("")
    (include / "foo-thing.h").write_text("")
    (gir_dir / "Foo-1.0.gir").write_text(GIR.replace('<namespace', '<c:include name="foo/foo.h"/>\n  <namespace', 1))
    (gir_dir / "GLib-2.0.gir").write_text(GIR)  # GLib's own: the committed table, never read here
    (gir_dir / "Broken-1.0.gir").write_text('<c:include name="foo/foo.h"/><repository')
    found = installed((str(gir_dir),))
    assert [os.path.basename(g.path) for g in found] == ["Broken-1.0.gir", "Foo-1.0.gir"]
    foo = found[1]
    assert gir_of(found[1:], str(include / "foo-thing.h")) == foo
    assert gir_of(found[1:], str(tmp_path / "elsewhere.h")) is None
    # Kept per tuple of files (the same tuple asked again, then another, then the first's equal).
    both = tuple(found)
    assert gir_of(both, str(include / "foo-thing.h")) == found[0]  # Broken names foo/foo.h too, first
    assert gir_of(both, str(include / "foo-thing.h")) == found[0]
    assert gir_of(found[1:], str(include / "foo-thing.h")) == foo
    assert gir_of(tuple(found), str(include / "foo-thing.h")) == found[0]
    conv = PRESETS["glib"].conventions
    assert records(conv, foo, gir_records)["foo_thing_new"].returns is Returns.OWNED
    assert records(conv, found[0], gir_records) == {}  # a broken file of the system's says nothing


def test_installed_gir_of_two_versions(tmp_path: Path) -> None:
    """Two versions of one library name the same header (Soup-2.4.gir and Soup-3.0.gir:
    `libsoup/soup.h`, each in its own `/usr/include/libsoup-N`): the .gir whose package names a
    folder of the header's path is the one, not the first by name."""
    from refcheck.conventions.installed import gir_of, installed

    gir_dir = tmp_path / "gir-1.0"
    gir_dir.mkdir()
    for version in ("2.4", "3.0"):
        folder = tmp_path / "include" / f"foo-{version}" / "foo"
        folder.mkdir(parents=True)
        (folder / "foo.h").write_text("")
        (folder / "foo-session.h").write_text("")
        head = f'<package name="foo-{version}"/>\n  <c:include name="foo/foo.h"/>\n  <namespace'
        (gir_dir / f"Foo-{version}.gir").write_text(GIR.replace("<namespace", head, 1))
    found = installed((str(gir_dir),))
    assert [g.packages for g in found] == [("foo-2.4",), ("foo-3.0",)]
    for version, gir in zip(("2.4", "3.0"), found):
        assert gir_of(found, str(tmp_path / "include" / f"foo-{version}" / "foo" / "foo-session.h")) == gir


def test_bad_gir_and_table(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gir"
    bad.write_text("<repository")
    with pytest.raises(GirError, match="cannot read"):
        parse_gir(str(bad))
    with pytest.raises(GirError, match="bad argument"):
        load_table('{"summaries": {"f": {"arguments": {"x": "sink"}}}}', "t.json")


def test_bundled_table_and_preset() -> None:
    version, table, floating = bundled()
    assert version[0].isdigit() and len(table) > 1000 and "g_variant_new_int32" in floating
    conv = PRESETS["glib"].conventions
    assert conv.classify("g_file_new_for_path") == "acquire"
    assert conv.classify("g_variant_new_string") == "acquire"  # floating: owned until sunk
    assert conv.matches("floating", "g_variant_new_string") and not conv.matches("floating", "g_variant_new_stringx")
    assert conv.summary("g_variant_builder_add_value").arguments == ((1, Effect.SINK_FLOATING),)
    assert conv.classify("g_strsplit") == "acquire"  # no GIR transfer; documented newly-allocated
    assert conv.classify("g_array_new") == "acquire"  # no GIR transfer: the name's pattern
    assert conv.classify("g_param_spec_int") is None
    assert conv.classify("g_object_ref") == "retain"  # the pattern's role, not GIR's "full"
    assert conv.classify("g_list_prepend") == "reallocate"
    assert conv.sink_arguments("g_signal_connect_data", 6) == {3}
    # Containers keep their elements as a store does: owned or borrowed alike (no RC009).
    assert conv.summary("g_hash_table_insert").arguments == ((1, Effect.STORE), (2, Effect.STORE))
    assert conv.sink_arguments("g_task_set_task_data", 3) == {1}  # data, then its notify
    assert conv.summary("g_queue_pop_head").returns is Returns.UNKNOWN  # an element: may be owned
    assert conv.summary("g_file_get_contents").arguments == ()  # filled only on TRUE
    assert conv.summary("g_option_context_parse").arguments == ()  # argc a number, argv in place
    s = conv.summary("g_string_append")
    assert s.returns.value == "argument" and s.returned == 0
    # A library record: only for callees GLib's headers declare (the frontend asks with library=).
    assert conv.summary("g_file_new_for_path", library=False).source.value == "conventions"
    assert conv.is_primitive("glib_autoptr_clear_FooThing")


def _check(tmp_path: Path, system_headers: bool) -> list:
    sys_dir = tmp_path / "sys"
    sys_dir.mkdir()
    (sys_dir / "lib.h").write_text("#include <stdlib.h>\nstatic inline void lib_bad(void) { char *p = malloc(1); }\n")
    conv = replace(PRESETS["th"].conventions, system_headers=system_headers)
    return CUnit(tmp_path).check_text('#include <lib.h>\nvoid mine(void) { lib_bad(); }\n', "u.c", conv,
                                      ["-isystem", str(sys_dir)]).findings


def test_system_headers_skipped_unless_asked(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert _check(tmp_path / "a", False) == []
    assert [f.rule for f in _check(tmp_path / "b", True)] == ["RC001"]


def test_system_dirs() -> None:
    from refcheck.frontend.unit import in_system_dir
    assert in_system_dir("/usr/include/glib-2.0/glib/gmem.h")
    assert not in_system_dir(os.path.abspath(__file__))


@pytest.mark.skipif(not os.path.exists("/usr/share/gir-1.0/GLib-2.0.gir"), reason="GLib's GIR data is not installed")
def test_table_regenerates(tmp_path: Path) -> None:
    from tools.glib_gir import main
    out = tmp_path / "t.json"
    assert main(["-o", str(out)]) == 0
    assert len(load_table(out.read_text(), "t")[1]) > 1000


def test_transfer_full_parameter_is_owned(tmp_path: Path) -> None:
    """A function its own .gir says takes `child` over (transfer full) owns it from entry: it
    may store or release it, and leaks it on a path that does neither."""
    path = tmp_path / "Foo-1.0.gir"
    path.write_text(GIR)
    base = PRESETS["glib"].conventions
    from dataclasses import replace
    conv = replace(base, summaries=gir_records(base, parse_gir(str(path)), "Foo-1.0.gir"))
    unit = tmp_path / "u.c"
    unit.write_text(textwrap.dedent("""\
        typedef struct FooThing { struct FooThing *child; int n; } FooThing;
        void foo_thing_unref(FooThing *t);
        void foo_thing_adopt(FooThing *self, FooThing *child, char **out)
        {
          if (self->n > 3) {
            foo_thing_unref(child);
            return;
          }
          if (self->n < 0)
            return;
          self->child = child;
        }
        """))
    findings = check_unit(str(unit), Settings(conventions=conv, root=str(tmp_path))).findings
    # The release is no RC006 and the store no RC009; the bare return leaks the child.
    assert [(f.rule, f.location.line) for f in findings] == [("RC001", 10)]


def test_transfer_none_setter_keeping_its_own_reference(tmp_path: Path) -> None:
    """foo_hold's .gir says `value` is transfer none; its body refs and stores it (Effect.KEEP):
    the caller's release is fine and later uses are no use after release, while a caller that
    never releases its own reference still leaks it."""
    path = tmp_path / "Foo-1.0.gir"
    path.write_text(GIR)
    base = PRESETS["glib"].conventions
    conv = replace(base, summaries=gir_records(base, parse_gir(str(path)), "Foo-1.0.gir"))
    unit = tmp_path / "u.c"
    unit.write_text(textwrap.dedent("""\
        typedef struct V { struct V *kept; int n; } V;
        V *foo_v_new(void);
        V *foo_v_ref(V *v);
        void foo_v_unref(V *v);
        void use(V *v);
        static V *slot;
        void foo_hold(V *key, V *value)
        {
          if (slot)
            foo_v_unref(slot);
          slot = value ? foo_v_ref(value) : 0;
          use(key);
        }
        void fine(V *k)
        {
          V *v = foo_v_new();
          foo_hold(k, v);
          foo_v_unref(v);
          use(v);
        }
        void leaks(V *k)
        {
          V *v = foo_v_new();
          foo_hold(k, v);
        }
        """))
    findings = check_unit(str(unit), Settings(conventions=conv, root=str(tmp_path))).findings
    assert [(f.rule, f.function, f.location.line) for f in findings] == [("RC001", "leaks", 25)]


def test_frame_memory_is_untracked_in_every_preset() -> None:
    """alloca's result is the frame's (Returns.UNKNOWN), for the TH defaults and the glib
    preset alike; g_set_object is a replace record."""
    for conv in (PRESETS["th"].build(), PRESETS["glib"].build()):
        for name in ("__builtin_alloca", "alloca", "__builtin_alloca_with_align"):
            assert conv.summary(name).returns is Returns.UNKNOWN, (name, conv)
        assert conv.summary("my_alloca_helper").returns is not Returns.UNKNOWN
    assert PRESETS["glib"].build().summary("g_set_object").effect_of(0) is Effect.REPLACE


def test_unlinked_list_nodes_and_table_values() -> None:
    """g_list_remove_link reallocates the list and detaches its link, g_list_free_1 frees one
    node, g_hash_table_iter_replace keeps its value, g_string_free_to_bytes takes its GString
    (glib29)."""
    conv = PRESETS["glib"].build()
    for kind in ("list", "slist"):
        s = conv.summary(f"g_{kind}_remove_link")
        assert (s.returns, s.effect_of(1)) == (Returns.REALLOCATED, Effect.DETACH)
        assert conv.summary(f"g_{kind}_free_1").role == "release"
    assert conv.summary("g_list_delete_link").effect_of(1) is not Effect.DETACH
    assert conv.summary("g_hash_table_iter_replace").effect_of(1) is Effect.STORE
    s = conv.summary("g_string_free_to_bytes")
    assert (s.returns, s.effect_of(0)) == (Returns.OWNED, Effect.CONSUME)


def test_definitions_kept_per_file_verdict(tmp_path: Path) -> None:
    """The definitions a unit checks: each file's verdict (clang's -isystem, a SYSTEM_DIRS name,
    the user's -I) is asked once and holds for every definition in it, in source order."""
    from refcheck.frontend.unit import parse

    for d in ("sys", "own"):
        (tmp_path / d).mkdir()
    (tmp_path / "sys" / "s.h").write_text("static inline int s1(void) { return 1; }\nint s_decl(void);\n"
                                          "static inline int s2(void) { return 2; }\n")
    (tmp_path / "own" / "o.h").write_text("static inline int o1(void) { return 1; }\n"
                                          "static inline int o2(void) { return s2(); }\n")
    unit = tmp_path / "u.c"
    unit.write_text('#include <s.h>\n#include "o.h"\n#include <stdlib.h>\n'
                    "int mine(void) { return s1() + o1(); }\nint s_decl(void) { return 0; }\n")
    args = ["-isystem", str(tmp_path / "sys"), "-I", str(tmp_path / "own")]
    names = lambda system: [f.spelling for f in parse(str(unit), args, system_headers=system).functions]  # noqa: E731
    assert names(False) == ["o1", "o2", "mine", "s_decl"]
    every = names(True)  # with stdlib.h's inline definitions among them
    assert [n for n in every if n[0] in "som"] == ["s1", "s2", "o1", "o2", "mine", "s_decl"]
    assert len(every) > 6


def test_scanner_default_full_read_from_the_structure() -> None:
    """g-ir-scanner's defaulted `full` (a linked record's node its method returns, a record an
    iterator gives out) is borrowed where no doc text names ownership; documented ones stay."""
    path = Path(__file__).resolve().parents[2] / "fixtures" / "gir" / "Restish-1.0.gir"
    records = parse_gir(str(path))
    assert records["rs_xml_node_find"] == {"returns": "borrowed"}
    assert "rs_params_iter_next" not in records  # both outs: a const string and the params' own
    assert records["rs_xml_node_dig"] == {"returns": "owned"}  # "a new reference ... unref it"
    assert records["rs_xml_parse"] == {"returns": "owned"}  # a function, not the node's method
    # "the caller owns it", filled when the gboolean it returns says so (an iterator's next)
    assert records["rs_params_iter_detach"] == {"arguments": {"1": {"effect": "acquire-out", "when": "nonzero"}}}
