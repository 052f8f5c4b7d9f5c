"""C-API functions CPython's headers declare that Doc/data/refcounts.dat does not list, with the
reference behaviour the C API reference (or, for the private `_Py*` ones, the header's comment)
gives them. Without a record they would fall back to the name patterns, and most of these names
say nothing there: a new reference taken for a borrowed one (RC010 when the caller releases it).

Records are written as `[tool.refcheck.summaries.NAME]` tables; a name refcounts.dat lists is
never here (tests/test_cpython_preset.py checks), so the generated table stays what CPython says.
"""

from __future__ import annotations

_OWNED = {"returns": "owned"}
_BORROWED = {"returns": "borrowed"}

EXTRA: dict[str, dict] = {
    # "Get the current frame of the Python thread state tstate. Return a strong reference." (3.9)
    "PyThreadState_GetFrame": _OWNED,
    # PyCode_GetCode/GetVarnames/GetCellvars/GetFreevars: "Return a new reference" (3.11).
    **{f"PyCode_Get{what}": _OWNED for what in ("Code", "Varnames", "Cellvars", "Freevars")},
    # The vectorcall family returns the call's result, a new reference, as PyObject_Call does;
    # _PyObject_Vectorcall is its 3.8 spelling, _PyObject_CallNoArg the 3.8 PyObject_CallNoArgs.
    **{name: _OWNED for name in ("PyObject_Vectorcall", "PyObject_VectorcallDict", "PyObject_VectorcallMethod",
                                 "PyVectorcall_Call", "_PyObject_Vectorcall",
                                 "_PyObject_CallNoArg", "_PyObject_FastCall", "_PyObject_FastCallDict")},
    # Py_GetConstant: "Return a strong reference"; Py_GetConstantBorrowed: "a borrowed reference" (3.13).
    "Py_GetConstant": _OWNED,
    "Py_GetConstantBorrowed": _BORROWED,
    # PySys_GetAttr/GetAttrString: "Return a new reference" (3.14; PySys_GetObject borrows).
    "PySys_GetAttr": _OWNED, "PySys_GetAttrString": _OWNED,
    # The writers' Finish functions return the built object (a new reference) and free the writer.
    **{name: _OWNED for name in ("PyUnicodeWriter_Finish", "PyBytesWriter_Finish", "PyBytesWriter_FinishWithSize",
                                 "PyBytesWriter_FinishWithPointer", "_PyUnicodeWriter_Finish",
                                 "_PyBytesWriter_Finish")},
    # _PyDict_Pop(dict, key, deflt) returns the removed value, which the dict no longer holds: the
    # caller's (3.5-3.12 cpython/dictobject.h; PyDict_Pop replaced it in 3.13).
    "_PyDict_Pop": _OWNED,
    # _PyLong_New(size): a fresh int object (the `Py*_New*` pattern does not see the underscore).
    "_PyLong_New": _OWNED,
    # PyConfig_Get(name): "Return a new reference" (3.14).
    "PyConfig_Get": _OWNED,
    # PyModule_Add: "like PyModule_AddObjectRef() but steals a reference to value ... even on
    # failure" (3.13), unlike PyModule_AddObject's steal on success only.
    "PyModule_Add": {"arguments": {"2": "consume"}},
}
