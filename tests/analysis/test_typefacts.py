"""The built-in type checks' tables (`conventions.pytypes`) and their answers on a state
(`analysis.typefacts`)."""

from refcheck.analysis.state import Facts, Kind, Obj, ObjId, State
from refcheck.analysis.typefacts import TypeKey, location_key, type_answer
from refcheck.conventions.pytypes import answer, check_of
from refcheck.findings import Location
from refcheck.rules.events import Gone, Nullness, Origin


def test_check_of_reads_the_macro_and_its_argument():
    assert check_of("PyBytes_Check(objCell)") == ("bytes", False, "objCell")
    assert check_of("PyUnicode_CheckExact( s )") == ("str", True, "s")
    assert check_of("PyUnicode_Check(pInfo->cell)") == ("str", False, "pInfo->cell")
    assert check_of("PyBytes_Check(f(x))") is None  # a call's result: no variable to know
    assert check_of("Matrix_Check(A)") is None  # a project's type: not a built-in family
    assert check_of("PyBytes_Check(a) && PyBytes_Check(b)") is None


def test_answer_by_result_type():
    assert answer("PyUnicode_AsUTF8String", "bytes", False) is True
    assert answer("PyUnicode_AsUTF8String", "str", False) is False
    assert answer("PyUnicode_AsEncodedString", "bytes", True) is None  # a codec may give a subclass
    assert answer("PyBytes_FromStringAndSize", "bytes", True) is True
    assert answer("PyObject_Str", "str", True) is None
    assert answer("PyObject_GetAttrString", "str", False) is None


def _obj(name: str, origin: Origin, null=Nullness.NONNULL) -> Obj:
    return Obj(1, Gone.NO, null, origin, Location("t.c", 1, 1), name, 0)


def test_state_answers():
    fresh = ObjId(Kind.ACQUIRE, (3, 0), 0)
    param = ObjId(Kind.PARAM, "p")
    st = State({"b": fresh, "p": param}, {fresh: _obj("PyUnicode_AsUTF8String", Origin.ACQUIRE),
                                          param: _obj("p", Origin.PARAM)}, Facts())
    assert type_answer(st, ("b", None, "bytes", False)) is True
    assert type_answer(st, ("b", None, "int", False)) is False
    assert type_answer(st, ("p", None, "str", False)) is None
    st.facts.conds[TypeKey(param, st.objs[param].site, "str")] = True  # an earlier check held
    assert type_answer(st, ("p", None, "str", False)) is True
    assert type_answer(st, ("p", None, "str", True)) is None  # maybe a subclass
    assert type_answer(st, ("p", None, "bytes", False)) is False  # no object is of two families
    st.objs[fresh] = _obj("PyUnicode_AsUTF8String", Origin.ACQUIRE, Nullness.NULL)
    assert type_answer(st, ("b", None, "bytes", False)) is None  # a NULL is no object


def test_location_answers_from_a_variable_checked_before():
    st = State({}, {}, Facts())
    key = ".cell( 1 info#1"
    assert type_answer(st, (None, key, "str", False)) is None
    st.facts.conds[location_key("str", key)] = True
    assert type_answer(st, (None, key, "str", False)) is True
    assert type_answer(st, (None, key, "bytes", False)) is False
    st.facts.stored[key] = ObjId(Kind.ACQUIRE, (1, 0), 0)  # stored to since: another object
    assert type_answer(st, (None, key, "bytes", False)) is None
