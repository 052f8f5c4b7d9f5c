"""A known NULL loaded from a field is forgotten even where a later load of the same text may
follow (`analysis.liveness`): a loop's Py_CLEARs keep one state per point, not one per
combination of fields found NULL (apsw's APSWCursor_step), and the leak in such a loop stays."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from cunit import FIXTURES, graphs
from refcheck.analysis import analyze
from refcheck.conventions.presets import PRESETS

INCLUDE = sysconfig.get_paths()["include"]
pytestmark = pytest.mark.skipif(not (Path(INCLUDE) / "Python.h").exists(), reason="no Python.h")


def test_a_loop_of_field_clears_keeps_no_combinations_of_nulls():
    conv = PRESETS["cpython"].conventions
    cfgs = graphs(FIXTURES / "cpython_cleared_in_loop.c", conv, clang_args=[f"-I{INCLUDE}"])
    clean, leak = analyze(cfgs["cursor_step"], conv), analyze(cfgs["cursor_step_leak"], conv)
    # 597 and 220 states while each field's NULL arm was kept apart from its released arm.
    assert clean.states < 150 and not clean.findings and not clean.incomplete
    assert leak.states < 80
    assert [(f.rule, f.location.line) for f in leak.findings] == [("RC001", 46)]
