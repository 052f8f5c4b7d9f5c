"""The frontend alone: builtin headers, languages, parse errors, definitions."""

from __future__ import annotations

import os
import re

import pytest

from refcheck.frontend import headers
from cunit import CUnit, rule_lines
from refcheck.frontend.unit import FrontendError, parse


@pytest.fixture
def fresh_headers(monkeypatch):
    headers.find_builtin_headers.cache_clear()
    monkeypatch.delenv("REFCHECK_RESOURCE_DIR", raising=False)
    yield monkeypatch
    headers.find_builtin_headers.cache_clear()


def test_a_clang_resource_dir_is_found_and_stddef_resolves(tmp_path):
    found = headers.find_builtin_headers()
    assert found.ok, found
    parsed = CUnit(tmp_path).parse(
        "#include <stddef.h>\n#include <stdarg.h>\n#include <stdlib.h>\n#include <string.h>\n"
        "size_t f(void) { return offsetof(struct { int a; int b; }, b); }\n", name="a.c")
    assert parsed.errors == [] and not parsed.partial
    assert [f.spelling for f in parsed.functions] == ["f"]


def test_the_clang_tidy_wheel_is_found_through_its_metadata_and_matches_libclang(fresh_headers):
    lib = headers.libclang_info()
    assert lib.major is not None and os.path.isfile(lib.path), lib
    found = headers.find_builtin_headers()
    assert found.source is headers.Source.WHEEL, found
    assert found.major == lib.major and not found.warning
    assert found.path.replace(os.sep, "/").endswith(f"clang_tidy/data/lib/clang/{lib.major}")
    assert os.path.isfile(os.path.join(found.path, "include", "stdatomic.h"))
    assert found.args == ("-resource-dir", found.path)


def _resource_dir(root, version):
    d = root / "lib" / "clang" / str(version)
    (d / "include").mkdir(parents=True)
    (d / "include" / "stddef.h").write_text("/* stand-in */\n")
    return d


def test_the_environment_variable_overrides_the_wheel(fresh_headers, tmp_path):
    real = headers.find_builtin_headers()
    headers.find_builtin_headers.cache_clear()
    fresh_headers.setenv("REFCHECK_RESOURCE_DIR", real.path)
    found = headers.find_builtin_headers()
    assert found.source is headers.Source.ENV and found.path == real.path and not found.warning


def test_headers_of_another_major_version_are_used_with_a_warning(fresh_headers, tmp_path):
    major = headers.libclang_info().major
    other = _resource_dir(tmp_path, major - 1)
    fresh_headers.setenv("REFCHECK_RESOURCE_DIR", str(other))
    found = headers.find_builtin_headers()
    assert found.ok and found.major == major - 1
    assert f"version {major - 1} with libclang {major}" in found.warning
    assert f"clang-tidy=={major}.*" in found.warning


def test_a_system_install_of_libclangs_version_beats_a_wheel_of_another(fresh_headers, tmp_path):
    major = headers.libclang_info().major
    wheel = _resource_dir(tmp_path / "wheel", major + 1)
    system = _resource_dir(tmp_path / "usr", major)
    fresh_headers.setattr(headers, "_wheel_dirs", lambda: (f"{major + 1}.1.0", [str(wheel)]))
    fresh_headers.setattr(headers, "SYSTEM_GLOBS", (str(tmp_path / "usr" / "lib" / "clang" / "*"),))
    found = headers.find_builtin_headers()
    assert found.source is headers.Source.SYSTEM and found.path == str(system) and not found.warning
    assert "wheel" in found.why


def test_no_headers_at_all_stops_every_parse_with_a_clear_message(fresh_headers, tmp_path):
    fresh_headers.setattr(headers, "_wheel_dirs", lambda: ("", []))
    fresh_headers.setattr(headers, "SYSTEM_GLOBS", (str(tmp_path / "none" / "*"),))
    found = headers.find_builtin_headers()
    assert not found.ok and found.args == ()
    assert "stddef.h" in found.problem and "pip install 'clang-tidy==" in found.problem
    src = tmp_path / "a.c"
    src.write_text("int f(void) { return 0; }\n")
    with pytest.raises(FrontendError, match="no clang builtin headers"):
        parse(str(src), [])


def test_an_override_that_is_not_a_resource_dir_is_refused(fresh_headers, tmp_path):
    fresh_headers.setenv("REFCHECK_RESOURCE_DIR", str(tmp_path))
    found = headers.find_builtin_headers()
    assert not found.ok and str(tmp_path) in found.problem


def test_parse_errors_are_tool_errors_and_parsed_functions_are_still_checked(tmp_path):
    result = CUnit(tmp_path).check_text("typedef struct T T;\nT *T_new(void);\nvoid T_free(T *t);\n"
                                        "void ok(void) { T *t = T_new(); }\n"
                                        "void bad(void) { int x = ; }\n", "broken.c")
    assert any(e.file == "broken.c" and e.line == 5 and "expected expression" in e.message
               for e in result.errors)
    assert rule_lines(result) == [("RC001", 4)]
    assert "partial parse" in result.findings[0].message


def test_a_missing_header_is_reported_with_its_name(tmp_path):
    result = CUnit(tmp_path).check_text('#include "nowhere.h"\nint f(void) { return 0; }\n', "m.c")
    assert any("nowhere.h" in e.message and e.file == "m.c" for e in result.errors)


def test_binary_and_missing_files_are_refused_with_a_reason(tmp_path):
    blob = tmp_path / "blob.c"
    blob.write_bytes(b"\x7fELF\x00\x00\x01")
    with pytest.raises(FrontendError, match="binary"):
        parse(str(blob), [])
    with pytest.raises(FrontendError, match="no such file"):
        parse(str(tmp_path / "nope.c"), [])


def test_cuda_units_parse_kernels_and_launches(tmp_path):
    parsed = CUnit(tmp_path).parse("__global__ void k(float *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
                                   " if (i < n) p[i] = 0; }\n"
                                   "int run(float *p, int n) { k<<<(n + 255) / 256, 256>>>(p, n);"
                                   " return cudaGetLastError() == cudaSuccess ? 0 : -1; }\n", name="k.cu")
    assert parsed.errors == [], parsed.errors
    assert [f.spelling for f in parsed.functions] == ["k", "run"]


def test_headers_are_checked_through_the_units_that_include_them(tmp_path):
    unit = CUnit(tmp_path)
    unit.write("h.h", "typedef struct T T;\nT *T_new(void);\nstatic inline void leaky(void) { T *t = T_new(); }\n")
    result = unit.check_text('#include "h.h"\nint main(void) { leaky(); return 0; }\n', "u.c")
    assert [(f.location.file, f.location.line) for f in result.findings] == [("h.h", 3)]
    assert os.path.join(str(tmp_path), "h.h") not in result.includes and "h.h" in result.includes


def test_the_private_binding_parts_refcheck_relies_on_still_behave(tmp_path):
    # refcheck.frontend.binding reaches past the binding's public surface (for speed, or for what
    # it does not expose). A binding upgrade that changes any of these must fail here.
    import clang.cindex as ci

    from refcheck.frontend import binding
    assert re.match(r"clang version \d+\.", binding.clang_version())
    from refcheck.frontend.clangutil import binop, constant, unop

    parsed = CUnit(tmp_path).parse(
        "#define ONE 1\nint f(int a) {\n  int x = ({ a + 2; });\n  return -x * ONE;\n}\n", name="b.c")
    fn = parsed.functions[0]
    nodes = list(fn.walk_preorder())
    # The statement expression's kind, which the binding names by number only.
    assert binding.STMT_EXPR.value == 121
    assert [n for n in nodes if n.kind == binding.STMT_EXPR], "({ ... }) no longer reads as StmtExpr"
    # cursor_key: equal for the same node reached twice, distinct across the nodes of a body.
    again = list(fn.walk_preorder())
    assert [binding.cursor_key(n) for n in nodes] == [binding.cursor_key(n) for n in again]
    assert len({binding.cursor_key(n) for n in nodes}) == len(nodes)
    # ... and it agrees with clang_equalCursors (Cursor.__eq__) on every pair.
    for a in nodes:
        for b in nodes + again:
            assert (binding.cursor_key(a) == binding.cursor_key(b)) == (a == b)
    # children_by_key: one walk gives every cursor's children, as get_children lists them.
    walked = binding.children_by_key(fn, {})

    def shape(c, listing):
        return (c.kind, c.spelling, c.extent.start.offset, [shape(k, listing) for k in listing(c)])
    assert shape(fn, lambda c: walked[binding.cursor_key(c)]) == shape(fn, lambda c: list(c.get_children()))
    assert len(walked) == len(nodes)
    # instantiation: (file, line, column, offset), macro uses at their call site.
    ret = next(n for n in nodes if n.kind == ci.CursorKind.RETURN_STMT)
    f, line, column, offset = binding.instantiation(ret.location)
    assert (f.name, line, column, offset) == (str(tmp_path / "b.c"), 4, 3, ret.location.offset)
    # kind_of reads the kind table the `kind` property reads; file_pointer is the CXFile itself.
    assert all(binding.kind_of(n) is n.kind for n in nodes)
    from refcheck.frontend.clangutil import is_expression
    assert all(is_expression(n) == n.kind.is_expression() for n in nodes) and any(map(is_expression, nodes))
    assert binding.file_pointer(f) == binding.file_pointer(fn.location.file) != 0
    # The C functions given signatures in binding.lib().
    ops = {n.kind: n for n in nodes if n.kind in (ci.CursorKind.BINARY_OPERATOR, ci.CursorKind.UNARY_OPERATOR)}
    assert binop(ops[ci.CursorKind.BINARY_OPERATOR]) in ("+", "*")
    assert unop(ops[ci.CursorKind.UNARY_OPERATOR]) == "-"
    lit = next(n for n in nodes if n.kind == ci.CursorKind.INTEGER_LITERAL)
    assert constant(lit) in (1, 2)
    # The plain-struct handle (binding.raw): places, extents, types and references as the
    # binding's objects give them, on every node (macro uses included) and a fresh copy of each.
    for n in nodes + list(fn.walk_preorder()):
        start, end = n.extent.start, n.extent.end
        for (fp, line, column, offset), loc in ((binding.place(n), n.location),
                                                *zip(binding.extent_places(n), (start, end))):
            f = binding.instantiation(loc)[0]
            assert (fp, line, column, offset) == (binding.file_pointer(f) if f else 0, loc.line, loc.column,
                                                  loc.offset)
            assert binding.file_named(fp).name == f.name if f else fp == 0
        t = binding.type_of(n)
        assert (t.kind, bytes(t)[8:]) == (n.type.kind.value, bytes(n.type)[8:])
        assert binding.canonical_kind_id(t) == n.type.get_canonical().kind.value
        fresh = ci.Cursor.from_buffer_copy(bytes(n))
        fresh._tu = n._tu
        ref = binding.referenced(fresh)
        assert fresh.referenced is ref  # kept where the binding keeps its own answer
        expected = n.referenced
        assert (ref is None) == (expected is None)
        if ref is not None:
            assert ref == expected and ref._tu is n._tu
        fresh = ci.Cursor.from_buffer_copy(bytes(n))
        fresh._tu = n._tu
        parent = binding.semantic_parent(fresh)
        assert fresh.semantic_parent is parent
        expected = n.semantic_parent
        assert (parent is None) == (expected is None) and (parent is None or parent == expected)
    assert any(binding.referenced(n) is not None for n in nodes)
    assert any(binding.referenced(n) is None for n in nodes)
    assert binding.semantic_parent(fn) is not None and any(binding.semantic_parent(n) is None for n in nodes)


def test_plain_struct_spelling_and_arguments_agree_with_the_binding(tmp_path):
    # binding.spelling and binding.arguments read what Cursor.spelling and get_arguments read,
    # through binding.raw(); a binding upgrade that changes either must fail here.
    import clang.cindex as ci

    from refcheck.frontend import binding
    fn = CUnit(tmp_path).parse(
        "struct S { int n; };\nint g(int a, struct S *s);\n"
        "int f(struct S *s) { int k = g(s->n, s); return g(k, 0) + sizeof(int); }\n", name="s.c").functions[0]
    nodes = list(fn.walk_preorder())
    calls = [n for n in nodes if n.kind == ci.CursorKind.CALL_EXPR]
    assert len(calls) == 2
    for n in nodes:
        fresh = ci.Cursor.from_buffer_copy(bytes(n))
        fresh._tu = n._tu
        assert binding.spelling(fresh) == n.spelling and fresh.spelling is binding.spelling(fresh)
        args, expected = binding.arguments(n), list(n.get_arguments())
        assert len(args) == len(expected) and all(a == e and a._tu is n._tu for a, e in zip(args, expected))
    assert [len(binding.arguments(c)) for c in calls] == [2, 2]
    assert {binding.spelling(n) for n in nodes} >= {"f", "g", "s", "n", "k"}


def test_locals_whose_declaration_hashes_collide_stay_apart(tmp_path, monkeypatch):
    # The builder once cached a local's value name by `Cursor.hash`, a 32-bit hash that distinct
    # declarations can share: the second local then took the first's name. Every hash made equal
    # must not change a finding.
    import clang.cindex as ci

    CUnit(tmp_path).write("u.c", "typedef struct T T;\nT *T_new(void);\nvoid T_free(T *t);\n"
                          "void leak(void) {\n  T *a = T_new();\n  T *b = T_new();\n  T_free(b);\n}\n"
                          "void shadow(void) {\n  T *a = T_new();\n  { T *a = T_new(); T_free(a); }\n  T_free(a);\n}\n"
                          "void clean(int n) {\n  T *a = T_new();\n  T *b = a;\n  if (n) T_free(b); else T_free(a);\n}\n")

    def findings():
        result = CUnit(tmp_path).check("u.c")
        assert not result.errors, result.errors
        return [(f.rule, f.location.line, f.message) for f in result.findings]

    honest = findings()
    assert [(rule, line) for rule, line, _ in honest] == [("RC001", 8)]
    monkeypatch.setattr(ci.Cursor, "hash", property(lambda self: 7))
    assert findings() == honest


def test_pretty_printing_and_raw_extents_agree_with_libclang(tmp_path):
    # binding.pretty_printed and binding.extent_raw (reuse/instances.py reads both) against the
    # binding's own SourceRange and what the source says.
    from refcheck.frontend import binding

    CUnit(tmp_path).write("once.h", "#pragma once\n")
    parsed = CUnit(tmp_path).parse(  # a header named twice: the parse keeps the detailed record
        "#include \"once.h\"\n#include \"once.h\"\n"
        "#define TWICE(x) ((x) + (x))\ntypedef struct S { int n; float *d; } S;\n"
        "enum { K = 7 };\nint f(S *s, int a) {\n  return TWICE(a) + s->n + K;\n}\n", name="p.c")
    [fn] = parsed.functions
    text = binding.pretty_printed(fn)
    assert text.startswith("int f(S *s, int a) {") and "((a) + (a)) + s->n + K" in text, text
    decls = {c.kind.name: c for c in parsed.tu.cursor.get_children() if c.spelling == "S"}
    assert "float *d;" in binding.pretty_printed(decls["STRUCT_DECL"])
    assert binding.pretty_printed(decls["TYPEDEF_DECL"]) == "typedef struct S S"
    nodes = list(fn.walk_preorder())
    for n in nodes:
        r = n.extent
        assert binding.extent_raw(n) == (r.begin_int_data, r.end_int_data)
    # File locations of one inclusion are its base plus the offset; a macro's have bit 31 set.
    begin, end = binding.extent_raw(fn)
    assert not (begin | end) & binding.MACRO_ID_BIT
    assert end - begin == fn.extent.end.offset - fn.extent.start.offset
    twice = [n for n in nodes if n.kind.name == "PAREN_EXPR"][0]
    assert binding.raw().clang_getCursorLocation(twice).int_data & binding.MACRO_ID_BIT
    # The detailed preprocessing record is on: the macro's expansion is a cursor of the unit.
    assert parsed.detailed and [c.spelling for c in parsed.expansions] == ["TWICE"]
    (b, e) = binding.extent_raw(parsed.expansions[0])
    assert begin <= b < e <= end


def test_record_names_kept_per_build_are_the_uncached_ones(tmp_path):
    """handles.record_name keeps its answers per build by the type's bytes: every pointer type of
    a body (records, typedefs of them, scalars, void) gets what the uncached lookup says."""
    from refcheck.frontend import clangutil, handles

    parsed = CUnit(tmp_path).parse(
        "typedef struct A { int x; } A; struct B { int y; }; typedef A *AP;\n"
        "int f(A *a, struct B *b, AP c, const A *d, float *e, void *g) {\n"
        "  A *h = a; struct B *i = b; return h->x + i->y + c->x + d->x + (int)*e + (g != 0);\n}\n",
        name="r.c")
    fn = parsed.functions[0]
    clangutil.reset_kids(fn)
    try:
        nodes = list(fn.walk_preorder())
        got = [(handles.record_name(n.type), handles.record_name(n.type)) for n in nodes]
        assert clangutil.record_cache()
        assert got == [(handles._record_name(n.type),) * 2 for n in nodes]
        assert {"A", "B"} <= {a for a, _ in got}
    finally:
        clangutil.reset_kids()


def test_source_text_is_reread_when_the_file_is_rewritten(tmp_path):
    """A process that checks a file, rewrites it at the same path and checks it again (the
    differential oracle's batches, a mutation's re-check) must not read the old bytes: stale
    text at cursor extents made a condition's key that of the previous batch (seed 67, big)."""
    import os

    from refcheck.frontend.clangutil import read_source

    path = tmp_path / "unit.c"
    path.write_bytes(b"int a;\n")
    assert read_source(str(path)) == b"int a;\n"
    path.write_bytes(b"long bb;\n")
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # even within the clock's tick
    assert read_source(str(path)) == b"long bb;\n"


def test_source_text_is_kept_for_one_build_only(tmp_path):
    """Within one function's build `read_source` reads a file once (the build asks for the text
    of every expression it lowers); the next build reads it again, so a file rewritten between
    two checks of one process gives its new bytes."""
    import os

    from refcheck.frontend import clangutil

    path = tmp_path / "unit.c"
    path.write_bytes(b"int f(void) { return 0; }\n")
    fn = parse(str(path), []).functions[0]
    clangutil.reset_kids(fn)
    try:
        assert clangutil.read_source(str(path)) == b"int f(void) { return 0; }\n"
        path.write_bytes(b"long g;\n")
        st = os.stat(path)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
        assert clangutil.read_source(str(path)) == b"int f(void) { return 0; }\n"  # kept for this build
    finally:
        clangutil.reset_kids()
    assert clangutil.read_source(str(path)) == b"long g;\n"
    clangutil.reset_kids(fn)
    try:
        assert clangutil.read_source(str(path)) == b"long g;\n"  # a new build reads it again
    finally:
        clangutil.reset_kids()


def test_locations_at_one_place_are_one_object_within_a_build(tmp_path):
    """Within a build the cursors at one place (a macro expansion's, at its call site) share one
    Location (`clangutil._PLACES`), equal to the place libclang gives each; outside a build each
    ask makes its own."""
    from refcheck.findings import Location
    from refcheck.frontend import binding, clangutil

    path = tmp_path / "unit.c"
    path.write_bytes(b"#define M(x) ((x) + (x) * 2)\nint f(int a) { return M(a) + a; }\n")
    fn = parse(str(path), []).functions[0]
    clangutil.reset_kids(fn)
    try:
        cursors = list(fn.walk_preorder())
        got = [clangutil.location(c) for c in cursors]
    finally:
        clangutil.reset_kids()
    for c, loc in zip(cursors, got):
        f, line, column, _ = binding.place(c)
        assert loc == Location(binding.file_named(f).name if f else "", line, column)
    by_place: dict = {}
    for loc in got:
        by_place.setdefault((loc.file, loc.line, loc.column), set()).add(id(loc))
    assert all(len(ids) == 1 for ids in by_place.values())
    assert len(by_place) < len(got)  # M(a)'s cursors share its call site
    a, b = [n for n in fn.walk_preorder() if n.spelling == "a" and n.kind.name == "DECL_REF_EXPR"][:2]  # both M's
    assert clangutil.location(a) == clangutil.location(b) and clangutil.location(a) is not clangutil.location(b)
