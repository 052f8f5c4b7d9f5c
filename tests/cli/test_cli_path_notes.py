"""Path notes: by default only the steps that bear on the reported reference (real analyzer)."""

from __future__ import annotations

import json

from refcheck.caches.cache import dump_result, load_result
from refcheck.findings import Finding, Location, Step, UnitResult, bearing_path

HEAD = ("typedef struct T T;\nT *T_new(void);\nT *T_newCopy(T *x);\nvoid T_free(T *t);\n"
        "int use(T *t, int k);\n")
# Branches of `n > 0 ? 1 : 2` in argument lists have nothing to do with `t`; `if (!t)` and
# `if (u)` (u held t) do; so does the release.
SOURCE = HEAD + """\
int f(T *x, int n) {
  T *t = T_newCopy(x);
  if (!t)
    return 0;
  use(x, n > 0 ? 1 : 2);
  use(x, n > 5 ? 3 : 4);
  T *u = t;
  if (u)
    use(u, 0);
  if (n > 9)
    return -1;
  T_free(t);
  return 0;
}
"""


def _path(project, *args) -> list[str]:
    r = project.run("check", "--no-cache", "--format", "json", *args, "f.c")
    assert r.code == 1, r.out + r.err
    (finding,) = json.loads(r.out)["findings"]
    return [f'{s["line"]}: {s["message"]}' for s in finding["path"]]


def test_only_steps_about_the_reference_by_default_and_every_one_with_full_path(project):
    project.write("f.c", SOURCE)
    assert _path(project) == [
        "7: acquired here by T_newCopy",
        "8: taking the true branch (t)",  # `!t` shown as the source tests it
        "13: taking the true branch (u)",
        "16: not released before this return",
    ]
    full = _path(project, "--full-path")
    assert "15: taking the true branch (n > 9)" in full
    assert sum("n > 0" in s or "n > 5" in s for s in full) == 2
    assert len(full) == 7


def test_the_cache_keeps_every_step_and_what_bears():
    loc = Location("a.c", 1, 1)
    path = [Step(loc, "acquired"), Step(loc, "taking the true branch (n)", False), Step(loc, "lost")]
    f = Finding("RC001", "leak", loc, "f", "m", path, ["f"], loc)
    back = load_result(dump_result(UnitResult("a.c", [f])))
    assert back.findings[0].path == tuple(path)
    assert [s.message for s in bearing_path(back.findings[0].path)] == ["acquired", "lost"]


def test_a_null_comparison_names_the_branch_the_source_takes(project):
    # `if (t == NULL) return 0;` passed with t non-NULL is the source's false branch (the node
    # tests t non-NULL); `if (t != NULL)` taken is its true branch.
    project.write("f.c", "#include <stddef.h>\n" + HEAD + """\
int f(T *x, int n) {
  T *t = T_newCopy(x);
  if (t == NULL)
    return 0;
  if (t != NULL)
    use(t, 0);
  if (n > 9)
    return -1;
  T_free(t);
  return 0;
}
""")
    assert _path(project) == [
        "8: acquired here by T_newCopy",
        "9: taking the false branch (t == NULL)",
        "11: taking the true branch (t != NULL)",
        "14: not released before this return",
    ]
