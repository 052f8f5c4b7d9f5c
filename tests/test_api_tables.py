"""Calls through a library's function-pointer table (NumPy's PyArray_API), named by the header's
macro (frontend/api_tables.py), and the NumPy records those names get (data/numpy_api.py)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from refcheck.conventions import Conventions
from refcheck.conventions.presets import PRESETS, numpy_table
from refcheck.conventions.summary import Effect, Returns
from refcheck.conventions.records import parse_record
from refcheck.data import numpy_api
from refcheck.frontend.api_tables import header_names

HEADER = r"""
#ifndef LIB_API_H
#define LIB_API_H
struct obj { int n; };
#ifdef LIB_UNIQUE_SYMBOL
#define Lib_API LIB_UNIQUE_SYMBOL
#endif
extern void **Lib_API;
#define Lib_Make \
        (*(struct obj * (*)(int)) \
    Lib_API[3])
#define Lib_Drop (*(void (*)(struct obj *)) Lib_API[4])
#define Lib_Type (*(int *)Lib_API[0])
#endif
"""

SOURCE = r"""
#include "lib_api.h"
int f(int n)
{
  struct obj *o = Lib_Make(n);
  if (!o)
    return -1;
  if (n > 3)
    return 1; /* o leaks */
  Lib_Drop(o);
  return 0;
}
"""

RECORDS = {"Lib_Make": parse_record({"returns": "owned"}, "test"),
           "Lib_Drop": parse_record({"arguments": {"0": "consume"}}, "test")}


def _conv(tables: list[str]) -> Conventions:
    return replace(Conventions(), summaries=RECORDS, api_tables=tables, errors="abort")


def test_header_macros_over_a_table_are_read_by_element(tmp_path):
    path = tmp_path / "lib_api.h"
    path.write_text(HEADER)
    names = header_names(str(path), ("Lib_API",))
    assert names[("Lib_API", 3)] == "Lib_Make" and names[("Lib_API", 4)] == "Lib_Drop"
    assert header_names(str(path), ("Other_API",)) == {}


@pytest.mark.parametrize("args", [[], ["-DLIB_UNIQUE_SYMBOL=my_ext_api"]], ids=["plain", "unique-symbol"])
def test_a_call_through_the_table_gets_the_macros_record(c_unit, args):
    c_unit.write("lib_api.h", HEADER)
    c_unit.write("u.c", SOURCE)
    result = c_unit.check("u.c", _conv(["Lib_API"]), ["-I", str(c_unit.directory), *args])
    found = [(f.rule, f.location.line) for f in result.findings]
    assert found == [("RC001", 9)]  # the leak of Lib_Make's result; Lib_Drop took it over
    # Without the table configured, the call is an indirect one returning a borrowed pointer:
    # the leak is missed.
    unnamed = c_unit.check("u.c", _conv([]), ["-I", str(c_unit.directory), *args]).findings
    assert unnamed == []


SAMPLE = r"""
NPY_NO_EXPORT NPY_STEALS_REF_TO_ARG(2) PyObject * PyArray_FromAny \
       (PyObject *, PyArray_Descr *, int, int, int, PyObject *);
NPY_NO_EXPORT  PyArray_Descr * PyArray_DescrFromType \
       (int);
NPY_NO_EXPORT NPY_STEALS_REF_TO_ARG(2) int PyArray_SetBaseObject \
       (PyArrayObject *, PyObject *);
NPY_NO_EXPORT  void * PyDataMem_NEW \
       (size_t);
NPY_NO_EXPORT  int PyArray_CopyInto \
       (PyArrayObject *, PyArrayObject *);
"""


def test_the_generator_reads_steals_and_object_results():
    r = numpy_api.parse(SAMPLE)
    assert r["PyArray_FromAny"] == {"returns": "owned", "arguments": {"1": "consume"}}
    assert r["PyArray_DescrFromType"] == {"returns": "owned"}
    assert r["PyArray_SetBaseObject"] == {"arguments": {"1": "consume"}}
    assert "PyDataMem_NEW" not in r and "PyArray_CopyInto" not in r  # C data, and nothing to say


def test_the_committed_table_says_what_numpys_reference_says():
    """"This function steals a reference to *descr*" (PyArray_NewFromDescr, PyArray_FromAny's
    dtype, PyArray_Zeros/Empty), "to *arr*" (PyArray_Return), "to ``obj``" (SetBaseObject);
    arrays and data-type objects are returned as new references."""
    t = numpy_table()
    for name, steals in (("PyArray_FromAny", 1), ("PyArray_CheckFromAny", 1), ("PyArray_NewFromDescr", 1),
                         ("PyArray_Zeros", 2), ("PyArray_Empty", 2), ("PyArray_Return", 0)):
        assert t[name].returns is Returns.OWNED and t[name].effects(8)[steals] is Effect.CONSUME, name
    assert t["PyArray_SetBaseObject"].effects(2)[1] is Effect.CONSUME
    for name in ("PyArray_DescrFromType", "PyArray_New", "PyArray_NewCopy", "PyUFunc_FromFuncAndData"):
        assert t[name].returns is Returns.OWNED, name
    conv = PRESETS["cpython"].conventions
    assert conv.api_tables == ["PyArray_API", "PyUFunc_API"]
    assert conv.summary("PyArray_FromAny").returns is Returns.OWNED


def test_the_committed_table_is_the_installed_headers_when_the_versions_agree():
    numpy = pytest.importorskip("numpy", reason="numpy is not installed")
    doc = json.loads(numpy_api.OUT.read_text())
    if numpy.__version__ != doc["version"]:
        pytest.skip(f"the table is of NumPy {doc['version']}, numpy {numpy.__version__} is installed")
    from pathlib import Path

    assert numpy_api.generate(Path(numpy.get_include()), numpy.__version__) == doc
