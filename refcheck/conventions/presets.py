"""Ready-made conventions for code bases that count references the way TH, CPython or GLib do.

A preset is only a starting point: every list in `[tool.refcheck]` replaces or extends it. The
engine knows nothing about any of them; it asks `Conventions`, so these show how general it is.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Callable

from refcheck.conventions import LIBC_RECORDS, NO_TH_TABLES, Conventions
from refcheck.conventions.glibpreset import glib_conventions
from refcheck.conventions.summary import Summary
from refcheck.conventions.records import parse_record


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str
    # Builds the preset's conventions. Called once, when the preset is first chosen: the cpython
    # and glib tables (409 and 1,698 records) are parsed only by a run that uses them, not by
    # every start.
    build: Callable[[], Conventions]
    # Rules that the code base's naming cannot support, off unless the user selects them.
    ignore: tuple[str, ...] = ()

    @cached_property
    def conventions(self) -> Conventions:
        return self.build()




def cpython_table() -> dict[str, Summary]:
    """The C API's records, generated from CPython's Doc/data/refcounts.dat (see
    refcheck/data/cpython_refcounts.py), by exact name, the preprocessed spellings included."""
    from refcheck.conventions.cpython_extra import EXTRA

    path = Path(__file__).parent.parent / "data" / "cpython_refcounts.json"
    doc = json.loads(path.read_text())
    # The functions the headers declare that refcounts.dat does not list (conventions/cpython_extra.py).
    return {**records(EXTRA, "cpython_extra.EXTRA"),
            **{name: parse_record(f["record"], f"{path.name}: {name}") for name, f in doc["functions"].items()},
            **records(CPYTHON_HOLDER_KEEPS, "presets.CPYTHON_HOLDER_KEEPS")}


# C-API functions that keep an argument in a holder with a reference of the holder's own, which
# refcounts.dat marks `+1` on the argument and its generator does not read: PyContextVar_Set
# "Set the value of var to value in the current context" (the context keeps it; the token is the
# caller's new reference). Kept in its first argument (`frontend.holders`): a fresh object the
# function then returns is also held (`Summary.result_held`, gmpy2's GMPy_CTXT_Get).
CPYTHON_HOLDER_KEEPS = {"PyContextVar_Set": {"returns": "owned", "arguments": {"1": "keep"}}}


def numpy_table() -> dict[str, Summary]:
    """NumPy's C API, as its headers declare it (refcheck/data/numpy_api.py): the functions an
    extension calls through the PyArray_API/PyUFunc_API tables, which the frontend names by
    their macros (frontend/api_tables.py)."""
    path = Path(__file__).parent.parent / "data" / "numpy_api.json"
    doc = json.loads(path.read_text())
    where = f"{path.name} (NumPy {doc['version']})"
    return {name: parse_record(t, f"{where}: {name}") for name, t in doc["functions"].items()}


# NumPy's static inline accessors, which no API table names and whose bodies call through the
# dtype's slots: PyArray_GETITEM (ndarrayobject.h) returns what the dtype's `getitem` builds,
# "a Python object of a builtin type from the ndarray" (the C-API reference), a new reference
# (pyBigWig 4c07447 released each one it had leaked).
NUMPY_INLINES = {"PyArray_GETITEM": {"returns": "owned"}}


# Functions that manipulate a count rather than own one (checked with their parameters and
# borrowed call results untracked): the refcounting functions themselves as the headers and
# pythoncapi_compat.h define them (Py_NewRef, Py_XNewRef, PyUnstable_TryIncRef retaining its
# argument when the object is still alive).
CPYTHON_COUNT_PRIMITIVES = [r"^_?Py_X?NewRef$", r"^Py_(?:Inc|Dec)Ref$", r"^PyUnstable_TryIncRef$",
                            r"^_?Py_TryIncref\w*$"]


# The C API's functions that return a buffer of their own allocation for the caller to give back
# with PyMem_Free or PyMem_RawFree (the C API reference: Py_DecodeLocale "Return a pointer to a
# newly allocated wide character string, use PyMem_RawFree() to free the memory";
# Py_EncodeLocale, PyUnicode_AsWideCharString, PyUnicode_AsUCS4Copy and PyOS_double_to_string
# "... PyMem_Free()"): owned memory of the PyMem family, not a borrowed pointer (gnureadline's
# `s = Py_DecodeLocale(..); ... PyMem_RawFree(s);` was RC010).
CPYTHON_MEMORY_RESULTS = (r"^(?:Py_DecodeLocale|Py_EncodeLocale|PyUnicode_AsWideCharString|PyUnicode_AsUCS4Copy"
                          r"|PyOS_double_to_string)$")

# The interpreter's runtime-state constructors, which `Py*_New*` names but which return no object:
# PyThreadState_New and PyInterpreterState_New ("Create a new thread state object belonging to
# the given interpreter object"; PyThreadState_Clear/Delete give it back, no reference count) and
# Py_NewInterpreter ("Return value: points to the first thread state created in the new
# sub-interpreter", ended by Py_EndInterpreter). A host keeps them in its own tables (mod_wsgi's
# `apr_hash_set (table, &id, sizeof id, tstate)`), which was a leak of a reference at every exit.
CPYTHON_STATE_RESULTS = r"(?:PyThreadState_New|PyInterpreterState_New|Py_NewInterpreter\w*)"


def _cpython() -> Conventions:
    return Conventions(
        library_summaries={**numpy_table(), **cpython_table()}, library_header="Python.h", scalar_results=False,
        infer_steals=True,
        infer_setters=True,
        # An object from a type's allocator (`type->tp_alloc(type, 0)`, PyType_GenericAlloc) is
        # PyObject_Malloc'd memory, which PyObject_Del (an alias of PyObject_Free) gives back:
        # one family with the `PyObject_*` releasers, not the `PyObject *` result's record type.
        # PyObject_New's and PyObject_NewVar's objects too ("PyObject_Del: releases memory
        # allocated to an object using PyObject_New or PyObject_NewVar"; the macros call
        # `_PyObject_New`, whose underscore no prefix reads); PyObject_GC_New's go back with
        # PyObject_GC_Del, a family of their own (the GC header precedes the object).
        families={**Conventions().families, r"^(?:tp_alloc|PyType_GenericAlloc)$": "PyObject",
                  CPYTHON_MEMORY_RESULTS: "PyMem",
                  r"^_?PyObject_(?:New|NewVar)$": "PyObject", r"^_?PyObject_GC_(?:New|NewVar|Del)$": "PyObject_GC"},
        # CPython does not spell ownership in names, so "new" here means the documented
        # new-reference constructors and conversions; anything else is treated as borrowed.
        acquire=[
            rf"^(?!{CPYTHON_STATE_RESULTS}$)Py\w*_New\w*$", r"^Py\w*_From\w*$", r"^PyObject_(?:Call\w*|GetAttr\w*|GetItem|Repr|Str|Dir|GetIter)$",
            r"^PyNumber_\w+$", r"^PySequence_(?:GetItem|GetSlice|List|Tuple|Concat)$",
            r"^PyImport_Import\w*$", r"^PyIter_Next$", r"^PyDict_(?:Copy|Keys|Values|Items)$",
            r"^PyUnicode_(?:Concat|Format|Join|Split|AsEncodedString|AsUTF8String)$",
            r"^PyErr_NewException$", r"^PyMem_(?:Raw)?(?:Malloc|Calloc)$", r"^PyObject_(?:Malloc|Calloc)$",
            CPYTHON_MEMORY_RESULTS,
        ],
        reallocate=[r"^PyMem_(?:Raw)?Realloc$", r"^PyObject_Realloc$"],
        # New references that are never NULL: PyObject_Type(o) is `Py_NewRef(Py_TYPE(o))` for an
        # object o (NULL, SystemError, only for a NULL argument, a crash any use of o would be);
        # PyBool_FromLong returns Py_True or Py_False ("Return Py_True or Py_False, depending on
        # the truth value of v"). pymongo's `value_type = PyObject_Type(value); if (value_type ==
        # NULL) goto invalid;` left every decoded value on an edge no run takes.
        # PyBytes_AS_STRING and PyByteArray_AS_STRING (static inline since 3.11) return the
        # object's ob_sval array, or its ob_start or the shared empty string: never NULL for the
        # live object they require (sqlalchemy's `str = PyBytes_AS_STRING (bytes); if (str ==
        # NULL)`: a py2/py3 split whose error block only a NULL bytes reaches).
        never_null=[r"^PyObject_Type$", r"^PyBool_FromLong$", r"^PyBytes_AS_STRING$", r"^PyByteArray_AS_STRING$"],
        memory_results=[CPYTHON_MEMORY_RESULTS],
        # They return NULL on failure and leave the old block valid (the C API's memory docs),
        # as realloc does: `d = PyMem_Realloc(b, n); if (!d) goto error;` still owns b there.
        may_fail=[r"^PyMem_(?:Raw)?Realloc$", r"^PyObject_Realloc$", r"^realloc$", r"^reallocarray$"],
        # Py_IncRef and Py_DecRef are the function forms of Py_XINCREF and Py_XDECREF (the C API
        # reference: "A function version of Py_XDECREF()"), which code loading Python at run time
        # or avoiding the macros calls (deflate's `Py_DecRef(bytes); return NULL;`).
        retain=[r"^_?Py_X?INCREF$", r"^Py_IncRef$"],
        # A type's tp_free slot (`Py_TYPE(self)->tp_free(self)`: PyObject_Free, PyObject_GC_Del)
        # gives back the memory of whatever allocator made the object (no family: tp_alloc's,
        # PyObject_New's), the C API's way to drop a half-built object in tp_new.
        release=[r"^_?Py_X?DECREF$", r"^Py_DecRef$", r"^Py_CLEAR$", r"^PyMem_(?:Raw)?Free$", r"^PyObject_Free$",
                 r"^PyObject_GC_Del$", r"^tp_free$"],
        # The C API's steals are in its table (PyList_SetItem's item, PyModule_AddObject's value
        # on success, ...): by argument, never the first tracked one as `consume` patterns take.
        consume=[],
        # The Py_BuildValue-style formats (their N units steal): the format's argument index.
        format_arguments={r"^_?Py_BuildValue(?:_SizeT)?$": 0, r"^_?PyObject_CallFunction(?:_SizeT)?$": 1,
                          r"^_?PyObject_CallMethod(?:Id)?(?:_SizeT)?$": 2},
        # Their va_list forms: a project's variadic wrapper passing its format on is read as one.
        va_formats={r"^_?Py_VaBuildValue(?:_SizeT)?$": 0},
        # PyArg_Parse*'s `O`-style outputs are borrowed (the tuple's): [format index, first output].
        parse_formats={r"^_?PyArg_Parse(?:Tuple)?(?:_SizeT)?$": [1, 2],
                       r"^_?PyArg_ParseTupleAndKeywords(?:_SizeT)?$": [2, 4], r"^PyArg_UnpackTuple$": [-1, 4]},
        # CPython reports errors by returning NULL; nothing unwinds the C stack.
        error=[],
        exit=[r"^Py_FatalError$", r"^Py_Exit$", r"^abort$", r"^exit$", r"^_exit$"],
        conditional_error={},
        # PyObject_TypeCheck (x, &T) / Py_IS_TYPE, which a project's `X_Check` macro expands to: a
        # type test retested is the same answer (cvxopt's `Matrix_Check (A)` in a helper and its caller).
        # Py_TYPE and PyType_HasFeature: the inline functions the built-in checks expand to
        # (`PyBytes_Check (x)` is `PyType_HasFeature (Py_TYPE (x), ...)`, pygame's `pgVector_Check
        # (x)` `PyType_IsSubtype (Py_TYPE (x), ...)`): an object's type never changes.
        pure=[r"^Py\w*_Check(?:Exact)?$", r"^Py\w*_(?:GET_SIZE|Size|Length)$", r"^PyObject_TypeCheck$", r"^Py_IS_TYPE$",
              r"^PyType_IsSubtype$", r"^Py_TYPE$", r"^PyType_HasFeature$", r"^PyType_FastSubclass$"],
        errors="abort",
        # The allocator implementations (CPython's own Objects/obmalloc.c).
        # A type's tp_dealloc (named *_dealloc) frees its own self (tp_free, PyObject_Del): its
        # parameter is the object being destroyed, not a reference it was lent.
        # Py_GetConstantBorrowed (3.13), pythoncapi_compat.h's _PyFrame_GetCodeBorrow,
        # _PyThreadState_GetFrameBorrow: a new reference dropped for a borrowed pointer.
        borrow_accessors=[r"^_?Py\w*Borrow(?:ed)?$"],
        # PyContextVar_Get fills `*value` with the variable's value in the current context, which
        # keeps its own reference (gmpy2's GMPy_CTXT_Get hands it on as a new reference that its
        # CHECK_CONTEXT callers drop at once and go on using).
        held_fills=[r"^PyContextVar_Get$"],
        # A function returning an object returns NULL when it raises: the indicator tested right
        # after it is false where the result is not (apsw's `if (PyErr_Occurred ()) return -1;`).
        error_indicator=[r"^PyErr_Occurred$"],
        # "Return the object at position pos in the tuple pointed to by p" (a borrowed reference):
        # releasing one the function never retained is RC010 (py-spidev a27c171).
        borrowed_items=[r"^(?:PyTuple_GET_ITEM|PyList_GET_ITEM|PySequence_Fast_GET_ITEM)$"],
        # "This function always returns NULL" (PyErr_Format, PyErr_FormatV, PyErr_NoMemory, the
        # PyErr_SetFrom*Err* family; Doc/c-api/exceptions.rst): the value of an error return.
        null_results=[r"^PyErr_(?:Format|FormatV|NoMemory|SetFromErrno\w*|SetFromWindowsErr\w*|SetExcFromWindowsErr\w*)$"],
        # The tables the interpreter calls a type's or module's functions through: every
        # `PyObject *` slot's result is a new reference (RC005 when a borrowed one is returned),
        # and tp_dealloc (tp_free) destroys the object it is handed, whatever the function's name.
        slot_tables=["PyTypeObject", "PyNumberMethods", "PySequenceMethods", "PyMappingMethods",
                     "PyAsyncMethods", "PyMethodDef", "PyGetSetDef", "PyType_Slot", "PyModuleDef_Slot"],
        destructor_slots=[r"^(?:Py_)?tp_(?:dealloc|free)$"],
        # Called on an object (a module) not yet in use, or to destroy it; `__init__` may run again
        # but CPython's own types read a second call as rare: not a repeated call either.
        fresh_slots=[r"^(?:Py_)?tp_(?:new|init|alloc|dealloc|free|clear|traverse|finalize|del)$",
                     r"^Py_mod_(?:create|exec)$", r"^m_(?:traverse|clear|free)$",
                     r"^__(?:new|init|del|dealloc)__$"],  # a method table's entry named so
        # A `*_dealloc(FooObject *self)` no table names (the table in another unit) is one too;
        # a `*_dealloc(void *p)` is a memory helper (mrab-regex's re_dealloc wrapping PyMem_Free).
        destructor_names=[r"_dealloc$"], object_records=["PyObject", "_object", "PyVarObject"],
        # NumPy's C API: `PyArray_FromAny(...)` is `(*(cast) PyArray_API[69])(...)` after the
        # preprocessor, named back by the header's macro for numpy_table()'s records.
        api_tables=["PyArray_API", "PyUFunc_API"],
        # Py_None, Py_True, Py_False, Py_NotImplemented, Py_Ellipsis: `&_Py_NoneStruct` and the
        # like, objects that exist before any call. Returning one needs Py_INCREF (Py_RETURN_NONE).
        # The constructors that allocate (the C API reference: "Return a new list/dict/module
        # object"): only their results differ from every object that existed before. The other
        # new references may be an existing object: an iterator's next item, an attribute, a
        # cached small int or one-character string, the empty tuple, an imported module.
        fresh_results=[r"^Py(?:List|Dict|Set|Cell|Capsule|StructSequence)_New$", r"^_?PyObject_(?:GC_)?New(?:Var)?$",
                       r"^(?:tp_alloc|PyType_GenericAlloc|PyType_GenericNew)$", r"^PyModule_(?:Create2?|New|NewObject)$",
                       r"^PyErr_NewException(?:WithDoc)?$", r"^PyDict_(?:Copy|Keys|Values|Items)$",
                       r"^PyFloat_From(?:Double|String)$", r"^PyComplex_From(?:Doubles|CComplex)$",
                       r"^Py(?:List_GetSlice|Sequence_List)$", r"^PyByteArray_From\w+$",
                       r"^PyMem_(?:Raw)?(?:Malloc|Calloc)$", r"^PyObject_(?:Malloc|Calloc)$", CPYTHON_MEMORY_RESULTS],
        singletons=[r"^_Py_(?:NoneStruct|TrueStruct|FalseStruct|ZeroStruct|NotImplementedStruct|EllipsisObject)$"],
        singleton_types=[r"^(?:const )?(?:PyTypeObject|struct _typeobject)$"],
        opaque_setters=[r"_set_opaque$"],
        primitive=[r"^_?PyMem_(?:Raw)?(?:Malloc|Calloc|Realloc|Free)$", r"^_?PyObject_(?:Malloc|Calloc|Realloc|Free)$",
                   *CPYTHON_COUNT_PRIMITIVES],
        **{**NO_TH_TABLES, "summaries": {**LIBC_RECORDS, **{name: parse_record(t, f"presets.NUMPY_INLINES: {name}")
                                                              for name, t in NUMPY_INLINES.items()}}},
    )


# The Lua C API as torch's bindings use it, one summary record per callee in the form of a
# `[tool.refcheck.summaries.NAME]` table (docs/configuration.md; refcheck/conventions/summary.py reads them).
_RAISES = {"may-raise": True}  # a type check that raises a Lua error (longjmp) on a wrong argument
LUA_API: dict[str, dict] = {
    # Lua owns what is pushed as full userdata: its __gc frees it. Light userdata has no __gc, so
    # lua_pushlightuserdata borrows (no record: the default).
    "luaT_pushudata": {"arguments": {"1": "sink"}},
    # Borrowed results: the userdata stays Lua's.
    "luaT_toudata": {"returns": "borrowed"},
    "lua_touserdata": {"returns": "borrowed"},
    "luaT_checkudata": {"returns": "borrowed", **_RAISES},
    "luaL_checkudata": {"returns": "borrowed", **_RAISES},
    "luaT_getfieldcheckudata": {"returns": "borrowed", **_RAISES},
    "luaT_getfieldchecklightudata": {"returns": "borrowed", **_RAISES},
    # Errors longjmp to the enclosing lua_pcall: they never return (luaL_argcheck is
    # `cond || luaL_argerror(...)`, a conditional error through ||).
    **{name: {"ends": "error"} for name in ("lua_error", "luaL_error", "luaL_argerror", "luaL_typerror",
                                            "luaT_typerror")},
    **{name: dict(_RAISES) for name in (
        "luaL_checklstring", "luaL_checknumber", "luaL_checkinteger", "luaL_checktype", "luaL_checkany",
        "luaL_checkoption", "luaL_checkstack", "luaL_optlstring", "luaL_optnumber", "luaL_optinteger",
        "luaT_checkboolean", "luaT_checkinteger", "luaT_checklong", "luaT_getfieldcheckint",
        "luaT_getfieldchecknumber", "luaT_getfieldcheckstring", "luaT_getfieldcheckboolean",
        "luaT_getfieldchecktable", "lua_call")},
    # luaT's allocator raises a Lua error rather than returning NULL.
    "luaT_alloc": {"returns": "owned"},
    "luaT_realloc": {"returns": "reallocated"},
}

# Headers whose inclusion says a unit is a Lua binding (the `th` preset then misreads it).
LUA_HEADERS = ("luaT.h", "lauxlib.h")


def records(tables: dict[str, dict], where: str) -> dict[str, Summary]:
    """A preset's summary records, written as `[tool.refcheck.summaries]` tables are."""
    return {name: parse_record(table, f"{where}: {name}") for name, table in tables.items()}


def _lua_torch() -> Conventions:
    # TH underneath (its tables, THError), Lua's errors on top; both longjmp, so every error is an
    # exit where nothing may still be owned.
    th = Conventions()
    return replace(th, errors="unwind", summaries={**th.summaries, **records(LUA_API, "lua-torch")})


PRESETS: dict[str, Preset] = {p.name: p for p in [
    Preset("th", "PyTorch TH/THC: new* functions, retain/free, THError aborts", Conventions),
    # Names do not say who owns a result in CPython, so the naming rules would flag every
    # function returning a new reference; the leak and release rules still apply.
    Preset("cpython", "CPython C API: new references, Py_INCREF/Py_DECREF, stolen references",
           _cpython, ignore=("RC004",)),
    Preset("glib", "GLib/GObject: *_new, *_ref/*_unref, g_free", glib_conventions, ignore=("RC004", "RC005")),
    Preset("lua-torch", "Lua torch bindings: TH plus luaT_pushudata hand-overs, luaL_error unwinds",
           _lua_torch),
]}


def suggestion(units: list[tuple[list[str], int]]) -> str | None:
    """The one-line note proposing `lua-torch` when units checked under the `th` preset include a
    Lua header and have findings; `units`: (the files each such unit read, its findings)."""
    lua = [n for includes, n in units if n and any(os.path.basename(f) in LUA_HEADERS for f in includes)]
    if not lua:
        return None
    return (f"note: {len(lua)} unit(s) with findings include {' or '.join(LUA_HEADERS)}: Lua bindings, where "
            f"luaT_pushudata hands a reference to Lua and luaL_error unwinds; `preset = \"lua-torch\"` "
            f"fits them (docs/ecosystems.md)")
