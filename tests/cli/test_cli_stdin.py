"""`refcheck check -`: the unit from stdin, named by --stdin-filename (real analyzer)."""

from __future__ import annotations

import json

HEAD = "typedef struct T T;\nT *T_new(void);\nvoid T_free(T *t);\nvoid use(T *t);\n"
LEAK = "void f(int c) {\n  T *t = T_new();\n  if (c == 'x')\n    return;\n  T_free(t);\n}\n"


def test_stdin_is_reported_under_the_given_name_with_its_own_text(project):
    # The file on disk is older than the editor's buffer: the buffer is what is checked and shown.
    project.write("src/a.c", "int nothing_here;\n")
    r = project.run("check", "-", "--stdin-filename", "src/a.c", input=HEAD + LEAK)
    assert r.code == 1, r.out + r.err
    assert r.out.startswith("src/a.c:8:5: error: 't' (acquired by T_new at line 6)")
    assert "    8 |     return;\n" in r.out and "    6 |   T *t = T_new();\n" in r.out
    assert "refcheck-stdin" not in r.out + r.err
    assert r.err.splitlines()[-1].startswith("refcheck: 1 finding in 1 file, 1 function")


def test_stdin_without_a_name_is_stdin_c(project):
    r = project.run("check", "--format", "json", "-", input=HEAD + LEAK)
    assert r.code == 1, r.out + r.err
    (finding,) = json.loads(r.out)["findings"]
    assert finding["file"] == "stdin.c" and finding["line"] == 8
    assert [s["file"] for s in finding["path"]] == ["stdin.c"] * len(finding["path"])


def test_the_name_picks_the_language(project):
    cxx = HEAD + "void f() {\n  T *t = T_new();\n  auto u = t;\n  (void)u;\n}\n"
    r = project.run("check", "-", "--stdin-filename", "x.cpp", input=cxx)
    assert r.code == 1 and r.out.startswith("x.cpp:"), r.out + r.err
    # As C, `auto u = t` does not parse: a tool error on the C name.
    r = project.run("check", "-", "--stdin-filename", "x.c", input=cxx)
    assert r.code == 2 and "x.c:7:" in r.out, r.out + r.err


def test_the_name_gives_flags_includes_and_configuration(project):
    # A header beside the named file, a define from the compile database, an ignore from the
    # configuration of the directory the name is in.
    project.write("lib/own.h", HEAD + "#ifdef WANT\n#define GET() T_new()\n#endif\n")
    project.write("compile_commands.json", json.dumps([{
        "directory": str(project.root), "file": "lib/u.c",
        "arguments": ["cc", "-DWANT", "-c", "lib/u.c"]}]))
    source = '#include "own.h"\nvoid f(void) {\n  T *t = GET();\n  use(t);\n}\n'
    r = project.run("check", "-p", ".", "-", "--stdin-filename", "lib/u.c", input=source)
    assert r.code == 1 and r.out.startswith("lib/u.c:5:1: error:"), r.out + r.err
    project.write("lib/refcheck.toml", "ignore = ['RC001']\n")
    r = project.run("check", "-p", ".", "-", "--stdin-filename", "lib/u.c", input=source)
    assert r.code == 0 and r.out == "", r.out + r.err


def test_suppression_comments_come_from_stdin(project):
    quiet = LEAK.replace("return;", "return;  // refcheck: ignore[RC001]")
    r = project.run("check", "-", "--stdin-filename", "a.c", input=HEAD + quiet)
    assert r.code == 0 and "1 suppressed" in r.err, r.out + r.err


def test_stdin_usage_errors(project):
    project.write("a.c", HEAD)
    r = project.run("check", "-", "a.c", input=HEAD)
    assert r.code == 2 and "cannot be combined with other paths" in r.err
    r = project.run("check", "--stdin-filename", "a.c", "a.c")
    assert r.code == 2 and "give '-' as the path" in r.err
    project.write("d/x.c", HEAD)
    r = project.run("check", "-", "--stdin-filename", "d", input=HEAD)
    assert r.code == 2 and "not a directory" in r.err
    assert "Traceback" not in r.err
