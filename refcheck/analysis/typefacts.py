"""A CPython type check decided by what the tested variable holds (issue 31, `ir.Fact.pytype`).

A non-NULL result of an API function whose result type is documented (`PyUnicode_AsUTF8String`
gives bytes, `PyLong_FromLong` an int: `conventions.pytypes.RESULTS`) passes its family's check
and fails every other family's, on every path: the edge a path could take otherwise does not
exist (pyodbc's `if (bytes && PyBytes_Check (bytes)) objCell = bytes;` then `PyBytes_Check (objCell)`).
"""

from __future__ import annotations

from refcheck.analysis.state import Kind, State
from refcheck.conventions.pytypes import answer
from refcheck.rules.events import Nullness


def type_answer(st: State, pytype: tuple) -> bool | None:
    """The check's answer where the object the variable holds is the live result of an API
    function of known result type; None where that says nothing."""
    var, family, exact = pytype
    oid = st.env.get(var)
    if oid is None or oid.kind is not Kind.ACQUIRE:
        return None
    o = st.objs.get(oid)
    # An acquirer that may hand back its argument (`Obj.may_be`) may not be what its name says.
    if o is None or o.null == Nullness.NULL or o.may_be:
        return None
    return answer(o.name, family, exact)
