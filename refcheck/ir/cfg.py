"""A function's control-flow graph (ir.digraph) with its statements lowered to IR ops: the data the
analysis, the rules and `refcheck cfg` read.

The graph is built from libclang cursors by `refcheck.frontend.builder`; nothing here knows about
libclang. Node kinds: entry, block, branch (a condition, `Node.cond`), switch, return, exit, error
(a call that does not return, interpreted by the errors mode) and stop (exit(), abort()).
Edges carry `branch` (True/False on the edges out of a branch node), `label` and, out of a switch,
`case` (the case's constant).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from refcheck.ir.digraph import DiGraph

from refcheck.findings import Location


@dataclass
class Node:
    kind: str  # entry, block, branch, switch, return, exit, error, stop
    loc: Location | None = None
    ops: list = field(default_factory=list)
    cond: object = None  # ir.NullTest | ir.Fact | ir.Opaque, for branch nodes
    value: str | None = None  # the returned value, for return nodes
    const: int | None = None  # the integer constant a return node returns (`return FALSE;`)
    post: list = field(default_factory=list)  # ops after the test (temporaries of the condition dying)
    text: str = ""


class FunctionRole(enum.Enum):
    """What the runtime that calls a function through a table expects of it (frontend.slots)."""

    PLAIN = 0  # no table says: its name (conventions) decides
    RETURNS_NEW = 1  # stored in a slot whose pointer result the caller owns (CPython's ml_meth, tp_repr)
    DESTROYS = 2  # a destructor slot (tp_dealloc): it frees the object it is given


@dataclass
class FunctionCFG:
    name: str
    graph: DiGraph
    entry: int
    exit: int
    loc: Location
    params: list[tuple[str, bool]]  # (value name, is a pointer)
    names: dict[str, str]  # value name -> what the user wrote
    # Lambda expressions in the body, checked as functions of their own (frontend definitions).
    lambdas: list = field(default_factory=list)
    role: FunctionRole = FunctionRole.PLAIN
    # Local pointers derived from the parameters (`entry = htkeys_entries (md->keys) + n`): a store
    # through one is a store into memory the caller reaches (frontend.setters; cpython preset).
    reaching: frozenset = frozenset()
    # A parameter of GDestroyNotify's shape (`void (*) (T *)`): the data stored beside it is
    # handed over (GLib's data/notify pair), not lent (analysis.summarize `lent`).
    takes_notify: bool = False
    # Pointer parameters stored into a field whose old value the body released first (GLib's
    # clear-then-store setter): handed to the field, not lent (frontend.replaced).
    replaces: frozenset = frozenset()
    # Node parameters the body links into an intrusive list (`elem->prev->next = to_add`): the
    # list keeps them, a container's store (frontend.intrusive; analysis.summarize `setter`).
    links: frozenset = frozenset()
    # Of those, the ones whose only other return is under a same-pointer guard (`if (*q == p)
    # return K;`): handed over on every result (frontend.sameguard).
    same_guarded: frozenset = frozenset()
    # The `gpointer` parameters right after a function-pointer parameter, in a function taking no
    # destroy notify: GLib's (closure) user data of the caller's own callback (analysis.summarize).
    closures: frozenset = frozenset()
    # The `void *` parameters (GLib's `gpointer user_data`): a callback's data, whose release on
    # some paths is its registration's protocol (analysis.summarize `given_some`).
    untyped: frozenset = frozenset()
    # (data, callback) parameter-name pairs: the data handed to an async call beside the
    # function's own callback parameter, no notify (frontend.userdata.forwarded; `Summary.forwards`).
    forwards: frozenset = frozenset()
    # Whether the function has a result (its type is not void): a caller can tell by it which path
    # ran, even where every return is an untracked integer (analysis.summarize `stolen`).
    returns_value: bool = False
    # Whether that result is a truth value (`gboolean`, `bool`): TRUE is its success, where an
    # integer status's is 0 (analysis.summarize `maybe_given`).
    returns_truth: bool = False
    # Whether that result is a pointer: a constant 0 returned is NULL, its failure (analysis.paramfates
    # `dropped_on_failure`).
    returns_pointer: bool = False
    # The parameters that point to const (`const char *buf`): C's promise not to write through
    # them, so a body storing one into memory lends it, never keeps it (analysis.summarize `sunk`).
    read_only: frozenset = frozenset()
    # (parameter index, field): flags the body sets only on its way to a NULL return
    # (frontend.flagfail; `Summary.null_when_flags`).
    null_when_flags: tuple = ()
    # Locals a macro declares for itself (`__s1` in g_assert_cmpstr, `_ptr` in g_clear_pointer):
    # a report names the value by what the user wrote, never by these (analysis.report).
    hidden: frozenset = frozenset()
    # Pointer parameters of another type than the pointer result (neither `void *`): the result
    # is never the parameter moved, as a realloc's is (analysis.paramfates `dropped_on_failure`).
    unlike_result: frozenset = frozenset()
