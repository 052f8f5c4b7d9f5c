"""Which parses keep the detailed preprocessing record (frontend/unit.py: `repeats`,
`_record_pays`), and what a parse lists: the record is kept only where instance keys can use it
(a file entered more than once, in C), and a unit checked without it gets the same findings."""

from __future__ import annotations

import pytest

from cunit import CUnit
from refcheck.conventions import Conventions
from refcheck.frontend import unit
from refcheck.reuse import plan

CONV = Conventions(acquire=[r"_new$"], release=[r"_free$"])

DECLS = """
typedef struct F { int n; } F; typedef struct D { int n; } D;
F *F_new(void); void F_free(F *); void F_use(F *);
D *D_new(void); void D_free(D *); void D_use(D *);
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define TN(x) CAT(T, x)
"""
# A generic body: one leak, one clean function, entered once per type.
GENERIC = """
int TN(leaks)(int k) {
  T *t = TN(new)();
  if (k) return 1;
  TN(free)(t);
  return 0;
}
void TN(keeps)(void) {
  T *t = TN(new)();
  TN(use)(t);
  TN(free)(t);
}
"""
TWICE = '#define T F\n#include "gen.h"\n#undef T\n#define T D\n#include "gen.h"\n#undef T\n'
PLAIN = """
int leaks(int k) {
  F *t = F_new();
  if (k) return 1;
  F_free(t);
  return 0;
}
"""


def _findings(result):
    return [(f.rule, f.location.file, f.location.line, f.function, f.message) for f in result.findings]


@pytest.fixture
def c_unit(tmp_path):
    return CUnit(tmp_path)


def test_a_header_named_twice_or_a_computed_include_is_a_repeat(c_unit):
    d = c_unit.directory
    c_unit.write("gen.h", GENERIC)
    assert unit.repeats(str(c_unit.write("twice.c", DECLS + TWICE)), [])
    c_unit.write("sub/inst.h", DECLS + TWICE.replace('"gen.h"', '"../gen.h"'))
    # Named once in the unit, twice in a project header found through -I.
    assert unit.repeats(str(c_unit.write("deep.c", '#include "inst.h"\n')), ["-I", str(d / "sub")])
    assert unit.repeats(str(c_unit.write("deep2.c", '#include "inst.h"\n')), [f"-iquote{d / 'sub'}"])
    assert not unit.repeats(str(d / "deep.c"), [])  # inst.h is not found: nothing more to read
    assert unit.repeats(str(c_unit.write("macro.c", '#define G "gen.h"\n#include G\n')), [])
    # Once each, a directive only at the start of a line, #include_next is no macro's value.
    assert not unit.repeats(str(c_unit.write("plain.c", '#include "gen.h"\n#include <stdio.h>\n'
                                                        '/* #include "gen.h" */ int x;\n'
                                                        '#include_next <stdio.h>\n')), [])


def test_headers_named_in_angle_brackets_are_not_read(c_unit):
    c_unit.write("sub/inst.h", DECLS + TWICE.replace('"gen.h"', '"../gen.h"'))
    path = c_unit.write("angle.c", "#include <inst.h>\n")
    assert not unit.repeats(str(path), ["-I", str(c_unit.directory / "sub")])


def test_a_generic_unit_keeps_the_record_and_its_expansions(c_unit):
    c_unit.write("gen.h", GENERIC)
    parsed = c_unit.parse(DECLS + TWICE, name="g.c", clean=True)
    assert parsed.detailed and parsed.language == "c"
    assert {c.spelling for c in parsed.expansions} >= {"TN"}
    assert all(c.kind.name not in ("MACRO_DEFINITION", "INCLUSION_DIRECTIVE", "MACRO_INSTANTIATION")
               for c in parsed.top)
    assert sorted(f.spelling for f in parsed.functions) == ["D_keeps", "D_leaks", "F_keeps", "F_leaks"]


def test_a_unit_with_no_repeat_has_no_record_and_the_same_findings(c_unit, monkeypatch):
    c_unit.write("plain.c", DECLS + PLAIN)
    parsed = c_unit.parse("plain.c", clean=True)
    assert not parsed.detailed and parsed.expansions == []
    without = c_unit.check("plain.c", CONV)
    monkeypatch.setattr(unit, "repeats", lambda path, args: True)
    assert c_unit.parse("plain.c").detailed
    with_record = c_unit.check("plain.c", CONV)
    assert _findings(without) == _findings(with_record) and [f[0] for f in _findings(without)] == ["RC001"]


def test_cpp_never_keeps_the_record(c_unit):
    c_unit.write("gen.h", "int g(void);\n")
    parsed = c_unit.parse('#include "gen.h"\n#include "gen.h"\nnamespace n { struct S { int f() { return 1; } }; }\n'
                          "int h() { return n::S().f(); }\n", name="c.cpp", clean=True)
    assert not parsed.detailed and parsed.language == "c++"
    assert sorted(f.spelling for f in parsed.functions) == ["f", "h"]  # a method in a namespace's class


def _angle_generic(c_unit):
    """A generic unit `repeats` cannot see: its instantiations are in a header named in <>."""
    c_unit.write("gen.h", GENERIC)
    c_unit.write("sub/inst.h", DECLS + TWICE.replace('"gen.h"', '"../gen.h"'))
    c_unit.write("g.c", "#include <inst.h>\n")
    return ["-I", str(c_unit.directory / "sub")]


def test_a_missed_generic_unit_is_parsed_again_when_its_keys_pay(c_unit, monkeypatch):
    args = _angle_generic(c_unit)
    monkeypatch.setattr(unit, "SHARED_FOR_RECORD", 2)  # this unit has two definitions that share
    monkeypatch.setattr(unit, "SAVED_PER_SHARE", 1e6)
    parses = []
    real = unit._parse
    monkeypatch.setattr(unit, "_parse", lambda path, a, record: parses.append(record) or real(path, a, record))
    parsed = c_unit.parse("g.c", args, clean=True)
    assert parsed.detailed and parses == [False, True] and parsed.expansions
    # Not when the second parse would cost more than the builds the keys save.
    monkeypatch.setattr(unit, "SAVED_PER_SHARE", 1e-9)
    parses.clear()
    assert not c_unit.parse("g.c", args, clean=True).detailed and parses == [False]
    monkeypatch.setattr(unit, "SAVED_PER_SHARE", 1e6)
    monkeypatch.setattr(unit, "SHARED_FOR_RECORD", 3)
    parses.clear()
    assert not c_unit.parse("g.c", args, clean=True).detailed and parses == [False]


def test_instance_keys_or_not_the_findings_are_the_same(c_unit, monkeypatch):
    from refcheck.reuse.instances import Instances

    args = _angle_generic(c_unit)
    monkeypatch.setattr(plan, "INSTANCE_KEYS_FROM", 1)
    made = []
    real_init = Instances.__init__
    monkeypatch.setattr(Instances, "__init__", lambda self, *a, **k: made.append(1) or real_init(self, *a, **k))
    without = c_unit.check("g.c", CONV, args)
    assert not made  # parsed without the record: no keys
    monkeypatch.setattr(unit, "SHARED_FOR_RECORD", 2)
    monkeypatch.setattr(unit, "SAVED_PER_SHARE", 1e6)
    keyed = c_unit.check("g.c", CONV, args)
    assert made, "the second parse kept the record: the keys were made"
    assert _findings(without) == _findings(keyed)
    # One finding at the generic body's line (the instantiations report it once); both shared.
    assert [(f[0], f[2]) for f in _findings(keyed)] == [("RC001", 4)] and keyed.counts["shared"] == 2


def test_the_included_files_are_the_bindings_inclusions(c_unit):
    c_unit.write("a.h", '#include "b.h"\nint a;\n')
    c_unit.write("b.h", "#pragma once\nint b;\n")
    c_unit.write("sys/s.h", "int s;\n")
    path = c_unit.write("i.c", '#include "a.h"\n#include "b.h"\n#include <s.h>\n#include <s.h>\n#include <stddef.h>\n')
    parsed = c_unit.parse("i.c", ["-isystem", str(c_unit.directory / "sys")], clean=True)
    expected = {str(path)} | {i.include.name for i in parsed.tu.get_includes()}
    assert parsed.includes == sorted(expected)
    assert {p.rsplit("/", 1)[-1] for p in parsed.includes} >= {"i.c", "a.h", "b.h", "s.h", "stddef.h"}


def test_functions_a_macro_defines_at_one_place_are_no_reason_to_parse_again(c_unit, monkeypatch):
    # GLib's G_DEFINE_TYPE: several different functions at one call site, no instance to share.
    monkeypatch.setattr(unit, "SHARED_FOR_RECORD", 2)
    monkeypatch.setattr(unit, "SAVED_PER_SHARE", 1e6)
    parsed = c_unit.parse("#define THREE(n) int n##_a(void) { return 1; } int n##_b(void) { return 2; } "
                          "int n##_c(void) { return 3; }\nTHREE(x)\nTHREE(y)\n", name="m.c", clean=True)
    assert len(parsed.functions) == 6 and not parsed.detailed
