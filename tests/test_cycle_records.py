"""A check is a function of the definition and the records it asks (the per-function cache,
replayed checks and shared instances rest on it): a cycle's assumption travels in the records
it places (`Summary.assumed`), never beside them (issue 31, cpy15)."""

from __future__ import annotations

import sysconfig
from dataclasses import replace

import pytest
from cunit import check, parse_unit

from refcheck.analysis import analyze
from refcheck.conventions.presets import PRESETS
from refcheck.conventions.summary import Effect, Source, Summary, SummaryTable, exported
from refcheck.driver import repeats
from refcheck.frontend.builder import build_cfg
from refcheck.reuse.renaming import class_key

HEADERS = sysconfig.get_paths()["include"]
TAKES = Summary(arguments=((0, Effect.CONSUME),), source=Source.INFERRED)

# `member` is a cycle's (immutables' map_node_find); `user` returns a status and hands `o` on
# one path only: a steal where member's record is its body's, no evidence where it is the
# cycle's assumption.
USER = """#include <Python.h>
int member(PyObject *o, int n);
int user(PyObject *o, int n) { if (n == 0) return 0; return member(o, n - 1); }
"""


def _user(tmp_path, record: Summary):
    path = tmp_path / "user.c"
    path.write_text(USER)
    parsed = parse_unit(path, [f"-I{HEADERS}"], clean=True)
    fn = next(f for f in parsed.functions if f.spelling == "user")
    conv = replace(PRESETS["cpython"].conventions, inferred=SummaryTable({"member": record}))
    cfg = build_cfg(fn, conv)
    return analyze(cfg, conv, 100_000, 10.0), class_key(cfg, conv)[0]


@pytest.mark.skipif(not (__import__("pathlib").Path(HEADERS) / "Python.h").exists(), reason="no Python.h")
def test_the_assumption_is_in_the_record_the_check_asked(tmp_path):
    real, real_key = _user(tmp_path, TAKES)
    assumed, assumed_key = _user(tmp_path, replace(TAKES, assumed=True))
    again, again_key = _user(tmp_path, replace(TAKES, assumed=True))
    # The same records give the same check, whatever else is under way.
    assert again.summary == assumed.summary and again_key == assumed_key
    # Records that differ only in the mark give different checks, and different graphs: two
    # instances sharing a class key never swap them.
    assert real.summary.effect_of(0) is Effect.CONSUME
    assert assumed.summary.effect_of(0) is None
    assert real_key != assumed_key


def test_the_mark_is_part_of_equality_and_digest_but_not_of_what_other_units_get():
    marked = replace(TAKES, assumed=True)
    assert marked != TAKES and marked.digest() != TAKES.digest()
    assert exported(marked) == TAKES
    assert not replace(Summary(), assumed=True).says_something
    table = SummaryTable({"member": marked})
    assert table.used(["member"]) != SummaryTable({"member": TAKES}).used(["member"])


def test_a_check_made_under_the_assumption_is_not_replayed_without_it():
    # A check that handed something to `member` read its mark (`SummaryTable.marks_read`).
    made = repeats.Repeats()
    under = repeats.Check((("member", replace(TAKES, assumed=True)),), ((), (), 1, ()), None, (), 0.1,
                          frozenset({"member"}))
    made.note(0, under)
    assert made.find(0, {"member": replace(TAKES, assumed=True)}) is under
    assert made.find(0, {"member": TAKES}) is None


CYCLE = """#include <Python.h>
void b(PyObject *o, int n);
void a(PyObject *o, int n) { if (n > 0) b(o, n - 1); else Py_DECREF(o); }
void b(PyObject *o, int n) { a(o, n); }
int caller(int n) { PyObject *o = PyLong_FromLong(n); if (o == NULL) return -1; a(o, n); return 0; }
"""


@pytest.mark.skipif(not (__import__("pathlib").Path(HEADERS) / "Python.h").exists(), reason="no Python.h")
def test_a_settled_cycle_exports_its_records_unmarked(tmp_path):
    path = tmp_path / "cycle.c"
    path.write_text(CYCLE)
    result = check(path, PRESETS["cpython"].conventions, [f"-I{HEADERS}"])
    assert result.exports["a"].effect_of(0) is Effect.CONSUME and result.exports["b"].effect_of(0) is Effect.CONSUME
    assert not any(s.assumed for s in result.exports.values())
    assert not [f for f in result.findings if f.location.file == "cycle.c"]
