"""A CPython type check decided by what the tested value holds (issue 31, `ir.Fact.pytype`).

A non-NULL result of an API function whose result type is documented (`PyUnicode_AsUTF8String`
gives bytes, `PyLong_FromLong` an int: `conventions.pytypes.RESULTS`) passes its family's check
and fails every other family's, on every path: the edge a path could take otherwise does not
exist (pyodbc's `if (bytes && PyBytes_Check (bytes)) objCell = bytes;` then `PyBytes_Check (objCell)`).
An object's family never changes either, so what one check of it answered answers a later check
of the same object under another name (`objCell = pInfo->cell; if (PyUnicode_Check (objCell))
...; if (PyUnicode_Check (pInfo->cell) && ...)`), and no object is of two families. Those
answers are remembered per object (`TypeKey`), only in a function that tests types at two places
or more (else remembering only splits states).
"""

from __future__ import annotations

from typing import NamedTuple

from refcheck.analysis.state import Kind, ObjId, State
from refcheck.conventions.pytypes import CHECKS, answer
from refcheck.rules.events import Nullness

_FAMILIES = tuple(sorted(set(CHECKS.values())))


class TypeKey(NamedTuple):
    """A `Facts.conds` key: whether the object `oid` (first loaded or made at `site`: a later
    object of the same id is another) is of `family`."""

    oid: ObjId
    site: object
    family: str


def tested_object(st: State, pytype: tuple) -> ObjId | None:
    """The object the checked variable or location holds on this path, None where untracked."""
    var, key = pytype[0], pytype[1]
    if var is not None:
        return st.env.get(var)
    oid = st.facts.stored.get(key) if st.facts.stored else None
    if oid is None:
        oid = ObjId(Kind.FIELD, key)
    return oid if oid in st.objs else None


def type_answer(st: State, pytype: tuple) -> bool | None:
    """The check's answer where the tested object's type is known on this path, else None."""
    family, exact = pytype[2], pytype[3]
    oid = tested_object(st, pytype)
    o = st.objs.get(oid) if oid is not None else None
    if o is None:
        return location_answer(st, pytype)
    if o.null == Nullness.NULL:
        return None
    # An acquirer that may hand back its argument (`Obj.may_be`) may not be what its name says.
    if oid.kind is Kind.ACQUIRE and not o.may_be:
        known = answer(o.name, family, exact)
        if known is not None:
            return known
    conds = st.facts.conds
    if not conds:
        return None
    known = _learned(conds, lambda f: TypeKey(oid, o.site, f), family, exact)
    return known if known is not None else location_answer(st, pytype)


def _learned(conds: dict, key_of, family: str, exact: bool) -> bool | None:
    """The answer the checks remembered under `key_of (family)` give."""
    was = conds.get(key_of(family))
    if was is False or (was is True and not exact):
        return was
    if any(conds.get(key_of(f)) is True for f in _FAMILIES if f != family):
        return False
    return None


def location_answer(st: State, pytype: tuple) -> bool | None:
    """A check of a location not stored to on this path (`PyUnicode_Check (pInfo->cell)`),
    answered by an earlier check of a variable that held what the location held then
    (`objCell = pInfo->cell; if (PyUnicode_Check (objCell))`): the loaded object may be gone
    from the state since (nothing held it), the location's fact stays until its variables change."""
    loaded = pytype[1]
    if loaded is None or (st.facts.stored and loaded in st.facts.stored) or not st.facts.conds:
        return None
    return _learned(st.facts.conds, lambda f: location_key(f, loaded), pytype[2], pytype[3])


def location_key(family: str, loaded: str) -> str:
    """The condition key of a non-exact check of the location `loaded` (`frontend.typetests`)."""
    return f"pytype:{family} {loaded}"


def learn_type(tr, st: State, pytype: tuple, taken: bool) -> None:
    """Remember the check's answer for the object tested (an exact check's false edge says
    nothing of its family)."""
    if not (taken or not pytype[3]) or not _learning(tr):
        return
    oid = tested_object(st, pytype)
    o = st.objs.get(oid) if oid is not None else None
    if o is not None:
        st.facts.conds[TypeKey(oid, o.site, pytype[2])] = taken
        where = location_key(pytype[2], oid.site) if oid.kind is Kind.FIELD and pytype[0] is not None else None
        if where in tr.cond_vars:  # a variable holding what a location tested later holds
            st.facts.conds[where] = taken


def _learning(tr) -> bool:
    """The function tests types at two places or more (counted once per function)."""
    found = getattr(tr, "_type_tests", None)
    if found is None:
        found = sum(1 for d in tr.data.values() if getattr(d.cond, "pytype", None) is not None)
        tr._type_tests = found
    return found > 1
