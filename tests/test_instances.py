"""Instance keys (refcheck/reuse/instances.py): two definitions share one only when their
graphs are the same up to a renaming of names, decided before either is built.

Each case writes one generic body, includes it once per type as TH does, and asserts both ways:
where the key groups two definitions their graphs have one class key and rename alike, and where
the graphs differ (or a location could), the keys differ. Every case also checks that the engine
gives the same findings with sharing on (instance keys, then class keys) as with it off.
"""

from __future__ import annotations

import pytest

from refcheck.reuse import plan
from refcheck.conventions import Conventions
from cunit import CUnit, check
from generic_units import BODY, CONV, HEADER, INSTANTIATE, apart, engine_agrees, keyed_unit, same_graph, typed
from refcheck.frontend import builder
from refcheck.frontend.clangutil import location
from refcheck.reuse.instances import Instances


@pytest.fixture(autouse=True)
def _keys_for_small_units(monkeypatch):
    # These units are far below the size from which the engine makes instance keys at all.
    monkeypatch.setattr(plan, "INSTANCE_KEYS_FROM", 1)


def test_instantiations_get_one_key_and_pair_their_names(tmp_path, monkeypatch):
    parsed, keys, path = keyed_unit(tmp_path, BODY)
    (kf, names_f), (kd, names_d) = keys["F_sum"], keys["D_sum"]
    assert kf == kd
    pairs = {a: b for a, b in zip(names_f, names_d) if a != b}
    assert pairs["F_sum"] == "D_sum" and pairs["F_new"] == "D_new" and pairs["F_free"] == "D_free"
    assert same_graph(parsed, "F_sum", "D_sum")
    # The second instantiation is never built: its outcome is the first one's, renamed.
    built = []
    real = builder.build_cfg_if_relevant
    monkeypatch.setattr(builder, "build_cfg_if_relevant", lambda fn, conv: built.append(fn.spelling) or real(fn, conv))
    check(path, CONV)
    assert built == ["F_sum"]
    # Below INSTANCE_KEYS_FROM definitions that could share, no keys are made: both are built.
    built.clear()
    monkeypatch.setattr(plan, "INSTANCE_KEYS_FROM", 2)
    check(path, CONV)
    assert built == ["F_sum", "D_sum"]
    monkeypatch.undo()
    monkeypatch.setattr(plan, "INSTANCE_KEYS_FROM", 1)
    engine_agrees(path)


def test_a_leak_found_in_the_first_is_reported_in_the_second_with_its_names(tmp_path):
    body = "void TN(leak)(T *x) { T *t = TN(new)(); if (TN(isContiguous)(x)) return; TN(free)(t); }\n"
    parsed, keys, path = keyed_unit(tmp_path, body)
    assert keys["F_leak"][0] == keys["D_leak"][0]
    r = check(path, CONV)
    # One defect of one source place, reported once: the copy kept is D's (the first in sort
    # order), which is F's finding with F's names replaced by D's.
    [f] = r.findings
    assert f.function == "D_leak" and f.instantiations == ("D_leak", "F_leak")
    assert "D_new" in f.message and "F_new" not in f.message, f.message
    engine_agrees(path)


def test_conditionals_inside_are_keyed_by_the_ranges_they_skip(tmp_path):
    # The same branch taken in both: one key, one graph.
    body = BODY.replace("  real w = v * 2;\n", "#if 1\n  real w = v * 2;\n#else\n  real w = v;\n#endif\n")
    parsed, keys, path = keyed_unit(tmp_path, body)
    assert keys["F_sum"] is not None and keys["F_sum"][0] == keys["D_sum"][0]
    assert same_graph(parsed, "F_sum", "D_sum")
    engine_agrees(path)
    # Equal text from other lines: the float instantiation frees on line 4, the double one on 6.
    body = ("int TN(p)(T *x) {\n  T *t = TN(new)();\n#ifdef IS_F\n  TN(free)(t);\n#else\n  TN(free)(t);\n"
            "#endif\n  return 0;\n}\n")
    inst = INSTANTIATE.replace("#define T F\n", "#define T F\n#define IS_F\n").replace("#define T D\n", "#undef IS_F\n#define T D\n")
    parsed, keys, path = keyed_unit(tmp_path, body, instantiate=inst)
    assert keys["F_p"][0] != keys["D_p"][0]
    assert not same_graph(parsed, "F_p", "D_p")
    engine_agrees(path)


def test_an_include_or_line_directive_inside_leaves_the_definition_without_a_key(tmp_path):
    body = BODY.replace("  real w = v * 2;\n", "#line 40\n  real w = v * 2;\n")
    parsed, keys, path = keyed_unit(tmp_path, body)
    assert keys["F_sum"] is None and keys["D_sum"] is None
    engine_agrees(path)
    # ... unless the preprocessor skipped it; and a pragma is the same text in every instantiation.
    body = BODY.replace("  real w = v * 2;\n", "#if 0\n#include <nothing.h>\n#endif\n#pragma GCC diagnostic ignored "
                        "\"-Wall\"\n  real w = v * 2;\n")
    parsed, keys, path = keyed_unit(tmp_path, body)
    assert keys["F_sum"] is not None and keys["F_sum"][0] == keys["D_sum"][0]
    assert same_graph(parsed, "F_sum", "D_sum")
    engine_agrees(path)


def test_a_cast_keeps_its_type_because_constants_are_evaluated_through_it(tmp_path):
    # (int)3 is the constant 3 and decides the branch; (float)3 is no integer constant.
    body = "int TN(c)(T *x) { T *t = TN(new)(); int k = (real)3; if (k == 3) return 0; TN(free)(t); return 1; }\n"
    inst = INSTANTIATE.replace("#define real float", "#define real int")
    parsed, keys, path = keyed_unit(tmp_path, body, instantiate=inst)
    assert keys["F_c"][0] != keys["D_c"][0]
    # ... while the same body without the cast is one instance: a declaration's arithmetic type
    # does not matter to the graph.
    parsed2, keys2, _ = keyed_unit(tmp_path, body.replace("(real)3", "3").replace("int k", "real k"), instantiate=inst)
    assert keys2["F_c"][0] == keys2["D_c"][0] and same_graph(parsed2, "F_c", "D_c")
    engine_agrees(path)


def test_sizeof_of_an_expression_keeps_every_type(tmp_path):
    body = "int TN(s)(T *x, real v) { T *t = TN(new)(); int n = sizeof(v); if (n == 4) return 1; TN(free)(t); return 0; }\n"
    parsed, keys, path = keyed_unit(tmp_path, body)
    assert keys["F_s"][0] != keys["D_s"][0]
    assert not same_graph(parsed, "F_s", "D_s")  # n == 4 is decided apart in each
    engine_agrees(path)


def test_what_a_renamed_name_declares_is_part_of_the_key(tmp_path):
    # F_get returns a pointer, D_get an int: the same call means another graph.
    apart(tmp_path, "void TN(g)(T *x) { T *t = TN(new)(); TN(get)(t); TN(free)(t); }\n", "F_g", "D_g",
           header=HEADER + "F *F_get(F *); int D_get(D *);\n")
    # Enum constants by their values.
    _, path = apart(tmp_path, "int TN(e)(T *x, int k) { T *t = TN(new)(); if (k == TN(K)) return 0; TN(free)(t); "
                     "return 1; }\n", "F_e", "D_e", header=HEADER + "enum { F_K = 1, D_K = 2 };\n")
    engine_agrees(path)


def test_the_conventions_verdict_on_each_renamed_name_is_part_of_the_key(tmp_path):
    apart(tmp_path, BODY, "F_sum", "D_sum", conv=Conventions(acquire=[r"^D_new$"], release=[r"_free$"]))


def test_a_renamed_name_that_the_source_spells_is_never_renamed(tmp_path):
    # As TH_MATH_NAME(log) calls logf for float and log for double: `mk` is spelled in the source,
    # whose text the graph keeps (expressions as messages show them), so it cannot be renamed.
    header = HEADER + "F *F_new2(void); F *mk(void); F *mkf(void);\n#define MK_F(x) x##f\n#define MK_D(x) x\n"
    _, path = apart(tmp_path, "void TN(m)(T *x) { F *t = CAT(MK, T)(mk)(); F_free(t); }\n", "F_m", "D_m",
                     header=header)
    engine_agrees(path)


def test_macros_of_another_shape_give_another_key(tmp_path):
    # The same expansion through a function-like macro and through an object-like one: a macro
    # argument is located at its macro's call site, so locations differ.
    header = HEADER + "int use(int);\n"
    body = "int TN(w)(T *x, int a) { T *t = TN(new)(); int r = WRAP(a); TN(free)(t); return r; }\n"
    inst = INSTANTIATE.replace("#define T F\n", "#define T F\n#define WRAP(v) use(v)\n").replace(
        "#define T D\n", "#undef WRAP\n#define T D\n#define WRAP use\n")
    parsed, keys, path = keyed_unit(tmp_path, body, header=header, instantiate=inst)
    assert keys["F_w"] is not None and keys["D_w"] is not None
    assert keys["F_w"][0] != keys["D_w"][0]
    engine_agrees(path)


@pytest.mark.parametrize("suffix", [".cpp", ".cu"])
def test_only_c_gets_keys(tmp_path, suffix):
    unit = CUnit(tmp_path)
    unit.write("gen.h", BODY)
    parsed = unit.parse(HEADER + INSTANTIATE, name=f"g{suffix}")
    instances = Instances(parsed, CONV)
    assert all(instances.key(fn, location(fn)) is None for fn in parsed.functions)


def test_sizeof_a_type_keeps_its_layout_but_not_what_its_pointers_point_to(tmp_path):
    header = """
typedef struct FS { float *d; } FS; typedef struct DS { double *d; } DS;
typedef struct FV { float v; } FV; typedef struct DV { double v; } DV;
typedef struct F { FS *s; int n; } F; typedef struct D { DS *s; int n; } D;
F *F_new(void); void F_free(F *); D *D_new(void); void D_free(D *);
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define CAT2_(a, b) a##b
#define CAT2(a, b) CAT2_(a, b)
#define TN(x) CAT(T, x)
"""
    # sizeof(F) and sizeof(D) are equal (a pointer and an int): one instance, one graph.
    body = "int TN(z)(T *x) { T *t = TN(new)(); int n = sizeof(T); if (n == 16) return 1; TN(free)(t); return 0; }\n"
    parsed, keys, path = keyed_unit(tmp_path, body, header=header)
    assert keys["F_z"][0] == keys["D_z"][0] and same_graph(parsed, "F_z", "D_z")
    engine_agrees(path)
    # sizeof(FV) is 4 and sizeof(DV) 8: the constant decides the branch in one only.
    body = ("int TN(y)(T *x) { T *t = TN(new)(); int n = sizeof(CAT2(T, V)); if (n == 4) return 1; "
            "TN(free)(t); return 0; }\n")
    parsed, keys, path = keyed_unit(tmp_path, body, header=header)
    assert keys["F_y"][0] != keys["D_y"][0] and not same_graph(parsed, "F_y", "D_y")
    engine_agrees(path)


def test_a_cast_or_sizeof_whose_value_clang_cannot_fold_is_erased(tmp_path):
    # A cast of a dereference, of a local, of a parenthesized sum over a parameter, of an element,
    # of a call, and sizeof(real) times a local: no constant the build evaluates sees them.
    body = """
int TN(c)(T *x, real *d, int n, int *tp) {
  T *t = TN(new)();
  long m = n;
  real v = (real)*d + (real)m + (real)(n - 1) + (real)tp[n] + (real)TN(isContiguous)(x);
  int k = m * sizeof(real);
  if (k == 4 || (real)m > 0.5) { TN(free)(t); return 1; }
  TN(fill)(t, v);
  TN(free)(t);
  return 0;
}
"""
    for inst in (INSTANTIATE, typed("unsigned char", "int")):
        parsed, keys, path = keyed_unit(tmp_path, body, instantiate=inst)
        assert keys["F_c"][0] == keys["D_c"][0]
        assert same_graph(parsed, "F_c", "D_c")
        engine_agrees(path)


@pytest.mark.parametrize("types, line", [
    # A cast of a constant, in a condition and assigned to an integer: 300 is 44 as an unsigned char.
    (("unsigned char", "int"), "if ((real)300 == 44) return 1;"),
    # (The build strips a cast at the top of what it evaluates: `k = (real)300` is 300 in both.)
    (("unsigned char", "int"), "int k = (real)300 + 0; if (k == 44) return 1;"),
    (("unsigned char", "int"), "int k; k = 0 + (real)(300 + 1); if (k == 45) return 1;"),
    # (int)0.5 is 0; (float)0.5 > 0 holds.
    (("int", "float"), "if ((real)0.5 > 0) return 1;"),
    # sizeof(real) times a constant is a constant: 16 for float, 32 for double.
    (("float", "double"), "int k = 4 * sizeof(real); if (k == 16) return 1;"),
    (("float", "double"), "if (4 * sizeof(real) == 16) return 1;"),
    # A const local with a constant initializer is folded through the cast.
    (("unsigned char", "int"), "const int c = 300; int k = (real)c + 0; if (k == 44) return 1;"),
    # ... and so is one that shadows a parameter, and a file-scope const.
    (("unsigned char", "int"), "{ const int n = 300; int k = (real)n + 0; if (k == 44) return 1; }"),
    (("unsigned char", "int"), "int k = (real)G + 0; if (k == 44) return 1;"),
    # clang folds a library builtin from constant arguments (strlen("abcd") * 75 is 300), in a
    # case label too.
    (("unsigned char", "int"), "switch (n) { case (real)(strlen(\"abcd\") * 75): return 1; }"),
    # The arm of a ?: not taken gives its type: -1 against an unsigned is 4294967295.
    (("unsigned int", "int"), "int k = (1 ? -1 : (real)n) < 0; if (k) return 1;"),
    # An array is an address clang needs no read for: (_Bool)a is 1, (int)a no constant.
    (("_Bool", "int"), "int a[2]; int k = (real)a + 0; if (k) return 1;"),
])
def test_a_cast_or_sizeof_a_constant_can_reach_keeps_its_type(tmp_path, types, line):
    body = f"int TN(k)(T *x, int n) {{ T *t = TN(new)(); {line} TN(free)(t); return 0; }}\n"
    header = HEADER + "unsigned long strlen(const char *); static const int G = 300;\n"
    parsed, path = apart(tmp_path, body, "F_k", "D_k", instantiate=typed(*types), header=header)
    assert not same_graph(parsed, "F_k", "D_k")
    engine_agrees(path)


def test_a_const_local_keeps_every_type_because_clang_folds_it(tmp_path):
    # int: `n < c` compares with the constant 3 (a simple condition); float: no integer constant.
    body = ("int TN(k)(T *x, int n) { T *t = TN(new)(); const real c = 3; int own = 1;"
            " if (n < c) own = 0; if (own) TN(free)(t); return 0; }\n")
    inst = INSTANTIATE.replace("#define real double", "#define real int")
    parsed, path = apart(tmp_path, body, "F_k", "D_k", instantiate=inst)
    assert not same_graph(parsed, "F_k", "D_k")
    engine_agrees(path)
    # A pointer to const is no folded value: the same body with `const real *c` shares.
    parsed2, keys2, _ = keyed_unit(tmp_path, body.replace("const real c = 3", "const real *c = 0").replace("n < c", "n < *c"),
                              instantiate=inst)
    assert keys2["F_k"][0] == keys2["D_k"][0]


def test_a_conditional_with_a_constant_condition_keeps_every_type(tmp_path):
    # The arms' common type is the other arm's declared type: -1 as unsigned is no negative.
    body = ("int TN(q)(T *x, int n) { T *t = TN(new)(); real m = n; int k = (1 ? -1 : m) < 0;"
            " if (k) TN(free)(t); return 0; }\n")
    inst = INSTANTIATE.replace("#define real float", "#define real unsigned").replace("#define real double",
                                                                                        "#define real int")
    parsed, path = apart(tmp_path, body, "F_q", "D_q", instantiate=inst)
    assert not same_graph(parsed, "F_q", "D_q")
    engine_agrees(path)
    # A condition that reads a variable is never folded: `n ? -1 : m` shares.
    _, keys2, _ = keyed_unit(tmp_path, body.replace("(1 ? -1 : m)", "(n ? -1 : m)"), instantiate=inst)
    assert keys2["F_q"][0] == keys2["D_q"][0]


def test_the_functions_own_name_leaves_it_without_a_key(tmp_path):
    body = "int TN(f)(T *x) { T *t = TN(new)(); int k = __func__[0]; if (k == 'F') TN(free)(t); return 0; }\n"
    parsed, keys, path = keyed_unit(tmp_path, body)
    assert keys["F_f"] is None and keys["D_f"] is None
    assert not same_graph(parsed, "F_f", "D_f")
    engine_agrees(path)


def test_a_body_the_cast_rules_misread_keeps_its_types(tmp_path, monkeypatch):
    from refcheck.reuse import unevaluated
    body = "float TN(u)(T *x, real *src) { T *t = TN(new)(); float v = (real)*src; TN(free)(t); return v; }\n"
    inst = INSTANTIATE.replace("#define real double", "#define real int")
    _, keys, _ = keyed_unit(tmp_path, body, instantiate=inst)
    assert keys["F_u"][0] == keys["D_u"][0]  # `(real)*src`: a cast of an unknown value

    def misread(*args):
        raise KeyError(0)

    monkeypatch.setattr(unevaluated, "erasable", misread)
    _, keys, _ = keyed_unit(tmp_path, body, instantiate=inst)
    assert keys["F_u"] is not None and keys["F_u"][0] != keys["D_u"][0]


# Constants as the locals hold them and as comparisons convert them (reuse/converted.py): the
# declared type a constant is converted to is kept where some arithmetic type would change it.
@pytest.mark.parametrize("body, f, d", [
    # 300 in an unsigned char is 44.
    ("int TN(k)(T *x) { T *t = TN(new)(); real k = 300; if (k == 44) TN(free)(t); return 0; }\n",
     "unsigned char", "int"),
    # Assigned, not initialized; and -1 in an unsigned int.
    ("int TN(k)(T *x) { T *t = TN(new)(); real k; k = -1; if (k > 0) TN(free)(t); return 0; }\n",
     "unsigned int", "int"),
    # Compared: -1 is converted to an unsigned int, not to an int.
    ("int TN(k)(T *x, real k) { T *t = TN(new)(); k = 5; if (k < -1) TN(free)(t); return 0; }\n",
     "unsigned int", "int"),
    # A switch converts its case labels to the condition's type.
    ("int TN(k)(T *x) { T *t = TN(new)(); real k = 5; switch (k) { case -1: TN(free)(t); break; } return 0; }\n",
     "unsigned int", "int"),
    # The key keeps _Bool, which holds 1 for 2.
    ("int TN(k)(T *x) { T *t = TN(new)(); real k = 2; if (k == 2) TN(free)(t); return 0; }\n",
     "_Bool", "int"),
])
def test_a_local_a_constant_is_converted_to_keeps_its_type(tmp_path, body, f, d):
    parsed, path = apart(tmp_path, body, "F_k", "D_k", instantiate=typed(f, d))
    assert not same_graph(parsed, "F_k", "D_k")  # the rule is needed: the graphs differ
    engine_agrees(path)


@pytest.mark.parametrize("body", [
    # Constants every erased type holds unchanged.
    "int TN(k)(T *x) { T *t = TN(new)(); real k = 100; if (k == 100) TN(free)(t); return 0; }\n",
    "int TN(k)(T *x, real k) { T *t = TN(new)(); if (k >= 3) TN(free)(t); return 0; }\n",
    # A constant converted to a type that is the same in every instantiation: TH_TENSOR_APPLY's
    # `long i` compared with its DIM of -1.
    "int TN(k)(T *x, real v) { T *t = TN(new)(); long i = -1; real w = v; if (i != -1 && w) TN(free)(t);"
    " return 0; }\n",
    # A comparison through a cast is never decided, whatever the types (its type may be erased).
    "int TN(k)(T *x, real k) { T *t = TN(new)(); if ((int)k == 5) TN(free)(t); return 0; }\n",
    # A pointer holds no integer constant; a comparison with a variable compares no constant.
    "int TN(k)(T *x, real v) { T *t = TN(new)(); real *p = 0; real w = v; if (w < v) TN(free)(t); return p != 0; }\n",
])
def test_a_local_every_type_holds_the_same_constant_in_still_shares(tmp_path, body):
    parsed, keys, path = keyed_unit(tmp_path, body, instantiate=typed("unsigned char", "int"))
    assert keys["F_k"] is not None and keys["F_k"][0] == keys["D_k"][0]
    assert same_graph(parsed, "F_k", "D_k")
    engine_agrees(path)


def test_the_invariant_holds_and_the_check_sees_it_broken(tmp_path, monkeypatch):
    # reuse.plan.verify states in code what the instance keys rest on: definitions grouped by a
    # key have the same graph up to the key's renaming.
    from refcheck.reuse import converted
    from refcheck.reuse.plan import verify

    body = "int TN(k)(T *x) { T *t = TN(new)(); real k = 300; if (k == 44) TN(free)(t); return 0; }\n"
    parsed, _, _ = keyed_unit(tmp_path, BODY + body, instantiate=typed("unsigned char", "int"))
    keyed, grouped, wrong = verify(parsed, CONV)
    assert keyed == 4 and grouped == 1 and not wrong  # TN(sum) shares; TN(k) is kept apart
    # With converted.py's rule removed TN(k) shares a key too, and the check says the graphs differ.
    monkeypatch.setattr(converted.Reader, "kept_types", lambda self, tokens: [])
    keyed, grouped, wrong = verify(CUnit(tmp_path).parse("g.c"), CONV)
    assert grouped == 2 and [(d.function, d.first) for d in wrong] == [("D_k", "F_k")]
    assert "class keys differ" in wrong[0].problem


def test_tokens_skip_whitespace_as_the_plain_pattern_did():
    """The tokenizer eats the blanks before each token itself (speed): the tokens are those of
    the pattern without it, which the search skipped blanks for, string blanks kept."""
    import re

    from refcheck.reuse.instances import _TOKEN

    plain = re.compile(_TOKEN.pattern[len(r"\s*("):-1])
    text = ('static int f(int  a)\n{\n    char *s = "a  b\\t\\" c";  char q = \' \';\n'
            '    return a - -a >>= 1e-3 + .5 ... ## p->x &&b||c;\n}\n   ')
    assert _TOKEN.findall(text) == plain.findall(text)
    assert '"a  b\\t\\" c"' in _TOKEN.findall(text) and "' '" in _TOKEN.findall(text)


# Two tensor types of one shape (reuse/shapes.py): L is F with `long` for `float`, and each
# storage points to one of its own kind, as TH's `struct THFloatStorage *view`.
SHAPES_HEADER = """
typedef struct FS { float *d; struct FS *view; } FS; typedef struct LS { long *d; struct LS *view; } LS;
typedef struct F { FS *s; int n; } F; typedef struct L { LS *s; int n; } L;
F *F_new(void); void F_free(F *); void F_copyL(F *, L *);
L *L_new(void); void L_free(L *); void L_copyL(L *, L *);
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define TN(x) CAT(T, x)
#define LONG_T L
"""
SHAPES_INSTANTIATE = INSTANTIATE.replace("#define T D", "#define T L").replace("double", "long")


def test_a_body_naming_one_type_where_another_names_two_shares_a_key(tmp_path):
    # As THTensor_(newSizeOf) for Float and Long: F_c holds an F and an L, L_c two Ls. Numbered by
    # name the keys differed (one name where the other has two); by shape they are one.
    from refcheck.reuse.plan import verify

    # (L is spelled through a macro: a numbered name the source spells is never renamed.)
    body = ("int TN(c)(T *x, LONG_T *y) { T *t = TN(new)(); TN(copyL)(t, y); if (x->n > 0) { TN(free)(t); "
            "return 1; } TN(free)(t); return 0; }\n")
    parsed, keys, path = keyed_unit(tmp_path, body, header=SHAPES_HEADER, instantiate=SHAPES_INSTANTIATE)
    assert keys["F_c"][0] == keys["L_c"][0] and same_graph(parsed, "F_c", "L_c")
    # The names the graph may hold still pair one-to-one: F_new's result F with L_new's L.
    pairs = dict(zip(keys["F_c"][1], keys["L_c"][1]))
    assert pairs["F"] == "L" and pairs["F_new"] == "L_new" and "LS" not in pairs and "FS" not in pairs
    keyed, grouped, wrong = verify(parsed, CONV)
    assert (keyed, grouped, wrong) == (2, 1, [])
    engine_agrees(path)


def test_types_of_another_shape_or_another_verdict_keep_keys_apart(tmp_path):
    # LS points to itself through another field: another shape, another key.
    header = SHAPES_HEADER.replace("struct LS *view; } LS;", "struct LS *other; } LS;")
    body = "int TN(c)(T *x, LONG_T *y) { T *t = TN(new)(); TN(copyL)(t, y); TN(free)(t); return x->n; }\n"
    apart(tmp_path, body, "F_c", "L_c", header=header, instantiate=SHAPES_INSTANTIATE)
    # A shape holds what the conventions say of its name (here FS is a `context` handle).
    apart(tmp_path, body, "F_c", "L_c", header=SHAPES_HEADER, instantiate=SHAPES_INSTANTIATE,
           conv=Conventions(acquire=[r"_new$"], release=[r"_free$"], context=[r"^FS$"]))


def test_a_type_a_call_returns_keeps_its_name_and_families_are_keyed(tmp_path, monkeypatch):
    # The graph holds the record an acquirer's result points to (its family), which the analysis
    # compares with a releaser's: F_g releases the FS that F_make gave through FS_free, D_g the
    # FT that D_make gave through FS_free too (RC011). FS and FT are of one shape, and the bodies
    # are the same up to renaming FS to FT: only the family relation of FS_free tells them apart.
    from refcheck.reuse import instances, shapes

    header = HEADER + ("typedef struct FS { float *d; } FS; typedef struct FT { double *d; } FT;\n"
                       "FS *F_make(void *); FT *D_make(void *); void FS_free(void *);\n")
    body = "void TN(g)(void *p) { void *s = TN(make)(p); FS_free(s); }\n"
    conv = Conventions(acquire=[r"_make$"], release=[r"_free$"])
    parsed, keys, path = keyed_unit(tmp_path, body, header=header, conv=conv)
    assert keys["F_g"][0] != keys["D_g"][0]
    assert "FS" in keys["F_g"][1] and "FT" in keys["D_g"][1]  # results are numbered
    engine_agrees(path, conv)
    assert [(f.rule, f.function) for f in check(path, conv).findings] == [("RC011", "D_g")]
    # Shaped, the results' records would leave the key, and the family relation with them (the
    # Python writer, whose result-position test can be replaced; the compiled one tests inside).
    monkeypatch.setattr(instances, "write_tokens", instances.PURE["write_tokens"])
    monkeypatch.setattr(instances, "_result_position", lambda tokens, i, qualifiers=None: False)
    monkeypatch.setattr(shapes, "result_position", lambda tokens, i, qualifiers=None: False)
    keys = {fn.spelling: Instances(parsed, conv).key(fn, location(fn)) for fn in parsed.functions}
    assert keys["F_g"][0] == keys["D_g"][0]


@pytest.mark.parametrize("text, at, result", [
    ("F * ( void )", 0, True), ("F * ( * f ) ( void )", 0, True), ("extern F * g ( int )", 1, True),
    ("F * const * h ( void )", 0, True), ("F * t = g ( )", 0, False), ("( F * ) ( x )", 1, False),
    ("sizeof ( F )", 2, False), ("void ( F * , int )", 2, False)])
def test_result_positions(text, at, result):
    from refcheck.reuse.shapes import result_position

    assert result_position(text.split(), at) is result


def test_the_invariant_holds_on_every_fixture_where_keys_are_made():
    # reuse.plan.verify over the fixtures whose parse keeps the record the keys need (those with
    # definitions that could share), each with its own preset and mode.
    from dataclasses import replace

    from cunit import fixture_parses
    from refcheck.conventions.presets import PRESETS
    from refcheck.reuse.plan import verify

    keyed = grouped = 0
    for unit, options, parsed in fixture_parses():
        if parsed.language != "c" or not parsed.detailed:
            continue
        conv = replace(PRESETS[options.preset].conventions, errors=options.errors)
        k, g, wrong = verify(parsed, conv)
        assert not wrong, (unit, wrong)
        keyed, grouped = keyed + k, grouped + g
    assert keyed and grouped  # the generic fixtures are keyed and share


def test_definitions_checked_again_share_at_a_place_with_one_instance_key(tmp_path, monkeypatch):
    # TN(user) is checked before TN(drop), whose summary (a release) its body gives: checked
    # again at the end, each instance built on its own. Its place had one instance key (no class
    # key made there in the first round); the second round class-keys it, so D_user shares F_user's.
    body = ("void TN(drop)(T *t);\nvoid TN(user)(T *x) { T *t = TN(new)(); TN(fill)(t, 1); TN(drop)(t); }\n"
            "void TN(drop)(T *t) { TN(free)(t); }\n")
    parsed, keys, path = keyed_unit(tmp_path, body)
    assert keys["F_user"][0] == keys["D_user"][0]
    r = check(path, CONV)
    # (A definition checked again counts once, as its last check: F_user and F_drop analysed.)
    assert r.counts["analysed"] == 2 and r.counts["shared"] == 2, r.counts
    monkeypatch.setattr(plan.Plan, "rechecking", lambda self: None)
    assert check(path, CONV).counts["analysed"] == 3
    engine_agrees(path)


def test_a_shape_holds_whether_the_unit_counts_its_record(tmp_path):
    # handles.record_name asks whether a pointer's record is counted (an acquirer of the unit
    # returns one): F's is (F_new), D's and E's are not, though all three print alike.
    from refcheck.frontend.handles import counted_types

    unit = CUnit(tmp_path)
    unit.write("g.c", "typedef struct { int n; } F; typedef struct { int n; } D; typedef struct { int n; } E;\n"
               "F *F_new(void); void F_free(F *); void D_fill(D *); void E_fill(E *);\n")
    parsed = unit.parse("g.c", clean=True)
    conv = CONV.for_unit(unit_counted=counted_types(parsed.top, CONV))
    shapes = Instances(parsed, conv)._shapes
    assert shapes.of("D", False) == shapes.of("E", False) != shapes.of("F", False)
    shapes = Instances(parsed, CONV)._shapes  # no counted types: one shape
    assert shapes.of("D", False) == shapes.of("E", False) == shapes.of("F", False)


def test_a_declaration_that_compares_types_names_them(tmp_path):
    # `same` is 1 where T is L and 0 where it is F, though F and L are of one shape: the global's
    # initializer asks clang to compare the two types, so their names stay in the key.
    body = "int TN(s)(T *x) { T *t = TN(new)(); int k = CAT(T, same); TN(free)(t); return k + x->n; }\n"
    header = SHAPES_HEADER + ("static const int F_same = __builtin_types_compatible_p(F, L);\n"
                              "static const int L_same = __builtin_types_compatible_p(L, L);\n")
    _, path = apart(tmp_path, body, "F_s", "L_s", header=header, instantiate=SHAPES_INSTANTIATE)
    engine_agrees(path)


def test_a_conditional_whose_arms_are_typed_by_name_keeps_the_names(tmp_path, monkeypatch):
    # `c ? a : b` points to FS or LS in F_q, which clang types `void *` (a pointer type mismatch),
    # and to LS in L_q, typed `LS *`: the build reads call arguments' types (handles, argtypes),
    # and FS and LS are of one shape, so the key keeps the names of a body with such a conditional.
    from refcheck.reuse import instances

    header = SHAPES_HEADER + ("void F_pass(F *, void *); void L_pass(L *, void *);\n"
                              "#define STORAGE_(t) t##S\n#define STORAGE(t) STORAGE_(t)\n")
    body = ("void TN(q)(T *x, STORAGE(T) *a, LS *b, int c) { T *t = TN(new)(); TN(pass)(t, c ? a : b);"
            " TN(free)(t); }\n")
    parsed, path = apart(tmp_path, body, "F_q", "L_q", header=header, instantiate=SHAPES_INSTANTIATE)
    engine_agrees(path)
    monkeypatch.setattr(instances.shapes, "named_conditional", lambda tokens, type_names, names: False)
    keys = {fn.spelling: Instances(parsed, CONV).key(fn, location(fn)) for fn in parsed.functions}
    assert keys["F_q"][0] == keys["L_q"][0]  # what the rule keeps apart


@pytest.mark.parametrize("body, named", [
    ("int f ( F * x , int c ) { long i , * p = & i ; long * q = c ? & i : p ; return 0 ; }", False),
    ("int f ( F * x , int c ) { F * a , * b ; void * q = c ? a : b ; return 0 ; }", True),
    ("int f ( F * x , int c ) { long * q = c ? x -> p : 0 ; return 0 ; }", True),
    ("int f ( F * x , int c ) { return c ? 1 : 0 ; }", False),
    ("int f ( F * x , int c ) { void * q = c ? ( void * ) x : 0 ; return 0 ; }", True)])
def test_which_conditionals_are_typed_by_name(body, named):
    from refcheck.reuse.shapes import named_conditional

    assert named_conditional(body.split(), {"F"}, {"f"}) is named


def test_a_plans_keys_scan_converted_runs_only_for_keys_two_definitions_share(tmp_path, monkeypatch):
    # Instances.keys (a plan's keys, compared only among themselves) finds which erased runs a
    # constant is converted to only for a key some other definition shares before those runs:
    # the same partition as `key`, without the scan for a key nothing else has.
    from refcheck.reuse import converted

    one = ("int TN(one)(T *x, real v) {\n  real k = 300;\n#if CAT(T, flag)\n  v = v + 1;\n#endif\n"
           "  return k == 44 && v > 0;\n}\n")
    kept = "int TN(k)(T *x) { T *t = TN(new)(); real k = 300; if (k == 44) TN(free)(t); return 0; }\n"
    parsed, keys, path = keyed_unit(tmp_path, BODY + kept + one, header=HEADER + "#define F_flag 1\n",
                                    instantiate=typed("unsigned char", "int"))
    assert keys["F_one"][0] != keys["D_one"][0] and keys["F_sum"][0] == keys["D_sum"][0]
    assert keys["F_k"][0] != keys["D_k"][0]  # apart by their converted runs only
    scanned = []
    real = converted.Reader.kept_types
    monkeypatch.setattr(converted.Reader, "kept_types", lambda self, tokens: scanned.append(1) or real(self, tokens))
    fns = parsed.functions
    batch = Instances(parsed, CONV).keys([(fn, location(fn)) for fn in fns])

    def partition(got):
        first: dict = {}
        return [(first.setdefault(k[0], i), k[1]) if k is not None else None for i, k in enumerate(got)]

    assert partition(batch) == partition([keys[fn.spelling] for fn in fns])
    assert len(scanned) == 2  # TN(sum)'s and TN(k)'s keys, not TN(one)'s two
    scanned.clear()
    one_by_one = Instances(parsed, CONV)
    [one_by_one.key(fn, location(fn)) for fn in fns]
    assert len(scanned) == 4
    engine_agrees(path)
