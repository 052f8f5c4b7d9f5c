"""The constants a body's returns give its callers, read off its graph (`analysis.constresults`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from refcheck.analysis.constresults import constant_if_null, result_constant
from refcheck.conventions.summary import Source, Summary, agreed, exported
from cunit import CUnit

PRELUDE = "typedef struct T T;\nT *T_new(void);\nvoid T_free(T *t);\nint use(T *t);\n"


def cfg_of(tmp_path, body: str, name: str = "f"):
    return CUnit(tmp_path).cfg(PRELUDE + body, name, name="u.c")


@pytest.mark.parametrize("body, always, if_null", [
    ("int f(T *a, T *b) { if (!b) return 0; T *t = T_new(); int r = use(t); T_free(t); return r; }", None, ((1, 0),)),
    # a: a return before its test (of the same constant, but not read so): only b's pair.
    ("int f(T *a, T *b) { if (b == NULL) { return -1; } T *t = T_new(); T_free(t); if (!a) return -1; return 1; }",
     None, ((1, -1),)),
    # A return its NULL may reach before the test: no pair.
    ("int f(T *a, T *b) { if (use(a)) return -1; if (!b) return 0; T *t = T_new(); T_free(t); return 1; }",
     None, ()),
    # The parameter replaced before its test: no pair.
    ("int f(T *a, T *b) { if (use(a)) b = a; if (!b) return 0; T *t = T_new(); T_free(t); return 1; }", None, ()),
    # Its NULL edge reaches two constants: no pair.
    ("int f(T *a, T *b) { if (!b) { if (use(a)) return 1; return 0; } T *t = T_new(); T_free(t); return 2; }",
     None, ()),
    ("int f(T *a) { T *t = T_new(); T_free(t); return 0; }", 0, ()),
    ("int f(T *a) { T *t = T_new(); if (!t) return -1; T_free(t); return 0; }", None, ()),
    ("void f(T *a) { T *t = T_new(); if (!a) return; T_free(t); }", None, ()),
])
def test_constant_results_of_a_body(tmp_path, body, always, if_null):
    cfg = cfg_of(tmp_path, "#define NULL ((void *)0)\n" + body)
    assert result_constant(cfg) == always
    assert constant_if_null(cfg) == if_null


def test_constant_results_agree_by_value_and_stay_in_their_unit():
    a = Summary(result_constant=0, constant_if_null=((1, 0), (2, -1)), source=Source.INFERRED)
    b = Summary(result_constant=-1, constant_if_null=((1, 0),), source=Source.INFERRED)
    both = agreed(a, b)
    assert both.result_constant is None and both.constant_if_null == ((1, 0),)
    assert a.says_something and not exported(a).says_something
    assert exported(replace(a, unkept=(0,))) == Summary(source=Source.INFERRED)
