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
    assert r.code == 2  # tool errors win over findings
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


def test_errors_mode_changes_the_result(project):
    project.write("a.c", HEAD + 'void THError(const char *fmt, ...);\n'
                               'void f(int c) {\n  T *t = T_new();\n  if (c) THError("bad");\n'
                               '  T_free(t);\n}\n')
    assert project.run("check", "a.c").code == 0
    r = project.run("check", "--errors", "unwind", "a.c")
    assert r.code == 1 and r.out.startswith("a.c:8:10: error:") and "[RC001 leak]" in r.out
    project.write("refcheck.toml", "errors = 'unwind'\n")
    assert project.run("check", "a.c").code == 1
    assert project.run("check", "--errors", "abort", "a.c").code == 0


def test_cpython_preset_end_to_end(project):
    project.write("refcheck.toml", "preset = 'cpython'\n")
    project.write("mod.c", """
typedef struct _object PyObject;
PyObject *PyList_New(long n);
PyObject *PyLong_FromLong(long v);
PyObject *PyList_GetItem(PyObject *l, long i);
int PyList_Append(PyObject *l, PyObject *v);
void Py_DECREF(PyObject *o);
PyObject *build(long v) {
  PyObject *list = PyList_New(0);
  if (!list) return 0;
  PyObject *item = PyLong_FromLong(v);
  if (!item) return 0;
  PyList_Append(list, item);
  Py_DECREF(item);
  PyObject *first = PyList_GetItem(list, 0);
  (void)first;
  return list;
}
""")
    r = project.run("check", "mod.c")
    # Only the early return that drops `list`; a borrowed item and the owned return are fine.
    assert r.code == 1, r.err
    assert [line.split(" error:")[0] for line in r.out.splitlines() if " error:" in line] == ["mod.c:11:14:"]


def test_glib_preset_end_to_end(project):
    project.write("refcheck.toml", "preset = 'glib'\n")
    project.write("g.c", """
typedef struct _GString GString;
GString *g_string_new(const char *init);
char *g_string_free(GString *s, int free_segment);
char *g_strdup(const char *s);
void g_free(void *p);
void f(void) {
  GString *s = g_string_new("x");
  char *c = g_strdup("y");
  g_free(c);
}
void g(void) {
  GString *s = g_string_new("x");
  g_string_free(s, 1);
}
""")
    r = project.run("check", "g.c")
    assert r.code == 1, r.err
    assert r.out.startswith("g.c:10:1: error: 's'") and r.out.count(" error:") == 1


def test_owned_returns_at_one_return_are_one_rc004_finding(project):
    project.write("r.c", "typedef struct T T;\nT *T_new(void);\nT *T_newCopy(T *x);\n"
                         "T *one(T *x, int c) {\n  T *t;\n  if (c)\n    t = T_new();\n  else\n"
                         "    t = T_newCopy(x);\n  return t;\n}\n")
    r = project.run("check", "--select", "RC004", "--format", "json", "r.c")
    assert r.code == 1, r.out + r.err
    (finding,) = __import__("json").loads(r.out)["findings"]
    assert finding["line"] == 10
    assert finding["message"] == (
        "'t' (acquired by T_new at line 7) and 't' (acquired by T_newCopy at line 9) are "
        "returned owned from a function whose name does not begin with 'new'")
