"""A first run on a real project: gcc compile databases adapted for clang with notes, files the
database does not list as warnings, and a hint (the flag that fixes it) on every tool error."""

from __future__ import annotations

import json
import os
from pathlib import Path

from refcheck.workspace import hints
from refcheck.frontend import gcc
from refcheck.findings import RunResult, ToolError
from refcheck.reporters import render

OMP_UNIT = """
#include <omp.h>
#include <stdatomic.h>
int count(volatile int *a, int n) {
  int s = 0;
#pragma omp parallel for reduction(+:s)
  for (int i = 0; i < n; i++)
    s += omp_get_thread_num();
#if defined(USE_C11_ATOMICS)
  atomic_fetch_add(a, 1);
#elif defined(USE_GCC_ATOMICS)
  __sync_fetch_and_add(a, 1);
#endif
  return s;
}
"""

LEAK = """
#include <stdlib.h>
void *newThing(void);
void thing_free(void *);
int f(int bad) { void *t = newThing(); if (bad) return 1; thing_free(t); return 0; }
"""


def _database(project, entries):
    project.write("build/compile_commands.json", json.dumps(
        [{"directory": str(project.root / "build"), "file": str(project.root / f), "command": c}
         for f, c in entries]))


# --- frontend/gcc.py ----------------------------------------------------------------------------

def test_the_gcc_probe_macro_is_replaced_with_a_note(tmp_path):
    adapted = gcc.adapt(["-DUSE_C11_ATOMICS=1", "-D", "USE_C11_ATOMICS", "-DKEEP=1"], str(tmp_path))
    assert adapted.args == ("-UUSE_C11_ATOMICS", "-DUSE_GCC_ATOMICS=1", "-UUSE_C11_ATOMICS",
                            "-DUSE_GCC_ATOMICS=1", "-DKEEP=1")
    assert len(adapted.notes) == 2 and "-UUSE_C11_ATOMICS -DUSE_GCC_ATOMICS=1" in adapted.notes[0]


def test_a_macro_the_user_gave_is_left_alone(tmp_path):
    adapted = gcc.adapt(["-DUSE_C11_ATOMICS=1"], str(tmp_path), from_database=False)
    assert adapted.args == ("-DUSE_C11_ATOMICS=1",) and adapted.notes == ()


def test_openmp_without_omp_h_gets_the_stand_in_after_every_other_directory(tmp_path):
    adapted = gcc.adapt(["-fopenmp", "-Iinc"], str(tmp_path))
    assert adapted.args == ("-fopenmp", "-Iinc", "-idirafter", gcc.omp_dir())
    assert os.path.isfile(os.path.join(gcc.omp_dir(), "omp.h"))
    assert adapted.notes == (gcc.OPENMP_NOTE,)
    (tmp_path / "omp.h").write_text("")  # a resource directory with its own omp.h
    assert gcc.adapt(["-fopenmp"], str(tmp_path)) == gcc.Adapted(("-fopenmp",))


def test_gcc_only_options_are_dropped_with_a_note(tmp_path):
    adapted = gcc.adapt(["-fopt-info-vec", "-fconserve-stack", "-O2", "-fno-tree-vectorize"], str(tmp_path))
    assert adapted.args == ("-O2", "-fno-tree-vectorize")
    assert [n.split(":")[0] for n in adapted.notes] == ["-fopt-info-vec", "-fconserve-stack"]


def test_unknown_argument_diagnostics_name_the_options():
    assert gcc.unknown_arguments(["unknown argument: '-fzap'", "other", "unknown argument: '-mfoo'"]) == \
        ["-fzap", "-mfoo"]


# --- hints.py -----------------------------------------------------------------------------------

def test_a_missing_header_found_in_the_tree_gets_its_directory(tmp_path):
    (tmp_path / "lib" / "inc" / "sub").mkdir(parents=True)
    (tmp_path / "lib" / "inc" / "sub" / "x.h").write_text("")
    assert hints.for_diagnostic("'sub/x.h' file not found", (), str(tmp_path)) == \
        '-I lib/inc (or include-dirs = ["lib/inc"] in [tool.refcheck])'
    assert hints.for_diagnostic("'nowhere.h' file not found", (), str(tmp_path)).startswith(
        "-I DIR for the directory holding nowhere.h")


def test_each_kind_of_diagnostic_gets_its_flag():
    atomic = "address argument to atomic operation must be a pointer to _Atomic type ('volatile int *' invalid)"
    assert hints.for_diagnostic(atomic, ["-DUSE_C11_ATOMICS=1"]) == hints.C11_ATOMICS_FIX
    assert hints.for_diagnostic(atomic, ["-DUSE_C11_ATOMICS=1", "-UUSE_C11_ATOMICS"]) == ""
    assert hints.for_diagnostic("unknown type name 'real'").startswith("-D or -I for the macro")
    assert hints.for_diagnostic("unknown type name 'real'", in_database=False) == hints.DATABASE_HINT
    assert hints.for_diagnostic("unknown type name 'ptrdiff_t'").startswith("#include <stddef.h>")
    assert hints.for_diagnostic("expected ';' after expression") == ""


# --- reporters ----------------------------------------------------------------------------------

def test_every_reporter_carries_the_hint(tmp_path):
    result = RunResult(errors=[ToolError("a.c", "'x.h' file not found", 3, 10, hint="-I inc")],
                       root=str(tmp_path))
    assert "a.c:3:10: note: hint: -I inc" in render("text", result).splitlines()
    assert json.loads(render("json", result))["errors"] == [
        {"file": "a.c", "line": 3, "column": 10, "severity": "error", "message": "'x.h' file not found",
         "hint": "-I inc"}]
    note = json.loads(render("sarif", result))["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]
    assert note["properties"] == {"hint": "-I inc"} and note["message"]["text"].endswith("(hint: -I inc)")
    assert "(hint: -I inc)" in render("github", result)


# --- the CLI on a gcc database ------------------------------------------------------------------

def test_a_gcc_database_parses_without_hand_written_flags(project):
    project.write("src/count.c", OMP_UNIT)
    _database(project, [("src/count.c", "/usr/bin/cc -DUSE_C11_ATOMICS=1 -fopenmp -fopt-info "
                                         "-std=gnu99 -o count.o -c ../src/count.c")])
    r = project.run("check", "-p", "build", "--no-cache", "-j1")
    assert r.code == 0, r.out + r.err
    assert "tool error" not in r.err and "warning" not in r.err.replace("-Wno", "")
    assert "refcheck: note: -fopenmp: clang's builtin headers have no omp.h" in r.err
    assert "refcheck: note: -DUSE_C11_ATOMICS:" in r.err and "(1 unit)" in r.err
    assert "refcheck: note: -fopt-info: a gcc-only option" in r.err


def test_c11_atomics_given_by_hand_get_the_fix_as_a_hint(project):
    project.write("src/count.c", OMP_UNIT)
    r = project.run("check", "--no-cache", "-j1", "-DUSE_C11_ATOMICS=1", "--clang-arg=-fopenmp",
                    "src/count.c")
    assert r.code == 2
    assert "must be a pointer to _Atomic type" in r.out
    assert f"note: hint: {hints.C11_ATOMICS_FIX}" in r.out


def test_an_option_clang_does_not_know_is_dropped_with_a_warning(project):
    project.write("src/a.c", "int f(int x) { return x; }\n")
    r = project.run("check", "--no-cache", "-j1", "--clang-arg=-fzzz-no-such-option", "src/a.c")
    assert r.code == 0, r.out
    assert "src/a.c: warning: clang does not know the option -fzzz-no-such-option" in r.out


def test_a_file_the_database_does_not_list_is_a_warning_naming_the_fix(project):
    project.write("src/built.c", LEAK)
    project.write("src/arm.c", "void g(ptrdiff_t n);\n" + LEAK.replace("int f(", "int h("))
    _database(project, [("src/built.c", "cc -c ../src/built.c")])
    r = project.run("check", "-p", "build", "--no-cache", "-j1", "src")
    assert r.code == 1, r.out  # the findings; no tool error
    assert ("src/arm.c: warning: not in the compile database build/compile_commands.json: checked "
            "with the default flags (-I/-D of the command line and configuration); its 1 parse error "
            "is shown as a warning [tool]") in r.out
    assert 'hint: exclude = ["src/arm.c"] in [tool.refcheck]' in r.out
    assert "src/arm.c:1:8: warning: unknown type name 'ptrdiff_t'" in r.out
    assert "src/arm.c:6:49: error:" in r.out and "src/built.c:4:49: error:" in r.out  # both checked
    assert "built.c: warning" not in r.out


def test_a_missing_header_error_names_the_include_directory(project):
    project.write("include/th/thing.h", "int thing;\n")
    project.write("src/a.c", '#include "th/thing.h"\nint f(void) { return thing; }\n')
    r = project.run("check", "--no-cache", "-j1", "src/a.c")
    assert r.code == 2
    assert "src/a.c:1:10: note: hint: -I include (or include-dirs = [\"include\"] in [tool.refcheck])" in r.out


# --- headers named on the command line ----------------------------------------------------------

HEADER_LEAK = """
void *newThing(void);
void thing_free(void *);
static inline int g(int bad) { void *t = newThing(); if (bad) return 1; thing_free(t); return 0; }
"""


def test_a_named_header_is_checked_through_the_units_that_include_it(project):
    project.write("include/tensor.h", HEADER_LEAK)
    project.write("include/all.h", '#include "tensor.h"\n')
    project.write("src/use.c", '#include "../include/all.h"\nint use(void) { return g(0); }\n')
    project.write("src/other.c", "int other(void) { return 0; }\n")
    r = project.run("check", "-j1", "include/tensor.h")  # no cache yet: the #include lines
    assert r.code == 1, r.out + r.err
    assert "include/tensor.h:3:" in r.out and "[RC001 leak]" in r.out
    assert "in 1 file," in r.err  # use.c, not other.c
    # Now the cache knows use.c read tensor.h; an #include line no longer decides.
    project.write("src/use.c", '#include "../include/all.h"\nint use(void) { return g(0); }\n')
    r = project.run("check", "-j1", "include/tensor.h")
    assert r.code == 1 and "in 1 file," in r.err


def test_the_cache_knows_includes_the_scan_cannot_see(project, tmp_path):
    project.write("include/tensor.h", HEADER_LEAK)
    project.write("src/use.c", "#include TENSOR\nint use(void) { return g(0); }\n")
    assert project.run("check", "-j1", '-DTENSOR="../include/tensor.h"', "src").code == 1
    r = project.run("check", "-j1", '-DTENSOR="../include/tensor.h"', "include/tensor.h")
    assert r.code == 1 and "include/tensor.h:3:" in r.out, r.out + r.err


def test_a_header_no_unit_includes_is_a_warning(project):
    project.write("include/lonely.h", HEADER_LEAK)
    project.write("src/a.c", "int a(void) { return 0; }\n")
    r = project.run("check", "-j1", "include/lonely.h")
    assert r.code == 0
    assert "include/lonely.h: warning: no unit includes this header" in r.out
    assert "note: hint: name a .c/.cpp file that includes it" in r.out


def test_the_include_scan_follows_headers_and_included_units(tmp_path):
    from refcheck.workspace import includers

    (tmp_path / "generic").mkdir()
    files = {"a.h": "", "b.h": '#include "a.h"\n', "generic/body.c": '#include <b.h>\n',
             "unit.c": '#include "generic/body.c"\n', "other.c": '#include "nota.h"\n'}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    units = [str(tmp_path / n) for n in ("generic/body.c", "unit.c", "other.c")]
    found = includers.scan(str(tmp_path / "a.h"), units, [str(tmp_path / "a.h"), str(tmp_path / "b.h")])
    assert found == sorted([str(tmp_path / "generic/body.c"), str(tmp_path / "unit.c")])


# --- check -v: why units were analysed rather than served from the cache ----------------------

def test_verbose_explains_each_cache_miss(project):
    project.write("inc/x.h", "int x;\n")
    project.write("a.c", '#include "inc/x.h"\nint f(void) { return x; }\n')
    project.write("b.c", '#include "missing.h"\nint g(void) { return 0; }\n')

    def explained(*extra):
        r = project.run("check", "-v", "-j1", *extra, "a.c", "b.c")
        return [l[len("refcheck: cache: "):] for l in r.err.splitlines() if l.startswith("refcheck: cache: ")]

    first = explained()
    assert "a.c: analysed: no cache entry for this unit yet (its first run, or the entry was pruned)" in first
    missing = "never cached: 'missing.h' file not found (a result that depends on a missing file is not stored)"
    assert f"b.c: {missing}" in first
    # Unchanged: a.c comes from the cache and b.c, which can never be cached, says why.
    assert explained() == [f"b.c: analysed: {missing}"]
    project.write("inc/x.h", "int x;\nint y;\n")
    assert explained()[0] == "a.c: analysed: inc/x.h changed"
    assert explained("-DFOO")[0] == "a.c: analysed: its flags changed: +-DFOO"
    assert explained("-DFOO", "--errors", "unwind")[0] == \
        "a.c: analysed: the configuration changed (conventions, errors mode or analysis bounds)"
    r = project.run("check", "-j1", "a.c", "b.c")
    assert "refcheck: cache:" not in r.err  # only with -v


# --- doctor FILE --------------------------------------------------------------------------------

def test_doctor_uses_the_configuration_of_the_file_and_parses_it(project):
    project.write("sub/pyproject.toml", '[tool.refcheck]\ninclude-dirs = ["inc"]\n')
    project.write("sub/src/bad.c", "int f(void) { return undefined_thing; }\n")
    project.write("sub/src/good.c", "int f(void) { return 0; }\n")
    r = project.run("doctor", "sub/src/bad.c")
    lines = dict(l.split(": ", 1) for l in r.out.splitlines() if ":  " in l or l.startswith(("config:", "project root:")))
    assert r.code == 1, r.out
    assert lines["config"].strip() == str(project.root / "sub" / "pyproject.toml")
    assert lines["project root"].strip() == str(project.root / "sub")
    assert lines["cache dir"].strip() == str(project.root / "sub" / ".refcheck_cache")
    assert f"-I{project.root / 'sub' / 'inc'}" in lines["clang args"]
    assert "parse:            1 function definition(s); 1 error(s)" in r.out
    assert "problem: sub/src/bad.c:1:22: use of undeclared identifier 'undefined_thing' (hint: -D or -I" in r.out
    assert "no problems found" not in r.out
    ok = project.run("doctor", "sub/src/good.c")
    assert ok.code == 0 and "parse:            1 function definition(s); no errors" in ok.out


def test_help_says_what_p_without_paths_checks_and_the_sigterm_status(project):
    text = " ".join(project.run("check", "--help").out.split())
    assert "With no PATHS, check checks every file the database lists." in text
    assert "130 interrupted (Ctrl-C); 143 terminated (SIGTERM)." in text
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    assert "| 143 | terminated (SIGTERM" in readme
