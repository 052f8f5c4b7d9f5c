"""The optional compiled libclang walk (refcheck/frontend/_cwalk.c, issue 30 step 3): it gives the
values of its pure-Python twins in binding.py, the build that cannot compile it installs the
package without it, and a run without it says so once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import clang.cindex as ci
import pytest

from cunit import CUnit
from refcheck.frontend import binding, native
from refcheck.frontend.clangutil import PURE_CANONICAL_KIND

REPO = Path(__file__).resolve().parent.parent
COMPILED = native.CHOICE.module is not None
needs_compiled = pytest.mark.skipif(not COMPILED, reason=f"the compiled walk is not active: {native.CHOICE.describe()}")

# Macros (places at the call site), a statement expression, a nested block and a lambda (a root
# whose walk comes back under another key: children_by_key's strays).
SOURCE = """\
#define TWICE(x) ((x) + (x))
#define CALL(f, a) f(a)
struct S { int n; };
enum { BIG = 4000000000u, NEG = -3 };
static const double HALF = 0.5;
static int k300(void) { unsigned char k = 300; return k + BIG + NEG + (int) HALF + (unsigned) -1; }
static int g(int a) { return TWICE(a); }
int f(struct S *s, int k) {
  int x = ({ int y = CALL(g, k); y * 2; });
  for (int i = 0; i < k; i++) { if (s->n > i) x += TWICE(i); else break; }
  return x;
}
"""
CPP = ("int h(int k) { auto l = [k](int v) { return v + k; }; return l(1); }\n"
       "int m(int v) { int w = v; while (w > 1) w /= 2; return w; }\n")


def _shape(found: dict) -> dict:
    return {key: [bytes(c) for c in kids] for key, kids in found.items()}


@needs_compiled
@pytest.mark.parametrize("name,text", [("w.c", SOURCE), ("w.cpp", CPP)])
def test_the_compiled_queries_give_the_python_ones_values(tmp_path, name, text):
    parsed = CUnit(tmp_path).parse(text, name=name)
    compiled = native.CHOICE.module
    values = set()
    roots = list(parsed.functions)
    roots += [n for fn in parsed.functions for n in fn.walk_preorder() if n.kind.name == "LAMBDA_EXPR"]
    assert len(roots) > len(parsed.functions) or name == "w.c"
    for fn in roots:
        pure, fast = binding.PURE["children_by_key"](fn, {}), compiled.children_by_key(fn, {})
        # A body holding a lambda is a walk that breaks off (the lambda's children come back under
        # another key than the one met): both paths leave {} and the build lists children itself.
        broke = any(n.kind.name == "LAMBDA_EXPR" for n in fn.walk_preorder())
        assert _shape(fast) == _shape(pure) and (len(fast) > 1) != broke
        for c in (c for kids in fast.values() for c in kids):
            assert c._tu is fn._tu and getattr(c, binding.KIDS) is fast[bytes(c)]
        for n in list(fn.walk_preorder()) + [c for kids in fast.values() for c in kids]:
            assert compiled.place(n) == binding.PURE["place"](n)
            assert compiled.extent_places(n) == binding.PURE["extent_places"](n)
            assert compiled.canonical_kind(n) == PURE_CANONICAL_KIND(n) == n.type.get_canonical().kind.value
            for as_typed in (False, True):
                assert repr(compiled.folded(n, as_typed)) == repr(binding.PURE["folded"](n, as_typed))
                values.add(compiled.folded(n, as_typed))
            for what in ("referenced", "semantic_parent"):
                # Fresh copies, so that neither finds the other's answer kept on the cursor.
                a, b = (ci.Cursor.from_buffer_copy(bytes(n)) for _ in range(2))
                a._tu = b._tu = n._tu
                got, want = getattr(compiled, what)(a), binding.PURE[what](b)
                assert (got is None) == (want is None) and (got is None or bytes(got) == bytes(want))
                assert got is None or got._tu is n._tu
                assert getattr(compiled, what)(a) is got  # kept where the binding keeps it
    # Signed, unsigned (read as such only as typed) and floating values were among them.
    assert name == "w.cpp" or {4000000000, 4294967295, -3, 0.5, 44} <= values, sorted(values)
    # The binding's names are the compiled ones where the walk is active.
    assert binding.place is compiled.place and binding.children_by_key is compiled.children_by_key
    from refcheck.frontend import clangutil
    assert clangutil.canonical_kind is compiled.canonical_kind


@needs_compiled
@pytest.mark.parametrize("name,text", [("w.c", SOURCE), ("w.cpp", CPP)])
def test_the_compiled_kind_walk_gives_the_python_ones_cursors(tmp_path, name, text):
    """binding.of_kinds (vtables' whole-unit scan): the same cursors in the same order on both
    paths, each keeping its unit, for the root's own kind and for kinds below it."""

    def _place(c):
        return c.kind.value, c.extent.start.offset, c.extent.end.offset

    parsed = CUnit(tmp_path).parse(text, name=name)
    kinds_of = [{ci.CursorKind.BINARY_OPERATOR.value, ci.CursorKind.VAR_DECL.value},
                {ci.CursorKind.FUNCTION_DECL.value, ci.CursorKind.INTEGER_LITERAL.value}, set(), {9999}]
    tops = list(parsed.tu.cursor.get_children())
    seen = 0
    for top in tops:
        for kinds in kinds_of:
            pure, fast = binding.PURE["of_kinds"](top, kinds), native.CHOICE.module.of_kinds(top, frozenset(kinds))
            assert [bytes(c) for c in fast] == [bytes(c) for c in pure]
            # The binding's own walk lists the same cursors (a recursive visit may meet one twice,
            # as under an enum constant's value, and carries each statement's declaration).
            want = {_place(c) for c in top.walk_preorder() if c.kind.value in kinds}
            assert {_place(c) for c in fast} == want
            assert all(c._tu is top._tu for c in fast + pure)
            seen += len(fast)
    assert seen > len(tops) and binding.of_kinds is native.CHOICE.module.of_kinds
    with pytest.raises(TypeError):
        native.CHOICE.module.of_kinds(tops[0], None)


@needs_compiled
@pytest.mark.parametrize("name,text", [("w.c", SOURCE), ("w.cpp", CPP)])
def test_the_compiled_spellings_are_the_bindings(tmp_path, name, text):
    """binding.spellings (handles.counted_types' names): the binding's `spelling` of every
    cursor of the unit, empty and missing names included, on both paths."""
    parsed = CUnit(tmp_path).parse(text, name=name)
    cursors = [c for top in parsed.tu.cursor.get_children() for c in top.walk_preorder()]
    want = [ci.Cursor.from_buffer_copy(bytes(c)).spelling for c in cursors]
    assert native.CHOICE.module.spellings(cursors) == binding.PURE["spellings"](cursors) == want
    assert "" in want and "f" in want or "h" in want
    assert native.CHOICE.module.spellings(()) == [] and binding.spellings is native.CHOICE.module.spellings
    with pytest.raises(TypeError):
        native.CHOICE.module.spellings([cursors[0], b"short"])


@needs_compiled
@pytest.mark.parametrize("name,text", [("w.c", SOURCE), ("w.cpp", CPP)])
def test_the_compiled_top_level_is_the_bindings(tmp_path, name, text):
    """binding.top_level (unit._top_level): the same declarations and macro expansions on both
    paths, in order, each declaration keeping its unit and no expansion holding an attribute (an
    instance dict each: 11 MB on THTensor.c); no macro definition or inclusion among them."""
    path = tmp_path / name
    path.write_text("#include <stddef.h>\n" + text)
    tu = ci.Index.create().parse(str(path), options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    fast, pure = native.CHOICE.module.top_level(tu.cursor), binding.PURE["top_level"](tu.cursor)
    for got, want in zip(fast, pure):
        assert [bytes(c) for c in got] == [bytes(c) for c in want]
    assert all(c._tu is tu.cursor._tu for c in fast[0] + pure[0])
    assert fast[1] or name.endswith(".cpp")  # the C text expands macros (NULL)
    assert not any(hasattr(c, "__dict__") and c.__dict__ for c in fast[1] + pure[1])
    everything = list(tu.cursor.get_children())
    assert [bytes(c) for c in fast[0]] == [bytes(c) for c in everything if not 501 <= c._kind_id <= 503]
    assert [bytes(c) for c in fast[1]] == [bytes(c) for c in everything if c._kind_id == 502]
    assert fast[1] or name == "w.cpp"
    assert binding.top_level is native.CHOICE.module.top_level


@needs_compiled
def test_the_compiled_system_filter_is_the_bindings(tmp_path):
    """binding.outside_system (vtables' top-level filter): the same cursors on both paths for a
    unit with -isystem and -I headers and a file the callable calls a system one; the callable is
    asked once per file, with the CXFile `location_file` gives; cursors without a file (the
    builtin declarations) are left out; a non-cursor is refused."""
    for d, text in (("sys", "int in_sys(int a) { return a; }\nint sys_v;\n"),
                    ("inc", "int in_inc(int a) { return a; }\nint inc_v;\n"),
                    ("own", "int in_own(int a) { return a; }\nint own_v;\n")):
        (tmp_path / d).mkdir()
        (tmp_path / d / f"{d}.h").write_text(text)
    path = tmp_path / "u.c"
    path.write_text('#include <sys.h>\n#include "inc.h"\n#include "own.h"\nint mine(void) { return 0; }\n')
    args = [f"-isystem{tmp_path / 'sys'}", f"-I{tmp_path / 'inc'}", f"-I{tmp_path / 'own'}"]
    tu = ci.Index.create().parse(str(path), args=args)
    tops = list(tu.cursor.get_children())
    for path_name in ("", "own.h"):
        asked: dict[str, list] = {"fast": [], "pure": []}

        def system_file(f, who):
            asked[who].append(f)
            return bool(path_name) and binding.file_named(f).name.endswith(path_name)

        fast = native.CHOICE.module.outside_system(tops, lambda f: system_file(f, "fast"))
        pure = binding.PURE["outside_system"](tops, lambda f: system_file(f, "pure"))
        assert [bytes(c) for c in fast] == [bytes(c) for c in pure]
        assert all(a is b for a, b in zip(fast, [c for c in tops if any(c is k for k in fast)]))
        names = {c.spelling for c in fast}
        want = {"in_inc", "inc_v", "mine"} | ({"in_own", "own_v"} if not path_name else set())
        assert names == want
        assert asked["fast"] == asked["pure"] and len(set(asked["fast"])) == len(asked["fast"])
        assert {binding.location_file(c)[1] for c in tops if binding.location_file(c)[1]} == set(asked["fast"])
    with pytest.raises(TypeError):
        native.CHOICE.module.outside_system([tops[0], b"short"], lambda f: False)
    assert binding.outside_system is native.CHOICE.module.outside_system


@needs_compiled
@pytest.mark.parametrize("name,text", [("w.c", SOURCE), ("w.cpp", CPP + "namespace n { int d(); int d() { return 0; } }\n")])
def test_the_compiled_kind_and_definition_filters_are_the_bindings(tmp_path, name, text):
    """binding.among and binding.definitions (the top-level filters of unit._definitions,
    handles.counted_types, slots.table_functions): the same objects in the same order on both
    paths, for every kind of the unit's cursors, none, an unknown id and a negative one; the
    definitions those clang_isCursorDefinition says are; a non-cursor refused."""
    parsed = CUnit(tmp_path).parse(text, name=name)
    cursors = [c for top in parsed.tu.cursor.get_children() for c in top.walk_preorder()]
    fast, pure = native.CHOICE.module, binding.PURE
    kinds = {c._kind_id for c in cursors}
    for wanted in [set(), {-1, 5000}, *({k} for k in kinds), kinds, {ci.CursorKind.FUNCTION_DECL.value, 99999}]:
        got = fast.among(cursors, wanted)
        assert [id(c) for c in got] == [id(c) for c in pure["among"](cursors, wanted)]
        assert [id(c) for c in got] == [id(c) for c in cursors if c._kind_id in wanted]
    assert [id(c) for c in fast.among(iter(cursors), frozenset(kinds))] == [id(c) for c in cursors]
    got = fast.definitions(cursors)
    assert [id(c) for c in got] == [id(c) for c in pure["definitions"](cursors)]
    assert [id(c) for c in got] == [id(c) for c in cursors if c.is_definition()]
    assert {c.spelling for c in got} >= ({"f", "g"} if name == "w.c" else {"h", "m", "d"})
    assert fast.among((), {1}) == [] and fast.definitions([]) == []
    for query in (lambda: fast.among([cursors[0], b"short"], kinds), lambda: fast.definitions([b"short"])):
        with pytest.raises(TypeError):
            query()
    assert binding.among is fast.among and binding.definitions is fast.definitions


@needs_compiled
@pytest.mark.parametrize("name,text", [("w.c", SOURCE), ("w.cpp", CPP)])
def test_the_compiled_cursor_queries_are_the_bindings(tmp_path, name, text):
    """_cquery.c's twins (the build's operators, names and the listings its walk did not make):
    the values of binding.PURE's on every cursor of the unit, the spelling kept where the binding
    keeps it, the children keeping their unit."""
    parsed = CUnit(tmp_path).parse(text, name=name)
    compiled = native.CHOICE.module
    cursors = [c for top in parsed.tu.cursor.get_children() for c in top.walk_preorder()]
    ops = set()
    for c in cursors:
        for what in ("binary_operator", "unary_operator"):
            got = getattr(compiled, what)(c)
            assert got == binding.PURE[what](c)
            ops.add((what, got))
        # Fresh copies, so that neither finds the other's answer kept on the cursor.
        a, b = (ci.Cursor.from_buffer_copy(bytes(c)) for _ in range(2))
        a._tu = b._tu = c._tu
        got = compiled.spelling(a)
        assert got == binding.PURE["spelling"](b) == ci.Cursor.from_buffer_copy(bytes(c)).spelling
        assert compiled.spelling(a) is got and a.spelling is got  # kept where the binding keeps it
        kids, want = compiled.children(c), binding.PURE["children"](c)
        assert [bytes(k) for k in kids] == [bytes(k) for k in want] and all(k._tu is c._tu for k in kids)
    # `+` (both: 6), `+=` and `-` (w.c: 26, CXUnaryOperator 8) and a non-operator's 0 were among them.
    assert {("binary_operator", 0), ("unary_operator", 0), ("binary_operator", 6)} <= ops
    assert {("binary_operator", 26), ("unary_operator", 8)} <= ops or name == "w.cpp"
    # A cursor with no unit kept and no children lists none, as get_children does; one with
    # children and no unit is the binding's AttributeError.
    bare = ci.Cursor.from_buffer_copy(bytes(next(c for c in cursors if c.kind.name == "INTEGER_LITERAL")))
    assert compiled.children(bare) == [] == binding.PURE["children"](bare)
    orphan = ci.Cursor.from_buffer_copy(bytes(parsed.functions[0]))
    with pytest.raises(AttributeError):
        compiled.children(orphan)
    assert binding.spelling is compiled.spelling and binding.children is compiled.children
    assert binding.binary_operator is compiled.binary_operator


@needs_compiled
@pytest.mark.parametrize("name,text", [("w.c", SOURCE), ("w.cpp", CPP)])
def test_the_compiled_extents_are_the_bindings(tmp_path, name, text):
    """binding.extents_raw (the instance keys' macro ranges): `extent_raw` of every cursor, the
    unit's macro expansions (macro-id bit set) included; a non-cursor refused."""
    path = tmp_path / name
    path.write_text(text)
    tu = ci.Index.create().parse(str(path), options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    cursors = [c for top in tu.cursor.get_children() for c in top.walk_preorder()]
    got = native.CHOICE.module.extents_raw(cursors)
    assert got == binding.PURE["extents_raw"](cursors) == [binding.extent_raw(c) for c in cursors]
    assert any(b & binding.MACRO_ID_BIT for b, _ in got) or name.endswith(".cpp")
    assert native.CHOICE.module.extents_raw(()) == []
    with pytest.raises(TypeError):
        native.CHOICE.module.extents_raw([cursors[0], b"short"])
    assert binding.extents_raw is native.CHOICE.module.extents_raw


@needs_compiled
@pytest.mark.parametrize("name,text", [("w.c", SOURCE), ("w.cpp", CPP)])
def test_the_compiled_strip_is_the_pythons(tmp_path, name, text):
    """clangutil.strip's twin: the same cursor object for every cursor of the unit and each set the
    build strips through, inside a build's walk (its listings) and outside one (clangutil.kids')."""
    from refcheck.frontend import clangutil

    parsed = CUnit(tmp_path).parse(text, name=name)
    compiled = native.CHOICE.module
    moved = 0
    for fn in parsed.functions:
        for inside in (True, False):
            clangutil.reset_kids(fn if inside else None)
            try:
                # (A body holding a lambda is a walk that breaks off: its cursors are the binding's.)
                walked = [c for kids in clangutil._KIDS.values() for c in kids] if inside else []
                cursors = walked or list(fn.walk_preorder())
                for c in cursors:
                    for through in (clangutil.STRIPPED, clangutil._IMPLICIT, frozenset(), {c._kind_id}):
                        got = compiled.strip(c, through)
                        assert got is clangutil.PURE_STRIP(c, through)
                        moved += got is not c
                    assert compiled.strip(c) is clangutil.PURE_STRIP(c)
            finally:
                clangutil.reset_kids()
    assert moved and clangutil.strip is compiled.strip
    with pytest.raises(TypeError):
        compiled.strip()
    with pytest.raises(TypeError):
        compiled.strip(parsed.functions[0], None)


@needs_compiled
def test_the_compiled_queries_refuse_what_is_not_a_cursor():
    with pytest.raises(TypeError):
        native.CHOICE.module.place(b"short")
    with pytest.raises(TypeError):
        native.CHOICE.module.children_by_key(None, [])
    for query in ("binary_operator", "unary_operator", "spelling", "children"):
        with pytest.raises(TypeError):
            getattr(native.CHOICE.module, query)(b"short")


FIRST_QUERY = """\
import sys
import clang.cindex as ci
from refcheck.frontend import binding, native
assert native.CHOICE.module is not None, native.CHOICE.describe()
tu = ci.Index.create().parse("q.c", unsaved_files=[("q.c", "struct S { int n; };\\nint f(struct S *s) { return s->n; }\\n")])
fn = [c for c in tu.cursor.get_children() if c.spelling == "f"][0]
first = getattr(binding, sys.argv[1])(fn)
print(first if isinstance(first, str) else len(first) if isinstance(first, list) else
      first.kind.name if first is not None else None)
"""


@needs_compiled
@pytest.mark.parametrize("query", ["semantic_parent", "referenced", "spelling", "children"])
def test_a_processs_first_compiled_query_may_be_a_cursor_of_a_cursor(query):
    """The may-raise scan of a unit whose other work came from the cache asks `semantic_parent`
    before any walk has loaded libclang's functions: the query loads them itself (a worker died
    of SIGSEGV on a NULL function pointer before)."""
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    done = subprocess.run([sys.executable, "-c", FIRST_QUERY, query], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == {"semantic_parent": "TRANSLATION_UNIT", "referenced": "FUNCTION_DECL",
                                     "spelling": "f", "children": "2"}[query]


# Every alternative of instances._TOKEN and its edges: punctuators by maximal munch, exponents'
# signs, unclosed and escaped quotes, a quote's line end, blanks Python's \s holds (\x1c-\x1f).
TOKEN_EDGES = ["a->b-->c", "x<<=2>>=3<<y>>z", "1e-3+.5f-0x1p+3 1.2.3e+ 1.e", "'\\'' \"a\\\"b\" \"open\n\"",
               "...##..# .", "a&&b||c&=d|=e^=f!=g==h", "$x @ ` \\", "\x1c a \x1f b\x0b c\x0c", "\"\\\n\"",
               "'", "\"", "'\\", "x ? y : z", "<=>=<>", "\x00+\x00=", "", "   ", "_a1 1_a a.b .5.e-1"]
ALPHABET = "ab_1 .eEpP+-<>=!*/%&^|#'\"\\\n\t\x1f;(){}?:"


@needs_compiled
def test_the_compiled_tokenizer_gives_the_regexs_tokens():
    import random

    from refcheck.reuse import instances

    pure, fast = instances.PURE["tokenize"], native.CHOICE.module.tokens
    rng = random.Random(30)
    texts = TOKEN_EDGES + ["".join(rng.choice(ALPHABET) for _ in range(rng.randrange(40))) for _ in range(5000)]
    for text in texts:
        assert fast(text) == pure(text) == instances.tokenize(text), repr(text)
    assert fast("f(\"é\")") is None and instances.tokenize("f(\"é\")") == ["f", "(", '"é"', ")"]


# Printed bodies the key passes read: casts, sizeof of a type and of an expression, nested and
# unclosed parentheses, erased runs, file-scope names in and out of casts, pointers, braces.
KEY_TEXTS = ["struct F { unsigned long n; F *next; } ; F *F_new(void) { unsigned char k = (unsigned char) 300; "
             "D *d = (D *) F_new(); long long x = sizeof(F); return g(d, x, k, H); } unsigned int",
             "int f(int a) { return sizeof a; }", "int f(void) { return sizeof(int) + sizeof(x); }",
             "( ( ) ) ) ( long ( F * ) sizeof", "sizeof", "(unsigned)(D)(const F *)", "", "{ } } { F } F"]
KEY_WORDS = ["(", ")", "{", "}", "*", "sizeof", "F", "D", "H", "g", "unsigned", "long", "char", "const", "x", ";"]


def _key_texts() -> list[list[str]]:
    import random

    from refcheck.reuse import instances

    rng = random.Random(16)
    return [instances.tokenize(t) for t in KEY_TEXTS] + \
        [[rng.choice(KEY_WORDS) for _ in range(rng.randrange(30))] for _ in range(3000)]


@needs_compiled
def test_the_compiled_literal_ranges_are_the_pythons():
    from refcheck.reuse import instances

    words = frozenset({"unsigned", "long", "char", "const", "*", "F", "D"})
    for tokens in _key_texts():
        got = native.CHOICE.module.literal_ranges(tokens, words)
        assert got == instances.PURE["literal_ranges"](tokens, words), tokens
    assert native.CHOICE.module.literal_ranges(["(", "F", ")"], words) == [(1, 2)]
    assert native.CHOICE.module.literal_ranges(["sizeof", "(", "x", ")"], words) is None


@needs_compiled
@pytest.mark.parametrize("erase,keep_all,braced,with_literal,with_runs,with_shapes",
                         [(True, False, False, True, True, True), (True, False, True, False, False, True),
                          (False, True, False, False, False, False), (True, False, False, False, True, False),
                          (True, False, True, True, True, True)])
def test_the_compiled_key_writer_gives_the_pythons_tokens(erase, keep_all, braced, with_literal, with_runs,
                                                          with_shapes):
    from refcheck.reuse import instances
    from refcheck.reuse.ctokens import ERASED

    decls = {"F": [], "D": [], "F_new": [], "g": [], "H": []}
    type_names = {"F", "D"}
    qualifiers = frozenset({"const", "volatile"})
    written = shaped = 0
    for tokens in _key_texts():
        asked = []

        def shape_of(name, literal):
            asked.append((name, literal))
            return f"\x03{name}{literal:d}" if name == "D" or literal else None

        literal = [(i, min(i + 2, len(tokens))) for i in range(0, len(tokens), 3)] if with_literal else ()
        got = []
        for write in (instances.PURE["write_tokens"], native.CHOICE.module.write_tokens):
            numbers, queue, runs, cache = {"H": 0}, [], [] if with_runs else None, {}
            out = write(tokens, erase, literal, keep_all, ERASED, decls, type_names, numbers, queue, runs,
                        (shape_of, cache) if with_shapes else None, braced, qualifiers)
            got.append((out, numbers, queue, runs, cache))
        assert got[0] == got[1], tokens
        assert len(asked) == 2 * len(got[0][4]) and len(set(asked)) == len(asked) // 2  # once per key per writer
        written += sum(w.startswith("\x02") for w in got[0][0])
        shaped += sum(w.startswith("\x03") for w in got[0][0])
        assert not erase or keep_all or with_literal or not ERASED.intersection(got[0][0])
    assert shaped > 100 or not with_shapes
    assert written > 100


@needs_compiled
def test_the_compiled_body_scan_is_the_pythons():
    import random

    from refcheck.reuse import unevaluated

    rng = random.Random(16)
    words = ["(", ")", "[", "]", "{", "}", ";", ":", "for", "x", "?", "(", "{", "}"]
    texts = [["{", "(", "{", "}", ")", "}"], ["for", "(", ";", ";", ")", "{", "}"], ["(", "]"], ["{"], []] + \
        [[rng.choice(words) for _ in range(rng.randrange(25))] for _ in range(5000)]
    paired = 0
    for tokens in texts:
        for start in {0, min(1, len(tokens)), len(tokens) // 2}:
            got = native.CHOICE.module.body_marks(tokens, start)
            assert got == unevaluated.PURE["body_marks"](tokens, start), (tokens, start)
            paired += got[0] is not None and bool(got[0])
    assert paired > 100
    assert native.CHOICE.module.body_marks(["{", "(", "{", "}", ")", "}"], 0) == \
        ({0: 5, 5: 0, 1: 4, 4: 1, 2: 3, 3: 2}, [1, 3, 4, 6], True)


@needs_compiled
def test_the_compiled_fold_scan_is_the_pythons():
    import random

    from refcheck.reuse import instances, unevaluated

    rng = random.Random(16)
    words = ["const", "*", "?", "(", ")", "[", "]", ";", "{", "}", ",", ":", "return", "case", "=", "+=", "x",
             "F", "E", "int", "unsigned", "static", "register", "sizeof", "_y", "\u00e9", "1", "-"]
    decls, type_words = {"F": [], "E": []}, frozenset({"int", "unsigned", "F", "*", "const"})
    args = (decls, type_words, instances._CONDITION_STARTS, unevaluated.ASSIGNMENTS)
    texts = [instances.tokenize(t) for t in ("{ const int c = 3; }", "{ return 1 ? -1 : m; }",
                                             "{ return E ? x : 1; }", "{ const int *p; }")] + \
        [[rng.choice(words) for _ in range(rng.randrange(20))] for _ in range(8000)]
    answers = set()
    for tokens in texts:
        for start in {0, min(2, len(tokens))}:
            got = native.CHOICE.module.folds_through_types(tokens, start, *args)
            assert got == instances.PURE["folds_through_types"](tokens, start, *args), (tokens, start)
            answers.add(got)
    assert answers == {True, False}
    assert [native.CHOICE.module.folds_through_types(t, 0, *args) for t in texts[:4]] == [True, True, True, False]


@needs_compiled
def test_the_compiled_conditional_scan_is_the_pythons():
    import random

    from refcheck.reuse import instances, shapes

    rng = random.Random(16)
    words = ["?", ":", "?", ":", "(", ")", "[", "]", "{", "}", ";", ",", "F", "x", "y", "x", "y", "*", "const", "1",
             "->", ".", "G", "\u00e9"]
    type_names, names = {"F"}, {"F": [], "G": []}
    texts = [instances.tokenize(t) for t in ("{ F *x; return c ? x : 0; }", "{ long x; return c ? x : 0; }",
                                             "{ return c ? p->f : 0; }", "{ return c ? (x) : 0; }")] + \
        [[rng.choice(words) for _ in range(rng.randrange(24))] for _ in range(8000)]
    answers = []
    for tokens in texts:
        got = shapes.named_conditional(tokens, type_names, names)
        assert got == shapes.PURE["named_conditional"](tokens, type_names, names), tokens
        answers.append(got)
    assert answers[:4] == [True, False, True, True] and 1000 < sum(answers) < len(texts) - 1000


@needs_compiled
def test_the_compiled_arm_scan_is_the_pythons():
    import random

    from refcheck.reuse import unevaluated

    rng = random.Random(16)
    words = ["(", ")", "[", "]", "{", "}", ";", "?", ":", "x", "?", ";"]
    answers = set()
    for _ in range(3000):
        tokens = ["{"] + [rng.choice(words) for _ in range(rng.randrange(25))] + ["}"]
        match = unevaluated.PURE["body_marks"](tokens, 0)[0]
        if match is None:
            continue
        tok = tokens + ["\x00"]
        for o in range(1, len(tokens)):
            got = native.CHOICE.module.in_arm(tok, match, 0, o)
            assert got == unevaluated.PURE["in_arm"](tok, match, 0, o), (tokens, o)
            answers.add(got)
    assert answers == {True, False}
    with pytest.raises(KeyError):
        native.CHOICE.module.in_arm(["{", ")", "x"], {}, 0, 2)


def _oracle(pure: bool) -> dict:
    env = dict(os.environ)
    env.pop(native.PURE_ENV, None)
    if pure:
        env[native.PURE_ENV] = "1"
    done = subprocess.run([sys.executable, str(REPO / "tests" / "native_oracle.py")], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@needs_compiled
def test_every_fixture_reads_the_same_on_both_paths():
    # Every parsable fixture unit: its findings in both --errors modes (whole records), the
    # graph of every function it defines and its instance key (the whole tuple), compiled
    # against REFCHECK_PURE_PYTHON=1.
    fast, pure = _oracle(False), _oracle(True)
    assert (fast["path"], pure["path"]) == ("compiled", "forced")
    assert len(fast["units"]) > 100 and sum(len(u["graphs"]) for u in fast["units"].values()) > 1000
    assert sum(not k.endswith(" None") for u in fast["units"].values() for k in u["keys"]) > 1000
    for unit in fast["units"]:
        assert fast["units"][unit] == pure["units"][unit], unit
    assert fast["units"].keys() == pure["units"].keys()


def _copy_tree(dest: Path) -> Path:
    """The files a build reads, without any extension built in the checkout."""
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(REPO / name, dest / name)
    shutil.copytree(REPO / "refcheck", dest / "refcheck",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    return dest


def _in_copy(copy: Path, code: str, **env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", native.PURE_ENV)}
    return subprocess.run([sys.executable, "-c", code], cwd=copy, env={**clean, "PYTHONPATH": str(copy), **env},
                          capture_output=True, text=True, timeout=300)


def _build(copy: Path, **env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "REFCHECK_NO_EXTENSION")}
    return subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=copy,
                          env={**clean, **env}, capture_output=True, text=True, timeout=300)


WHY = "from refcheck.frontend import native; print(native.CHOICE.why.value)"


def test_a_build_whose_compiler_fails_installs_the_pure_package(tmp_path):
    copy = _copy_tree(tmp_path)
    done = _build(copy, CC="false")
    assert done.returncode == 0, done.stderr
    assert "compiled libclang walk was not built" in done.stderr
    assert not list((copy / "refcheck").rglob("_cwalk*.so"))
    assert _in_copy(copy, WHY).stdout.strip() == "not built"
    # A run says so once, on stderr; REFCHECK_PURE_PYTHON=1 chooses that path and silences it.
    (copy / "u.c").write_text("#include <stdlib.h>\nvoid f(void) { void *p = malloc(1); }\n")
    run = "import sys; from refcheck.__main__ import run; sys.argv = ['refcheck', 'check', 'u.c', '--no-cache', '-j1']; run()"
    said = _in_copy(copy, run)
    assert said.stderr.count("compiled libclang walk is not built") == 1, said.stderr
    assert "u.c:2" in said.stdout
    quiet = _in_copy(copy, run, **{native.PURE_ENV: "1"})
    assert "compiled libclang walk" not in quiet.stderr and quiet.stdout == said.stdout


@pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="no C compiler")
def test_a_build_with_a_compiler_gives_the_compiled_walk_and_refuses_a_stale_one(tmp_path):
    copy = _copy_tree(tmp_path)
    done = _build(copy)
    assert done.returncode == 0 and "not built" not in done.stderr, done.stderr
    assert len(list((copy / "refcheck").rglob("_cwalk*.so"))) == 1
    assert _in_copy(copy, WHY).stdout.strip() == "compiled"
    assert _in_copy(copy, WHY, **{native.PURE_ENV: "1"}).stdout.strip() == "forced"
    with open(copy / "refcheck" / "frontend" / "_cwalk.c", "a") as f:
        f.write("/* edited since the build */\n")
    assert _in_copy(copy, WHY).stdout.strip() == "stale"


@needs_compiled
def test_the_compiled_class_key_writer_is_the_pythons():
    # Every function graph of every parsable fixture unit, class-keyed with the compiled writer
    # and with the Python one (renaming._PURE_WRITER) in one process, so that the codes agree.
    sys.path.insert(0, str(REPO / "tests"))
    import native_oracle
    from refcheck.conventions.presets import PRESETS
    from refcheck.frontend.builder import build_cfg
    from refcheck.frontend.handles import counted_types
    from refcheck.frontend.unit import parse
    from refcheck.reuse import renaming

    tf = native_oracle.tf
    compiled, numbered, graphs = renaming._Writer, renaming._numbered, 0
    assert compiled is not renaming._PURE_WRITER and numbered is not renaming._PURE_NUMBERED
    try:
        for unit in tf._parsable_units():
            options = tf._sources(unit)[0].options
            parsed = parse(str(unit), ["-I", str(tf.INCLUDE), *options.clang_args])
            conv = PRESETS[options.preset].conventions
            conv = native_oracle.replace(conv, unit_counted=counted_types(parsed.top, conv))
            for fn in parsed.functions:
                cfg = build_cfg(fn, conv)
                renaming._Writer, renaming._numbered = compiled, numbered
                fast = renaming.class_key(cfg, conv)
                renaming._Writer, renaming._numbered = renaming._PURE_WRITER, renaming._PURE_NUMBERED
                pure = renaming.class_key(cfg, conv)
                assert (fast[0][0] == "unshared") == (pure[0][0] == "unshared"), fn.spelling
                if pure[0][0] != "unshared":
                    assert fast == pure, fn.spelling
                graphs += 1
    finally:
        renaming._Writer, renaming._numbered = compiled, numbered
    assert graphs > 1000


@needs_compiled
def test_the_compiled_class_key_writer_writes_every_value_as_the_python_one():
    from refcheck.findings import Location
    from refcheck.ir.cfg import Node
    from refcheck.reuse import renaming

    loc = Location("é/a.c", 3, 7)
    values = ("name$3#12", None, True, False, 0, -5, 2**70, 1.5, -0.0, float("inf"), loc, (1, "x"), ["y", (None,)],
              frozenset({"a", "b"}), Node("block", loc, text="héllo wörld"), "")
    fast, pure = renaming._Writer(), renaming._PURE_WRITER()
    fast.many(values)
    pure.many(values)
    assert "".join(fast.out) == "".join(pure.out) and fast.sets == pure.sets
    for unshared in ("a\x02b", "c\x03", object(), b"bytes", {"a": 1}):
        for w in (renaming._Writer(), renaming._PURE_WRITER()):
            try:
                w.many((unshared,))
                written = "\x02" in "".join(w.strs) or "\x03" in "".join(w.strs)
            except renaming._Unshared:
                written = True
            assert written, unshared


@needs_compiled
def test_the_compiled_name_numbering_is_the_regexs():
    from refcheck.reuse import renaming

    texts = ["", "a", "9abc", "a#12b c#", "x#y $t3 $", "#5 a#5#6 b##7", "\x02THFloat_add\x03(\x02x\x03=3)\x00",
             "f(a, a, b_2, a#1, a#12)", "a\nb\x1fc" * 50, "é x"]
    for text in texts:
        got = native.CHOICE.module.numbered(text)
        if not text.isascii():
            assert got is None and renaming._numbered(text) == renaming._PURE_NUMBERED(text)
            continue
        want = renaming._PURE_NUMBERED(text)
        assert got == want and list(got[2]) == list(want[2]), text
