"""Baselines: accepted findings stay accepted across line shifts; changed statements are new."""

from __future__ import annotations

import json

import pytest

HEAD = "typedef struct T T;\nT *T_new(void);\nT *T_newCopy(T *x);\nvoid T_free(T *t);\nvoid use(T *t);\n"
LEAK = "void f(T *x) {\n  T *t = T_new();\n  use(t);\n}\n"


def test_write_then_check_against_baseline(project):
    project.write("a.c", HEAD + LEAK)
    r = project.run("check", "--write-baseline", "rc-baseline.json", "a.c")
    assert r.code == 0, r.out + r.err
    assert "wrote 1 finding(s) to baseline rc-baseline.json" in r.err
    data = json.loads((project.root / "rc-baseline.json").read_text())
    assert data["tool"] == "refcheck" and [f["rule"] for f in data["findings"]] == ["RC001"]
    assert "line" not in data["findings"][0]
    r = project.run("check", "--baseline", "rc-baseline.json", "a.c")
    assert r.code == 0 and r.out == ""
    assert "1 in baseline" in r.err


def test_baseline_survives_lines_inserted_above(project):
    project.write("a.c", HEAD + LEAK)
    project.run("check", "--write-baseline", "b.json", "a.c")
    project.write("a.c", HEAD + "/* a comment\n   and more */\nint unrelated(void) { return 1; }\n\n" + LEAK)
    r = project.run("check", "--baseline", "b.json", "a.c")
    assert r.code == 0, r.out


def test_changed_statement_is_a_new_finding(project):
    project.write("a.c", HEAD + LEAK)
    project.run("check", "--write-baseline", "b.json", "a.c")
    project.write("a.c", HEAD + LEAK.replace("T_new()", "T_newCopy(x)"))
    r = project.run("check", "--baseline", "b.json", "a.c")
    assert r.code == 1 and "T_newCopy" in r.out


def test_a_second_copy_of_an_accepted_finding_is_new(project):
    project.write("a.c", HEAD + LEAK)
    project.run("check", "--write-baseline", "b.json", "a.c")
    project.write("a.c", HEAD + LEAK.replace("f(T *x)", "g(T *x)") + LEAK)
    r = project.run("check", "--baseline", "b.json", "a.c")
    assert r.code == 1
    assert r.out.count("error:") == 1 and "a.c:9:" in r.out  # the one in g, the new function


def test_other_rules_are_new(project):
    project.write("a.c", HEAD + LEAK)
    project.run("check", "--write-baseline", "b.json", "a.c")
    project.write("a.c", HEAD + LEAK + "void h(T *y) {\n  T_free(y);\n}\n")
    r = project.run("check", "--baseline", "b.json", "a.c")
    assert r.code == 1 and "[RC006 release-of-borrowed]" in r.out and "RC001" not in r.out


@pytest.mark.parametrize("content, message", [
    (None, "b.json: baseline not found (create it with --write-baseline)"),
    ("{", "b.json: not a refcheck baseline (not valid JSON"),
    ('{"tool": "other", "findings": []}', "b.json: not a refcheck baseline"),
    ('{"tool": "refcheck", "version": 7, "findings": []}', "baseline version 7 is not supported"),
    ('{"tool": "refcheck", "version": 1, "findings": [{"rule": "RC001"}]}', "findings[0]"),
])
def test_bad_baseline_is_a_usage_error(project, content, message):
    project.write("a.c", HEAD + LEAK)
    if content is not None:
        project.write("b.json", content)
    r = project.run("check", "--baseline", "b.json", "a.c")
    assert r.code == 2
    assert message in r.err and r.err.count("\n") == 1


def test_bad_baseline_is_reported_before_any_analysis(project, fake):
    from cli_helpers import analyzed

    project.write("a.c", "void f(void) { t = LEAK(1); }\n")
    project.write("b.json", "[]")
    assert project.run("check", "--baseline", "b.json", "a.c").code == 2
    assert analyzed(fake) == []


def test_summary_counts_baseline_entries_now_fixed(project):
    project.write("a.c", HEAD + LEAK + LEAK.replace("f(T *x)", "g(T *x)"))
    project.write("b.c", HEAD + LEAK)
    project.run("check", "--write-baseline", "b.json", "a.c", "b.c")
    r = project.run("check", "--baseline", "b.json", "a.c", "b.c")
    assert r.code == 0 and "now fixed" not in r.err
    # Fix the leak in g: one entry of a.c is no longer found.
    project.write("a.c", HEAD + LEAK + LEAK.replace("f(T *x)", "g(T *x)").replace("  use(t);\n", "  T_free(t);\n"))
    r = project.run("check", "--baseline", "b.json", "a.c", "b.c")
    assert r.code == 0, r.out
    assert "(2 in baseline, 1 baseline entry now fixed)" in r.err
    # A run over b.c alone says nothing about a.c's entries.
    r = project.run("check", "--baseline", "b.json", "b.c")
    assert "now fixed" not in r.err
    project.write("a.c", HEAD)
    r = project.run("check", "--baseline", "b.json", "a.c", "b.c")
    assert "(1 in baseline, 2 baseline entries now fixed)" in r.err
