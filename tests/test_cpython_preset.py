"""The cpython preset's table (generated from CPython's Doc/data/refcounts.dat), Py_BuildValue's
format units, and which callees the table applies to."""

from __future__ import annotations

import json

from refcheck.data import cpython_refcounts as gen
from refcheck.frontend.graph import in_library
from refcheck.frontend.steals import build_value_steals, parse_allocated_outputs, parse_borrowed_outputs
from refcheck.conventions.presets import PRESETS, cpython_table
from refcheck.conventions.summary import Effect, Returns, Tracked, When

SAMPLE = """# comment
PyList_New:PyObject*::+1:
PyList_New:Py_ssize_t:len::

PyList_GetItem:PyObject*::0:
PyList_GetItem:PyObject*:list:0:
PyList_GetItem:Py_ssize_t:index::

PyList_SetItem:int:::
PyList_SetItem:PyObject*:list:0:
PyList_SetItem:Py_ssize_t:index::
PyList_SetItem:PyObject*:item:0:

PyErr_Restore:void:::
PyErr_Restore:PyObject*:type:-1:
PyErr_Restore:PyObject*:value:-1:

PyErr_SetRaisedException:void:::
PyErr_SetRaisedException:PyObject *:exc:0:stolen

PySet_Discard:int:::
PySet_Discard:PyObject*:set:0:
PySet_Discard:PyObject*:key:-1:no effect if key not found

PyLong_AsLong:long:::
PyLong_AsLong:PyObject*:pylong:0:

Py_DECREF:void:::
Py_DECREF:PyObject*:o:-1:

Py_BuildValue:PyObject*::+1:
Py_BuildValue:const char*:format::
"""


def _records(text: str) -> dict:
    return gen.tables(gen.parse(text))


def test_the_generator_reads_returns_steals_and_the_documented_overrides():
    r = _records(SAMPLE)
    assert r["PyList_New"] == {"returns": "owned"}
    assert r["PyList_GetItem"] == {}  # a borrowed PyObject* result, stated so patterns cannot claim it
    assert r["PyList_SetItem"] == {"arguments": {"2": "consume"}}  # the file's 0, the manual's steal
    assert r["PyErr_Restore"] == {"arguments": {"0": "consume", "1": "consume"}}
    assert r["PyErr_SetRaisedException"] == {"arguments": {"0": "consume"}}
    assert "PySet_Discard" not in r and "PyLong_AsLong" not in r
    assert r["Py_DECREF"] == {"arguments": {"every": "release"}}
    # Listed by the overrides although this sample does not have them.
    assert r["PyModule_AddObject"] == {"arguments": {"2": "consume-on-success"}}
    # "Returns the initialized object": op itself, its reference unchanged (the file has no result).
    init = _records("PyObject_Init:PyObject*:::\nPyObject_Init:PyObject*:op:0:\nPyObject_Init:PyTypeObject*:type:0:\n")
    assert init["PyObject_Init"] == {"returns": "argument", "returned": 0}


OUT_PARAMETERS = """
PyErr_Fetch:void:::
PyErr_Fetch:PyObject**:ptype:0:
PyErr_Fetch:PyObject**:pvalue:0:
PyErr_Fetch:PyObject**:ptraceback:0:

PyErr_GetExcInfo:void:::
PyErr_GetExcInfo:PyObject**:ptype:+1:
PyErr_GetExcInfo:PyObject**:pvalue:+1:
PyErr_GetExcInfo:PyObject**:ptraceback:+1:

PyErr_NormalizeException:void:::
PyErr_NormalizeException:PyObject**:exc:+1:???
PyErr_NormalizeException:PyObject**:val:+1:???
PyErr_NormalizeException:PyObject**:tb:+1:???

PyErr_SetExcInfo:void:::
PyErr_SetExcInfo:PyObject*:type:0:
PyErr_SetExcInfo:PyObject*:value:0:
PyErr_SetExcInfo:PyObject*:traceback:0:

PyContextVar_Get:int:::
PyContextVar_Get:PyObject*:var:0:
PyContextVar_Get:PyObject*:default_value:0:
PyContextVar_Get:PyObject**:value:+1:???

PyWeakref_GetRef:int:::
PyWeakref_GetRef:PyObject*:ref:0:
PyWeakref_GetRef:PyObject**:pobj:+1:

PyIter_Send:int:::
PyIter_Send:PyObject*:iter:0:
PyIter_Send:PyObject*:arg:0:
PyIter_Send:PyObject**:presult:+1:

PyDict_Next:int:::
PyDict_Next:PyObject*:p:0:
PyDict_Next:Py_ssize_t:ppos::
PyDict_Next:PyObject**:pkey:0:
PyDict_Next:PyObject**:pvalue:0:
"""


def test_out_parameters_marked_plus_one_are_fills_on_the_documented_result():
    r = _records(OUT_PARAMETERS)
    fills = {str(i): "acquire-out" for i in range(3)}
    assert r["PyErr_GetExcInfo"] == {"arguments": fills}  # the file's +1 on a void call
    # The file's 0, the manual's "you own a reference"; value and traceback NULL where the type is.
    assert r["PyErr_Fetch"] == {"arguments": fills, "fills-with": [[1, 0], [2, 0]]}
    assert r["PyErr_SetExcInfo"] == {"arguments": {str(i): "consume" for i in range(3)}}
    assert r["PyContextVar_Get"] == {"arguments": {"2": {"effect": "acquire-out", "when": "zero"}}}
    assert r["PyWeakref_GetRef"] == {"arguments": {"1": {"effect": "acquire-out", "when": "positive"}}}
    # In place (the caller's references stay its own), a fill on two results, borrowed outputs.
    assert "PyErr_NormalizeException" not in r and "PyIter_Send" not in r and "PyDict_Next" not in r
    committed = json.loads(gen.OUT.read_text())["functions"]
    assert all(committed[n]["record"] == r[n] for n in ("PyErr_Fetch", "PyErr_GetExcInfo", "PyContextVar_Get"))


def test_versions_merge_newest_record_oldest_since_and_aliases():
    old = gen.parse("PyList_New:PyObject*::0:\n")
    new = gen.parse(SAMPLE)
    doc = gen.merge([("3.8", "a" * 40, old), ("3.13", "b" * 40, new)])
    f = doc["functions"]
    assert f["PyList_New"] == {"since": "3.8", "record": {"returns": "owned"}}
    assert f["PyErr_Restore"]["since"] == "3.13"
    assert f["_Py_BuildValue_SizeT"]["alias-of"] == "Py_BuildValue"
    assert f["_Py_DECREF"]["record"] == f["Py_DECREF"]["record"]
    assert json.loads(gen.dump(doc)) == doc


def test_the_committed_table_loads_as_configured_records():
    table = cpython_table()
    assert table["PyTuple_SET_ITEM"].effect_of(2) is Effect.CONSUME
    assert table["PyModule_AddObject"].conditional_effects(3) == {2: (Effect.CONSUME, When.ZERO)}
    assert table["PyModule_AddObject"].effect_of(2) is None  # not on every result
    assert table["_Py_BuildValue_SizeT"].returns is Returns.OWNED
    assert table["PyModule_Create2"].returns is Returns.OWNED and table["_PyObject_New"].returns is Returns.OWNED
    assert table["Py_XDECREF"].effect_of(Tracked.EVERY) is Effect.RELEASE
    assert table["PyDict_GetItem"].returns is Returns.BORROWED
    doc = json.loads((gen.OUT).read_text())
    assert doc["versions"] and all(len(v["commit"]) == 40 for v in doc["versions"])


def test_the_table_is_the_librarys_only():
    conv = PRESETS["cpython"].conventions
    assert conv.summary("PyList_SetItem").effect_of(2) is Effect.CONSUME
    assert conv.summary("PyList_SetItem", library=False).effect_of(2) is None
    assert conv.summary("PyUnicode_AsMBCSString").returns is Returns.OWNED
    assert conv.summary("PyUnicode_AsMBCSString", library=False).returns is Returns.BORROWED


def test_library_headers_are_those_beside_python_h(tmp_path):
    inc = tmp_path / "python3.11"
    (inc / "cpython").mkdir(parents=True)
    (inc / "Python.h").write_text("")
    assert in_library(str(inc / "object.h"), "Python.h")
    assert in_library(str(inc / "cpython" / "listobject.h"), "Python.h")
    assert not in_library(str(tmp_path / "project.h"), "Python.h")


def test_build_value_formats():
    assert build_value_steals("(NN)") == (0, 1)
    assert build_value_steals("(OO)") == ()
    assert build_value_steals("{s:O,s:N}") == (3,)
    assert build_value_steals("s#N") == (2,)
    assert build_value_steals("O&N") == (2,)
    assert build_value_steals("[iN]") == (1,)
    assert build_value_steals("%d") is None  # not a Py_BuildValue format: nothing assumed


def test_parse_tuple_formats_name_their_borrowed_outputs():
    assert parse_borrowed_outputs("OnO:f") == (0, 2)
    assert parse_borrowed_outputs("O!|O&U") == (1, 4)  # O! passes the type first; O& a converter
    assert parse_borrowed_outputs("s#es#y*(OS)$p;message") == (6, 7)  # lengths, encoding, nesting
    assert parse_borrowed_outputs("etY") == (2,)
    assert parse_borrowed_outputs("%d") is None  # not a getargs.c format: nothing assumed


def test_parse_tuple_formats_name_the_buffers_they_allocate():
    assert parse_allocated_outputs("et|i:open") == (1,)  # the encoding first, then the char **
    assert parse_allocated_outputs("Oes#et") == (2, 5)  # es# has its length after the buffer
    assert parse_allocated_outputs("s#zy*O") == ()  # pointers into the argument, a Py_buffer
    assert parse_allocated_outputs("%d") is None


def test_the_extra_records_are_only_what_refcounts_dat_does_not_list():
    from refcheck.conventions.cpython_extra import EXTRA

    generated = json.loads(gen.OUT.read_text())["functions"]
    assert not set(EXTRA) & set(generated)  # CPython's own table is never overridden here
    table = cpython_table()
    assert table["PyThreadState_GetFrame"].returns is Returns.OWNED
    assert table["_PyDict_Pop"].returns is Returns.OWNED
    assert table["PyModule_Add"].effects(3) == {2: Effect.CONSUME}  # always, unlike PyModule_AddObject


def test_borrow_accessors_and_count_primitives_are_the_cpython_presets():
    conv = PRESETS["cpython"].conventions
    assert conv.matches("borrow_accessors", "_PyFrame_GetCodeBorrow")
    assert conv.matches("borrow_accessors", "Py_GetConstantBorrowed")
    assert not conv.matches("borrow_accessors", "PyFrame_GetCode")
    assert conv.is_primitive("PyUnstable_TryIncRef") and not conv.is_primitive("PyObject_GetAttr")
    assert not PRESETS["th"].conventions.matches("borrow_accessors", "_PyFrame_GetCodeBorrow")


def test_slot_tables_and_singletons_are_the_cpython_presets():
    conv = PRESETS["cpython"].conventions
    assert "PyTypeObject" in conv.slot_tables and "PyType_Slot" in conv.slot_tables
    assert conv.matches("destructor_slots", "tp_dealloc") and conv.matches("destructor_slots", "Py_tp_dealloc")
    assert not conv.matches("destructor_slots", "tp_clear") and not conv.matches("destructor_slots", "tp_traverse")
    assert conv.matches("singletons", "_Py_NoneStruct") and conv.matches("singletons", "_Py_TrueStruct")
    assert not conv.matches("singletons", "PyLong_Type")
    th = PRESETS["th"].conventions
    assert not th.slot_tables and not th.matches("singletons", "_Py_NoneStruct")
    # Static type objects are singletons by their type (issue 31: maxminddb c35e2c7); their
    # pointers and other records are not.
    assert conv.matches("singleton_types", "PyTypeObject") and conv.matches("singleton_types", "struct _typeobject")
    assert not conv.matches("singleton_types", "PyTypeObject *") and not conv.matches("singleton_types", "PyObject")
    assert not th.singleton_types


def test_the_unit_tables_name_each_function_by_field_or_slot_id():
    import sysconfig
    from pathlib import Path

    from refcheck.frontend.slots import table_functions
    from refcheck.frontend.unit import parse

    path = Path(__file__).parent.parent / "fixtures" / "cpython_slots.c"
    tu = parse(str(path), [f"-I{sysconfig.get_paths()['include']}"]).tu
    found = table_functions(tu.cursor.get_children(), PRESETS["cpython"].conventions)
    assert found["pair_destroy"] == {"tp_dealloc"}  # designated, through a cast
    assert found["cell_gone"] == {"tp_dealloc"}  # positional: PyTypeObject's fourth field
    assert found["heap_finish"] == {"Py_tp_dealloc"} and found["heap_negate"] == {"Py_nb_negative"}
    assert found["pair_get_first"] == {"get"} and found["pair_iter_bare"] == {"tp_iter"}
    assert "heap_self" not in found and "heap_finish_elsewhere" not in found


def test_roles_primed_from_the_parse_are_those_read_from_the_unit():
    """The engine primes the slot table from the parse's top-level cursors; each definition's
    role must be the one `role_of` finds reading the unit itself."""
    import sysconfig
    from pathlib import Path

    from refcheck.frontend import slots
    from refcheck.frontend.unit import parse

    conv = PRESETS["cpython"].conventions
    path = Path(__file__).parent.parent / "fixtures" / "cpython_slots.c"
    parsed = parse(str(path), [f"-I{sysconfig.get_paths()['include']}"])
    slots._LAST.forget()
    read = [slots.role_of(fn, conv) for fn in parsed.functions]
    slots._LAST.forget()
    slots.prime(parsed, conv)
    assert slots._LAST.held(parsed.tu) is not None
    assert [slots.role_of(fn, conv) for fn in parsed.functions] == read
    assert len(set(read)) == 3  # destroys, returns new and plain all occur


def test_a_python_installations_include_directory_is_a_librarys(tmp_path):
    """Python.h beside pyconfig.h, reached with a plain -I (pyenv's, conda's, a framework build's
    include directory): its inline functions are neither analysed nor reported, as under
    /usr/include/python3.X. A header folder without pyconfig.h (CPython's own Include/, a
    project's) stays the code being checked."""
    from pathlib import Path

    from cunit import CUnit
    from refcheck.frontend.unit import in_system_dir, parse

    inline = "#include <stdlib.h>\nstatic inline void py_bad(void) { char *p = malloc(1); }\n"
    for name, marker in (("installed", True), ("source", False)):
        inc = tmp_path / name / "include" / "python3.x"
        (inc / "cpython").mkdir(parents=True)
        (inc / "Python.h").write_text('#include "cpython/inl.h"\n')
        (inc / "cpython" / "inl.h").write_text(inline)
        if marker:
            (inc / "pyconfig.h").write_text("#define HAVE_NOTHING 1\n")
        unit = tmp_path / name / "u.c"
        unit.write_text("#include <Python.h>\nvoid mine(void) { py_bad(); }\n")
        args = ["-I", str(inc)]
        names = [f.spelling for f in parse(str(unit), args).functions]
        found = CUnit(Path(tmp_path / name)).check_text(unit.read_text(), "u.c", PRESETS["th"].conventions, args)
        assert in_system_dir(str(inc / "cpython" / "inl.h")) is marker
        if marker:
            assert names == ["mine"] and found.findings == []
        else:
            assert names == ["py_bad", "mine"] and [f.rule for f in found.findings] == ["RC001"]
