"""End to end on the real analyzer: generic-style included .c files, odd bytes, `refcheck cfg`."""

from __future__ import annotations

HEAD = "typedef struct T T;\nT *T_new(void);\nvoid T_free(T *t);\nvoid use(T *t);\n"


def test_a_c_file_included_by_another_unit_is_checked_through_it(project):
    # Like TH's generic/*.c: meaningless alone (NAME is defined by the includer).
    project.write("generic/part.c", "void NAME(void) {\n  T *t = T_new();\n  use(t);\n}\n")
    project.write("all.c", HEAD + '#define NAME f_float\n#include "generic/part.c"\n#undef NAME\n'
                           '#define NAME f_double\n#include "generic/part.c"\n')
    r = project.run("check", "--format", "json", ".")
    assert r.code == 1, r.out
    import json
    data = json.loads(r.out)
    assert data["errors"] == []
    (finding,) = data["findings"]
    assert finding["file"] == "generic/part.c" and finding["line"] == 4
    assert data["stats"]["files"] == 1
    # Analyzed after its includer (deeper paths go last), it is not analyzed at all.
    stats = project.run("check", "--no-cache", "-j", "1", "--statistics", ".")
    assert "units    1 reported (1 analyzed, 0 from cache)" in stats.err
    # Named alone, it is a unit of its own (and does not parse).
    assert project.run("check", "generic/part.c").code == 2


def test_latin1_source_is_checked(project):
    text = HEAD + "/* d\xe9j\xe0 vu */\nvoid f(void) {\n  T *t = T_new();\n  use(t);\n}\n"
    project.write("latin1.c", text.encode("latin-1"))
    r = project.run("check", "latin1.c")
    assert r.code == 1 and r.out.startswith("latin1.c:9:1: error:"), r.out + r.err


def test_parse_errors_are_tool_errors_with_others_intact(project):
    project.write("bad.c", "void f(void) { this is not C }\n")
    project.write("good.c", HEAD + "void f(void) {\n  T *t = T_new();\n  use(t);\n}\n")
    r = project.run("check", ".")
    assert r.code == 1
    assert "good.c:8:1: error:" in r.out
    assert "bad.c:1:" in r.out and "[tool]" in r.out


def test_cfg_command(project):
    project.write("a.c", HEAD + "void f(void) {\n  T *t = T_new();\n  if (t) T_free(t);\n}\n")
    text = project.run("cfg", "a.c", "--function", "f")
    assert text.code == 0 and "T_new" in text.out
    dot = project.run("cfg", "a.c", "--function", "f", "--format", "dot")
    assert dot.code == 0 and dot.out.startswith("digraph")
    missing = project.run("cfg", "a.c", "--function", "g")
    assert missing.code == 2 and "no definition of 'g'" in missing.err
    assert project.run("cfg", "nope.c", "--function", "f").code == 2
