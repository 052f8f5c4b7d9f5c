"""The error indicator read as a call's failure test (the conventions' `error_indicator`:
CPython's `PyErr_Occurred`).

A C API function returning an object returns NULL when it raises, so a non-NULL result means
the call set no error. Code that tests the indicator right after such a call instead of the
result (apsw: `obj = PyMapping_GetItemString (map, key); if (PyErr_Occurred ()) return -1; if
(!obj) continue;`, because the dict branch's PyDict_GetItemString returns NULL without raising;
`next = PyIter_Next (it); if (PyErr_Occurred ()) return NULL;`) owns nothing on the test's true
edge. Lowered as a fact keyed by the indicator call's own text: an owned result's non-NULL edge
writes it false (`ir.Store` with `truth=False`), and every later call that may raise (anything
but a count operation, a pure call or the test itself) makes it unknown again, so the fact says
something only about the last call before the test. Only in bodies that test the indicator.
"""

from __future__ import annotations

import re

from refcheck import ir
from refcheck.frontend.binding import cursor_key, of_kinds, referenced
from refcheck.frontend.clangutil import K, binop, kind_of, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import fact_key
from refcheck.frontend.exitmacros import macro_role
from refcheck.frontend.indicatorguard import GUARDED_KEY, guards_indicator
from refcheck.frontend.parents import body_sites

_ASSIGNING = frozenset({K.BINARY_OPERATOR.value, K.VAR_DECL.value})

# Calls that leave the indicator as it was: count operations (a destructor leaves no error set).
_QUIET_ROLES = frozenset(("retain", "release"))

# CPython's calls that always leave an error set (they raise: pyglpk's `PyErr_SetString (...);
# break;` before the loop's `if (PyErr_Occurred ())` cleanup), and (group 1) those that always
# leave none. Read only in a body that tests the indicator, which only the cpython preset names.
_SETS = re.compile(r"^(?:PyErr_(?:Set(?:String|Object|None|FromErrno\w*|ExcFromWindowsErr\w*|FromWindowsErr\w*"
                   r"|ImportError\w*)|Format\w*|NoMemory|BadArgument|BadInternalCall)"
                   r"|(PyErr_Clear|PyErr_Fetch|PyErr_GetRaisedException))$")


def is_indicator(b, name: str | None) -> bool:
    """Whether `name` is the conventions' error-indicator test."""
    return bool(name) and bool(b.conv.error_indicator) and b.conv.matches("error_indicator", name)


def indicator_key(b) -> str | None:
    """The fact key of the indicator's test where this body tests it, else None (once per build)."""
    if b.indicator is None:
        found = ""
        if b.conv.error_indicator:
            calls = [c for c in body_sites(b) if kind_of(c) == K.CALL_EXPR]
            for c in calls:
                if is_indicator(b, b.callee_of(c)[1]):
                    key = fact_key(c, b)
                    found = key[0] if key is not None and not key[1] else ""
                    break
            else:
                # No test of its own, but a helper's that answers only with an error set: the
                # indicator's fact under a name no test text can take.
                if any(guards_indicator(b, c) for c in calls):
                    found = GUARDED_KEY
        b.indicator = found
        b.indicator_calls = _assigned_calls(b) if found else frozenset()
    return b.indicator or None


def _assigned_calls(b) -> frozenset:
    """The calls whose result goes straight into a local variable (`x = f (...)`, `T x = f
    (...)`): only there can a later test of the indicator speak of it. A result handed to another
    call (`PyDict_SetItemString (d, k, PyLong_FromLong (v))`) meets that call first, and one
    stored into an array element or a field is no variable the test could decide; splitting
    those would only multiply states (a module initializer's fifty results)."""
    out = set()
    for c in of_kinds(b.fn, _ASSIGNING):
        kids = list(children_of(c))
        if kind_of(c) == K.BINARY_OPERATOR:
            target = strip(kids[0]) if binop(c) == "=" and len(kids) == 2 else None
            if target is None or kind_of(target) != K.DECL_REF_EXPR or b.var(referenced(target)) is None:
                continue  # not a local: a global's many initializers (PyGreSQL's exceptions) stay one state
            value = kids[1]
        elif kids and b.var(c) is not None:
            value = kids[-1]
        else:
            continue
        out.update(_value_calls(value))
    return frozenset(out)


def _value_calls(value) -> list:
    """The calls whose result is the value of `value`: itself, or the arms of `c ? f () : g ()`
    (apsw's `PyDict_Check (b) ? PyDict_GetItemString (b, k) : PyMapping_GetItemString (b, k)`)."""
    value = strip(value)
    if kind_of(value) == K.CALL_EXPR:
        return [cursor_key(value)]
    if kind_of(value) == K.CONDITIONAL_OPERATOR:
        return [k for arm in list(children_of(value))[1:] for k in _value_calls(arm)]
    return []


def may_set(b, c, loc, name: str | None, summary) -> None:
    """At call `c` that may raise: the indicator says nothing about an earlier result any more;
    a call that always raises (`PyErr_SetString`) or clears it (`PyErr_Clear`) says what it is."""
    key = indicator_key(b)
    if key is None or is_indicator(b, name) or b.conv.matches("pure", name or ""):
        return
    if key != GUARDED_KEY and name and (m := _SETS.match(name)) is not None:
        b.emit(ir.Store(loc, None, key, truth=m.group(1) is None))
        return
    if (summary.role or macro_role(b, c, name)) in _QUIET_ROLES:
        return
    b.emit(ir.Store(loc, None, key))


def split_result(b, c, loc, name: str, t: str) -> None:
    """After `x = name (...)` (its result `t`): on t's non-NULL edge the call set no error."""
    key = indicator_key(b)
    if key is None or cursor_key(c) not in b.indicator_calls:
        return
    join = b.non_null_arm(loc, t, f"{name} returned a value, no error set")
    b.emit(ir.Store(loc, None, key, truth=False))
    b.goto(join)
    b.cur = join
