"""The unit's counted types (`frontend.handles`), walked only when a call asks them."""

from __future__ import annotations

import pickle

from refcheck.conventions import Conventions
from refcheck.driver import engine
from refcheck.frontend import handles

DECLS = """typedef struct THClState THClState;
typedef struct THClTensor THClTensor;
THClTensor *THClTensor_newv2(THClState *s, int n);
void THClTensor_free(THClState *s, THClTensor *t);
"""
USES = DECLS + """void use(THClState *s, THClTensor *t);
void f(THClState *state) { THClTensor *t = THClTensor_newv2(state, 1); use(state, t); }
void g(THClState *state) { THClTensor *t = THClTensor_newv2(state, 1); THClTensor_free(state, t); }
"""


def _check(tmp_path, text: str, monkeypatch, eager: bool):
    walks = []
    real = handles.counted_types

    def counted(top, conv):
        walks.append(1)
        return real(top, conv)

    monkeypatch.setattr(handles, "counted_types", counted)
    if eager:  # off: walked with the parse, as before
        monkeypatch.setattr(handles, "CountedTypes", lambda top, conv: counted(top, conv))
    src = tmp_path / "u.c"
    src.write_text(text)
    r = engine.check_unit(str(src), engine.Settings(conventions=Conventions(), clang_args=[]))
    monkeypatch.undo()
    return sorted((f.rule, repr(f)) for f in r.findings), len(walks)


def test_a_unit_without_definitions_never_walks_its_declarations(tmp_path, monkeypatch):
    assert _check(tmp_path, DECLS, monkeypatch, eager=False) == ([], 0)
    assert _check(tmp_path, DECLS, monkeypatch, eager=True) == ([], 1)


def test_walked_when_asked_the_findings_are_the_eager_walks(tmp_path, monkeypatch):
    lazy, walks = _check(tmp_path, USES, monkeypatch, eager=False)
    eager, _ = _check(tmp_path, USES, monkeypatch, eager=True)
    assert walks == 1 and lazy == eager and [r for r, _ in lazy] == ["RC001"]  # f leaks t; state is a handle


def test_counted_types_read_as_the_set_and_pickle_as_one():
    class Top(list):
        pass

    got = handles.CountedTypes(Top(), Conventions())
    assert not got and got == frozenset() and "T" not in got and len(got) == 0
    assert pickle.loads(pickle.dumps(got)) == frozenset()


def test_what_a_declaration_counts_is_remembered_per_name_and_kept_by_unit_copies():
    from refcheck.conventions import Counts
    conv = Conventions()
    assert conv.counts("THClTensor_newv2") is Counts.RESULT
    assert conv.counts("THClTensor_free") is Counts.ARGUMENT
    assert conv.counts("THClTensor_retain") is Counts.ARGUMENT
    assert conv.counts("THClTensor_nDimension") is Counts.NOTHING
    assert conv.counts("") is Counts.NOTHING
    unit = conv.for_unit(unit_counted=frozenset({"THClTensor"}))
    assert unit._counts is conv._counts  # the walk of every unit fills one table
