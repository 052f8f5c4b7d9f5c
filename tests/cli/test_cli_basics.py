"""Commands, options and exit codes of `refcheck check`, `rules` and `explain`."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import analyzed

from refcheck.rules import RULES

REPO = Path(__file__).resolve().parents[2]

LEAKY = "void f(void) {\n  t = LEAK(1);\n}\n"
CLEAN = "int g(void) { return 0; }\n"


def test_clean_run_exits_0(project, fake):
    project.write("a.c", CLEAN)
    r = project.run("check", ".")
    assert r.code == 0, r.err
    assert r.out == ""
    assert "0 findings in 1 file" in r.err


def test_findings_exit_1_with_compiler_style_lines(project, fake):
    project.write("src/a.c", LEAKY)
    project.write("src/b.c", CLEAN)
    r = project.run("check")  # no paths: the current directory
    assert r.code == 1
    assert r.out.startswith("src/a.c:2:7: error: ")
    assert "[RC001 leak]" in r.out
    assert analyzed(fake) == ["a.c", "b.c"]


def test_exit_zero(project, fake):
    project.write("a.c", LEAKY)
    assert project.run("check", "--exit-zero", "a.c").code == 0


def test_tool_error_alone_exits_2_and_with_findings_still_2(project, fake):
    project.write("bin.c", b"\x7fELF\x00\x01\x02")
    r = project.run("check", "bin.c")
    assert r.code == 2
    assert "bin.c: error: not checked: binary file" in r.out
    project.write("a.c", LEAKY)
    r = project.run("check", "bin.c", "a.c")
    assert r.code == 2  # tool errors win: findings must not hide a unit that was not checked
    assert "a.c:2:7: error:" in r.out and "bin.c: error:" in r.out
    assert analyzed(fake) == ["a.c"]  # the binary file never reaches libclang


def test_every_combination_of_findings_errors_warnings_and_exit_zero(project, fake):
    """The table in README "Exit codes", row by row, with and without --exit-zero."""
    project.write("leak.c", LEAKY)
    project.write("clean.c", CLEAN)
    project.write("bin.c", b"\x00")
    project.write("empty/readme.txt", "no sources here")  # a tool warning
    cases = [
        (["clean.c"], 0),
        (["clean.c", "empty"], 0),
        (["leak.c"], 1),
        (["leak.c", "empty"], 1),
        (["bin.c"], 2),
        (["bin.c", "empty"], 2),
        (["bin.c", "leak.c"], 2),
        (["bin.c", "leak.c", "empty"], 2),
    ]
    for paths, expected in cases:
        assert project.run("check", *paths).code == expected, paths
        assert project.run("check", "--exit-zero", *paths).code == 0, paths
    # Usage and configuration errors are 2 even with --exit-zero.
    assert project.run("check", "--exit-zero", "missing.c").code == 2
    assert project.run("check", "--exit-zero", "--select", "RC999", "leak.c").code == 2


def test_check_help_states_the_exit_codes(project):
    r = project.run("check", "--help")
    text = " ".join(r.out.split())
    assert "2 tool errors" in text and "with or without findings" in text and "--exit-zero" in text


def test_not_utf8_file_is_checked_without_traceback(project, fake):
    project.write("latin1.c", "/* caf\xe9 */\nvoid f(void) { t = LEAK(1); }\n".encode("latin-1"))
    r = project.run("check", "latin1.c")
    assert r.code == 1
    assert "latin1.c:2:" in r.out and "Traceback" not in r.err


def test_missing_path_is_a_usage_error(project, fake):
    r = project.run("check", "nope.c")
    assert r.code == 2
    assert r.err.strip() == "refcheck: error: nope.c: no such file or directory"


def test_a_missing_path_beside_good_ones_keeps_their_results(project, fake):
    project.write("a.c", LEAKY)
    project.write("docs/readme.txt", "hello")
    r = project.run("check", "nope.c", "a.c", "docs")
    assert r.code == 2  # a per-file error for the bad path wins over the findings
    assert "a.c:2:7: error:" in r.out
    assert "nope.c: error: no such file or directory [tool]" in r.out
    assert "docs: warning: no C, C++ or CUDA sources" in r.out
    assert "Traceback" not in r.err
    assert analyzed(fake) == ["a.c"]


def test_directory_without_sources_is_a_warning_not_an_error(project, fake):
    project.write("docs/readme.txt", "hello")
    r = project.run("check", "docs")
    assert r.code == 0
    assert "docs: warning: no C, C++ or CUDA sources in this directory" in r.out
    assert "0 findings, 1 warning in 0 files" in r.err
    project.write("a.c", LEAKY)
    assert project.run("check", "docs", "a.c").code == 1


def test_non_source_file_is_a_usage_error_and_headers_are_skipped(project, fake):
    project.write("notes.txt", "x")
    project.write("a.h", "void f(void);\n")
    assert "notes.txt: not a C, C++ or CUDA source" in project.run("check", "notes.txt").err
    r = project.run("check", "a.h")
    assert r.code == 0 and analyzed(fake) == []


def test_all_default_extensions_are_units(project, fake):
    for ext in ("c", "cc", "cpp", "cxx", "cu"):
        project.write(f"d/x.{ext}", CLEAN)
    project.write("d/x.h", CLEAN)
    project.write(".hidden/y.c", CLEAN)
    project.run("check", "d", ".")
    assert analyzed(fake) == ["x.c", "x.cc", "x.cpp", "x.cu", "x.cxx"]


def test_json_format_and_output_file(project, fake):
    project.write("a.c", LEAKY)
    r = project.run("check", "--format", "json", "-o", "out.json", "a.c")
    assert r.code == 1 and r.out == ""
    data = json.loads((project.root / "out.json").read_text())
    assert [f["rule"] for f in data["findings"]] == ["RC001"]
    assert set(data["stats"]) == {"files", "functions", "seconds"}
    assert data["stats"]["files"] == 1


def test_every_format_renders(project, fake):
    project.write("a.c", LEAKY)
    for fmt in ("text", "json", "sarif", "github", "html"):
        r = project.run("check", "--format", fmt, "a.c")
        assert r.code == 1 and r.out, fmt
    assert project.run("check", "--format", "xml", "a.c").code == 2


def test_output_to_unwritable_place_is_an_error(project, fake):
    project.write("a.c", CLEAN)
    r = project.run("check", "-o", "missing/dir/out.txt", "a.c")
    assert r.code == 2 and "cannot write output" in r.err


def test_quiet_and_statistics(project, fake):
    project.write("a.c", LEAKY)
    r = project.run("check", "-q", "a.c")
    assert r.err == ""
    r = project.run("check", "--statistics", "--no-cache", "a.c")
    assert "RC001    leak" in r.err
    for stage in ("parse", "cfg", "analysis", "report"):
        assert f"\n{stage}" in r.err


def test_select_and_ignore(project, fake):
    project.write("a.c", LEAKY)
    assert project.run("check", "--select", "RC002,RC003", "a.c").code == 0
    assert project.run("check", "--select", "RC00", "a.c").code == 1  # a prefix
    assert project.run("check", "--ignore", "RC001", "a.c").code == 0
    r = project.run("check", "--select", "RC999", "a.c")
    assert r.code == 2 and "RC999" in r.err


def test_preprocessor_and_clang_options_reach_the_engine(project, fake):
    project.write("a.c", "void f(void) { LEAK_IF_FOO; }\n")
    assert project.run("check", "a.c").code == 0
    assert project.run("check", "-D", "FOO", "a.c").code == 1
    assert project.run("check", "-DFOO", "a.c").code == 1
    assert project.run("check", "--clang-arg=-DFOO", "a.c").code == 1
    ok = project.run("check", "-I", "inc", "-U", "BAR", "--std", "c11", "--clang-arg=-x",
                     "--clang-arg=c", "--errors", "unwind", "--no-cache", "a.c")
    assert ok.code == 0, ok.err


def test_no_cache_before_any_cache_exists(project, fake):
    project.write("a.c", CLEAN)
    assert project.run("check", "--no-cache", "a.c").code == 0
    assert not (project.root / ".refcheck_cache").exists()


def test_unknown_option_is_a_usage_error(project, fake):
    r = project.run("check", "--frobnicate")
    assert r.code == 2 and "No such option" in r.err


def test_rules_lists_every_rule(project):
    r = project.run("rules")
    assert r.code == 0
    for code, rule in RULES.items():
        assert f"{code}  {rule.name}" in r.out


def test_explain_prints_the_rule_doc(project):
    for code in RULES:
        r = project.run("explain", code.lower())
        assert r.code == 0
        assert r.out == (REPO / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8")
    r = project.run("explain", "RC999")
    assert r.code == 2 and "unknown rule 'RC999'" in r.err


def test_explain_takes_the_rule_name_in_any_case(project):
    for code, rule in RULES.items():
        for given in (rule.name, rule.name.upper(), f" {code.lower()} "):
            r = project.run("explain", given)
            assert r.code == 0, given
            assert r.out == rule.doc


def test_explain_suggests_a_near_name_and_exits_2(project):
    r = project.run("explain", "lek")
    assert r.code == 2 and r.out == ""
    assert "unknown rule 'lek'; did you mean 'leak'?" in r.err
    assert "RC001 leak" in r.err and "Traceback" not in r.err
    r = project.run("explain", "RC999")
    assert r.code == 2 and "did you mean" not in r.err  # codes are one digit apart: no guess


def test_version(project):
    r = project.run("--version")
    assert r.code == 0 and "refcheck" in r.out


def test_real_process_exit_codes(project):
    project.write("a.c", LEAKY)
    assert project.call("check", "a.c").code == 1
    assert project.call("check", "missing.c").code == 2


def test_each_parser_option_becomes_a_clang_argument(project, fake):
    inc = str(project.root / "inc")
    for args, expected in [
        (["-I", "inc"], f"-I{inc}"),
        (["-Iinc"], f"-I{inc}"),
        (["-U", "NDEBUG"], "-UNDEBUG"),
        (["--std", "c99"], "-std=c99"),
        (["--std=gnu11"], "-std=gnu11"),
        (["--clang-arg", "-fms-extensions"], "-fms-extensions"),
        (["--clang-arg=-w"], "-w"),
    ]:
        project.write("a.c", f"void f(void) {{ LEAK_IF_ARG[{expected}]; }}\n")
        assert project.run("check", "--no-cache", *args, "a.c").code == 1, (args, expected)
        assert project.run("check", "--no-cache", "a.c").code == 0, args


def test_configuration_parser_keys_become_clang_arguments(project, fake):
    project.write("refcheck.toml", "include-dirs = ['inc']\ndefines = ['A=1']\nundefines = ['B']\n"
                                   "std = 'c11'\nclang-args = ['-w']\n")
    inc = str(project.root / "inc")
    for expected in (f"-I{inc}", "-DA=1", "-UB", "-std=c11", "-w"):
        project.write("a.c", f"void f(void) {{ LEAK_IF_ARG[{expected}]; }}\n")
        assert project.run("check", "--no-cache", "a.c").code == 1, expected
