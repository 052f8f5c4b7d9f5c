"""A singleton handed to a steal and retained by the very next statement (issue 31, session 26:
python-rrdtool's `PyTuple_SET_ITEM (t, j, Py_None); Py_INCREF (Py_None);`, pycares'
`PyStructSequence_SET_ITEM`): the steal's reference, paid one statement late. Further on, a
retain pays nothing (RC009 at the steal, `analysis.locations`)."""

from __future__ import annotations

import clang.cindex as ci

from refcheck.frontend.binding import of_kinds
from refcheck.frontend.clangutil import K, kind_of, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import singleton_address

_BLOCKS = frozenset({ci.CursorKind.COMPOUND_STMT.value})


def retained_next(b, c, arg) -> bool:
    """`arg` is a singleton's address (`Py_None`) that the statement right after the one holding
    call `c`, in the same block, retains (`PyTuple_SET_ITEM (t, j, Py_None); Py_INCREF (Py_None);`):
    the hand-over's reference, paid one statement late (issue 31, python-rrdtool, pycares)."""
    name = singleton_address(arg, b)
    if name is None:
        return False
    at = c.extent.start.offset
    blocks = [s for s in of_kinds(b.fn, _BLOCKS) if s.extent.start.offset <= at < s.extent.end.offset]
    if not blocks:
        return False
    stmts = list(children_of(max(blocks, key=lambda s: s.extent.start.offset)))
    k = next((k for k, s in enumerate(stmts) if s.extent.start.offset <= at < s.extent.end.offset), None)
    if k is None or k + 1 >= len(stmts):
        return False
    nxt = strip(stmts[k + 1])
    if kind_of(nxt) != K.CALL_EXPR:
        return False
    args = list(nxt.get_arguments())
    return (b.summary_of(*b.callee_of(nxt)).role == "retain" and bool(args)
            and singleton_address(args[0], b) == name)
