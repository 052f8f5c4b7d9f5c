"""Results owned or borrowed as a flag output says (`Summary.owned_by_flag`).

pyahocorasick's `pymod_get_string (obj, &word, &len, &is_copy)` returns `obj` with a reference
of its own and writes `*is_copy = false`, or returns it bare and writes `true` (its copy of the
text is then what the caller frees); the caller releases the result where the flag says so
(`if (!is_copy) Py_DECREF (arg);`). A call handed `&local` there splits in two edges: the owned
result with the local holding the one value, the borrowed one with the other, so that the
caller's later test of the local takes the edge its result needs.
"""

from __future__ import annotations

from refcheck import ir


def flag_split(b, loc, name: str, local: str, owned_when: bool, acquire, borrowed) -> str:
    """The call's result after the split: `acquire(t)` emits the owned result into t on one
    edge, `borrowed()` gives the borrowed value on the other."""
    t = b.temp(f"{name}(...)")
    owned, lent, join = b.call_split(loc, f"{name} sets {b.names.get(local, local)}", f"{name} sets its flag")
    b.cur = owned
    acquire(t)
    b.emit(ir.Const(loc, local, int(owned_when)))
    b.goto(join)
    b.cur = lent
    value = borrowed()
    b.emit(ir.Assign(loc, t, value, null=value is None))
    b.emit(ir.Const(loc, local, int(not owned_when)))
    b.goto(join)
    b.cur = join
    return t
