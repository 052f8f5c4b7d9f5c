"""Which result class a function returns when a call inside it failed, read off its graph.

A helper's failure value is its own convention, not C's: most CPython helpers return 0 on success
and -1 on failure, but a YAJL callback (ijson's `add_event_and_value`) returns 1 to go on and 0 to
abort, and a truth-valued one (`gboolean`) TRUE on success. The body says which: a `return 0`
taken straight from the NULL edge of a new reference (`if ((tuple = PyTuple_New (2)) == NULL)
return 0;`) is its failure. `Summarizer.split` reads the other class (`success_class`) as the success on which a
parameter is taken over (`maybe_given`)."""

from __future__ import annotations

from refcheck import ir
from refcheck.ir.cfg import FunctionCFG
from refcheck.conventions.summary import When

# How far back from a return the walk looks through empty blocks for the branch that led there.
_STEPS = 8


def success_class(cfg: FunctionCFG) -> When:
    """The class other than the failure class the body shows, else C's 0, or TRUE for a truth value."""
    failure = failure_class(cfg)
    if failure is not None:
        return When.NONZERO if failure is When.ZERO else When.ZERO
    return When.NONZERO if cfg.returns_truth else When.ZERO


def failure_class(cfg: FunctionCFG) -> When | None:
    """The result class (0 or non-zero) of the returns that follow a failed acquire, where every
    such return is of that one class and at least one is; None where the body does not say."""
    data = dict(cfg.graph.nodes(data="data"))
    ops = [op for d in data.values() for op in d.ops]
    acquired = {op.dst for op in ops if type(op) is ir.Acquire}
    if not acquired:
        return None
    # The locals the result goes to (`tuple = PyTuple_New (2)`: the call's value, then the local).
    acquired |= {op.dst for op in ops if type(op) is ir.Assign and op.src in acquired}
    seen = set()
    for n, d in data.items():
        if d.kind == "return" and d.const is not None and _after_failure(cfg, data, n, acquired):
            seen.add(When.ZERO if d.const == 0 else When.NONZERO)
    return next(iter(seen)) if len(seen) == 1 else None


def _after_failure(cfg: FunctionCFG, data: dict, node: int, acquired: set) -> bool:
    """Whether `node` is reached, through empty blocks only, from the NULL edge of a test of a
    variable an acquire call assigned (`tuple = PyTuple_New (2); if (!tuple) return 0;`)."""
    for _ in range(_STEPS):
        preds = list(cfg.graph.predecessors(node))
        if len(preds) != 1:
            return False
        pred = preds[0]
        d = data[pred]
        if d.kind == "branch":
            return (type(d.cond) is ir.NullTest and d.cond.var in acquired
                    and cfg.graph[pred][node].get("branch") is False)
        if d.kind != "block" or d.ops or d.post:
            return False
        node = pred
    return False


_GIVEN = frozenset({"released", "consumed", "sunk"})


def taken_over(given: set, kept: set) -> bool:
    """Fates (`Summarizer.fate`) of a parameter taken over on one result and maybe on the other:
    given up on every return of the first, by a release or a hand-over, at least one a release,
    mixed (`Py_DECREF (val)` on one, `PyTuple_SET_ITEM (t, 1, val)` on another); kept as borrowed
    on some returns of the other result (or all) and given up on the rest."""
    return (len(given) > 1 and given <= _GIVEN and bool(given & {"released", "consumed"})
            and "borrowed" in kept and kept <= _GIVEN | {"borrowed"})


def maybe_taken(kept: set) -> bool:
    """Fates of a parameter on the result other than the one that gives it up on every return:
    kept as borrowed on some returns, handed to a keeper (a stealing call, a store) on some
    (netifaces' `add_to_family (result, family, obj)` returns TRUE after `PyList_SET_ITEM (list,
    0, obj)` or `Py_DECREF (obj)`, and early, keeping it, where `obj` is empty). The hand-over
    says the helper means to own it, and its callers cannot tell its returns apart: the returns
    that keep it are its leak. Releases alone say nothing (a function releasing its parameter on
    some returns of each result is no helper: the release is RC006)."""
    return "borrowed" in kept and bool(kept & {"sunk", "consumed"}) and kept <= _GIVEN | {"borrowed"}
