"""An object's error state tested beside a result that is NULL exactly when it is set (the
conventions' `error_state`: GLib's `g_task_had_error` and `g_task_propagate_pointer`).

`g_task_propagate_pointer (task, error)`: "If the task resulted in an error, or was cancelled,
then this will instead return NULL and set error" (GLib's documentation), and
`g_task_had_error (task)` tells whether it did. Code tests the state rather than the result,
before (libsecret's `if (g_task_had_error (task)) g_task_propagate_pointer (task, error); else
...`: the discarded result is NULL) or after the call (grilo's `op = g_task_propagate_pointer
(task, error); if (!g_task_had_error (task)) free_op_res (op); return ...;`: op is freed where it
is not NULL). Lowered where the body tests the state of the object handed to such a call: on the
result's non-NULL edge, the test's fact (keyed by its own text, `conditions.fact_key`) is
branched on, its true edge a stop (no value with an error) and its false edge the call's success.
"""

from __future__ import annotations

import re

from refcheck import ir
from refcheck.frontend.clangutil import K, kind_of
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import _subkey, fact_key
from refcheck.frontend.parents import body_sites


def _tests(b) -> dict:
    """(result pattern, object's key) -> the fact of the state test of that object, once per build."""
    if b.state_tests is None:
        found = {}
        for c in body_sites(b):
            if kind_of(c) != K.CALL_EXPR:
                continue
            results = b.conv.pattern_value("error_state", b.callee_of(c)[1] or "")
            args = children_of(c)[1:]
            if results is None or len(args) != 1:
                continue
            key, obj = fact_key(c, b), _subkey(args[0], b)
            if key is not None and obj is not None:
                found[(results, obj[0])] = ir.Fact(key[0], frozenset(key[1]))
        b.state_tests = found
    return b.state_tests


def split_result(b, loc, name: str, t: str, args: list) -> None:
    """After `t = name (obj, ...)`: on t's non-NULL edge, obj's error state is clear."""
    if not b.conv.error_state or not args:
        return
    tests = _tests(b)
    if not tests:
        return
    obj = _subkey(args[0], b)
    fact = next((f for (results, key), f in tests.items()
                 if obj is not None and key == obj[0] and re.search(results, name)), None)
    if fact is None:
        return
    join = b.non_null_arm(loc, t, f"{name} returned a value")
    test = b.node("branch", loc, cond=fact, text=f"{name} returned a value with an error")
    b.start(test)
    b.edge(test, b.node("stop", loc, text=f"{name} returns NULL where its object has an error"), True)
    b.edge(test, join, False)
    b.cur = join
