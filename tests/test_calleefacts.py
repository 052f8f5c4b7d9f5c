"""A callee's declaration-only answers (`frontend.calleefacts`): the same as asking libclang, asked
once per unit (plain answers) or per build (parameter types, which hold their unit)."""

from __future__ import annotations

import clang.cindex as ci

from refcheck.frontend import calleefacts, clangutil
from refcheck.frontend.argtypes import defined_here, parameter_types
from refcheck.frontend.binding import arguments, referenced
from tests.cunit import parse_unit

SOURCE = """typedef void (*notify_fn)(void *);
void keep(void *data, notify_fn notify);
static int here(int x) { return x; }
int later(const char *s, ...);
struct ops { int (*call)(int, void *); };
int f(struct ops *o, void *p) {
  keep(p, 0);
  keep(p, 0);
  later("x", p, 1);
  return here(1) + o->call(2, p);
}
"""


def _calls(tmp_path):
    path = tmp_path / "u.c"
    path.write_text(SOURCE)
    parsed = parse_unit(path, clean=True)
    fn = next(f for f in parsed.functions if f.spelling == "f")
    calls = [c for c in fn.walk_preorder() if c.kind == ci.CursorKind.CALL_EXPR]
    return parsed, fn, calls


def _callee(c):
    kids = list(c.get_children())
    head = kids[0]
    while head.kind == ci.CursorKind.UNEXPOSED_EXPR:
        head = next(head.get_children())
    return referenced(head)


def test_answers_are_libclangs_and_kept_per_unit(tmp_path, monkeypatch):
    parsed, fn, calls = _calls(tmp_path)
    decls = {c.spelling: _callee(c) for c in calls}
    assert {n: defined_here(d) for n, d in decls.items()} == \
        {n: d.get_definition() is not None for n, d in decls.items()}
    assert defined_here(decls["here"]) and not defined_here(decls["keep"])
    asked = []
    real = ci.Cursor.get_definition
    monkeypatch.setattr(ci.Cursor, "get_definition", lambda c: asked.append(1) or real(c))
    for _ in range(3):
        defined_here(decls["keep"])
    assert asked == []  # answered from the unit's memo
    assert calleefacts.usr(fn) == fn.get_usr() == calleefacts.usr(fn)


def test_parameter_types_as_declared_then_the_arguments_own(tmp_path):
    parsed, fn, calls = _calls(tmp_path)
    by_name = {c.spelling: c for c in calls}
    for inside in (False, True):  # outside a build: asked each time; inside: kept for the build
        clangutil.reset_kids(fn if inside else None)
        try:
            later = by_name["later"]
            types = parameter_types(_callee(later), arguments(later))
            assert [t.spelling for t in types] == ["const char *", "void *", "int"]
            keep = by_name["keep"]
            first = parameter_types(_callee(keep), arguments(keep))
            again = parameter_types(_callee(keep), arguments(keep))
            assert [t.spelling for t in first] == [t.spelling for t in again] == ["void *", "void (*)(void *)"]  # canonical, as read from the prototype
        finally:
            clangutil.reset_kids()
    assert clangutil.build_memo() is None


def test_the_build_memo_lives_for_one_build(tmp_path):
    parsed, fn, _ = _calls(tmp_path)
    clangutil.reset_kids(fn)
    memo = clangutil.build_memo()
    memo["x"] = 1
    clangutil.reset_kids(fn)
    assert clangutil.build_memo() == {}
    clangutil.reset_kids()
    assert clangutil.build_memo() is None
