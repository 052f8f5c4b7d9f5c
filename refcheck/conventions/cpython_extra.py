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

# The `PyObject *`-returning function-pointer fields of PyTypeObject, PyNumberMethods,
# PySequenceMethods, PyMappingMethods, PyAsyncMethods, PyMethodDef and PyGetSetDef.
SLOT_FIELDS = (
    "tp_getattr", "tp_getattro", "tp_repr", "tp_str", "tp_call", "tp_richcompare", "tp_iter",
    "tp_iternext", "tp_descr_get", "tp_new", "tp_alloc",
    *(f"nb_{op}" for op in (
        "add", "subtract", "multiply", "remainder", "divmod", "power", "negative", "positive",
        "absolute", "invert", "lshift", "rshift", "and", "xor", "or", "int", "float", "floor_divide",
        "true_divide", "index", "matrix_multiply", "inplace_add", "inplace_subtract",
        "inplace_multiply", "inplace_remainder", "inplace_power", "inplace_lshift", "inplace_rshift",
        "inplace_and", "inplace_xor", "inplace_or", "inplace_floor_divide", "inplace_true_divide",
        "inplace_matrix_multiply")),
    "sq_concat", "sq_repeat", "sq_item", "sq_inplace_concat", "sq_inplace_repeat", "mp_subscript",
    "am_await", "am_aiter", "am_anext", "ml_meth", "get",
)

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
    # The `_Py_Identifier` spellings of the call and attribute functions (3.7-3.12
    # cpython/abstract.h, cpython/object.h; PY_SSIZE_T_CLEAN renames _PyObject_CallMethodId to
    # its _SizeT twin): "Like PyObject_CallMethod(), but expect a _Py_Identifier*" and so on:
    # the call's result or the attribute, a new reference as their public twins return.
    **{name: _OWNED for name in ("_PyObject_CallMethodId", "_PyObject_CallMethodId_SizeT",
                                 "_PyObject_CallMethodIdObjArgs", "_PyObject_VectorcallMethodId",
                                 "_PyObject_CallMethodIdNoArgs", "_PyObject_CallMethodIdOneArg",
                                 "_PyObject_GetAttrId")},
    # _PyTraceMalloc_GetTraceback(domain, ptr): "Return a tuple of (filename: str, lineno: int)
    # tuples. Return None if ... not tracked" (tracemalloc.h, 3.6-3.12): built for the caller.
    "_PyTraceMalloc_GetTraceback": _OWNED,
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
    # _PyThread_CurrentFrames, _PyThread_CurrentExceptions: "The implementation of
    # sys._current_frames() / sys._current_exceptions(). Returns a dict mapping thread id to
    # that thread's current frame" (and "... current exception"; cpython/pystate.h, 3.8-3.12): a dict
    # built for the caller
    # (mod_wsgi's stack dumper releases it).
    "_PyThread_CurrentFrames": _OWNED, "_PyThread_CurrentExceptions": _OWNED,
    # PyConfig_Get(name): "Return a new reference" (3.14).
    "PyConfig_Get": _OWNED,
    # PyModule_Add: "like PyModule_AddObjectRef() but steals a reference to value ... even on
    # failure" (3.13), unlike PyModule_AddObject's steal on success only.
    "PyModule_Add": {"arguments": {"2": "consume"}},
    # _PyBytes_Resize(&b, n), _PyTuple_Resize(&t, n): "*bytes is replaced ... On failure, *bytes
    # is set to NULL, MemoryError is set, and -1 is returned" (cpython/bytesobject.h; "the old
    # tuple is deallocated and *p set to NULL", Doc/c-api/tuple.rst): the old reference is given
    # up on both results and *p holds the new owned one (or NULL). Project helpers that wrap them
    # (psycopg2's `resize_bytes (b, n)`) take their summary from the body. PyUnicode_Resize leaves
    # *unicode untouched on failure, so it is no renew.
    "_PyBytes_Resize": {"arguments": {"0": {"effect": "renew", "when": "zero"}}},
    "_PyTuple_Resize": {"arguments": {"0": {"effect": "renew", "when": "zero"}}},
    # PyBytes_DecodeEscape(s, len, errors, unicode, recode_encoding) and its `_Py` helper build the
    # decoded bytes object (bytesobject.c: "return _PyBytes_Resize(&v, ...) ? NULL : v"): a new
    # reference, undocumented in the C API reference and absent from refcounts.dat.
    "PyBytes_DecodeEscape": _OWNED, "_PyBytes_DecodeEscape": _OWNED,
    # A call through a type's slot (`Py_TYPE(o)->tp_iternext(o)`, `meth->ml_meth(self, args)`):
    # the field is declared in CPython's headers, so the record below is taken only for it (a
    # project's own field of the same name says nothing). The slot typedefs (unaryfunc,
    # binaryfunc, reprfunc, getiterfunc, descrgetfunc, newfunc, getter, PyCFunction ...) return
    # "a new reference" ("Type Object Structures", "Slot Type typedefs"), as a definition put in
    # such a slot must (frontend/slots.py); the int/void slots (tp_init, sq_length, tp_setattro,
    # nb_bool, tp_dealloc ...) carry no reference.
    **{name: _OWNED for name in SLOT_FIELDS},
}
