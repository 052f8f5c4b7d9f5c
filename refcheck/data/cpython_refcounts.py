"""Regenerate `cpython_refcounts.json`, the `cpython` preset's summary records, from CPython's
own table of the C API's reference behaviour, Doc/data/refcounts.dat.

    python -m refcheck.data.cpython_refcounts --git-dir CPYTHON.git v3.8.0 v3.9.0 ... main
    python -m refcheck.data.cpython_refcounts --file refcounts.dat --label 3.14 --commit SHA

Each function gets one record table (`refcheck.conventions.records.record_table`): a `+1` return is an
owned result, `0` or `null` a borrowed one; an argument marked `-1` (or commented "stolen") is
stolen. The file's own header warns that its argument column is unreliable ("PyList_SetItem ...
lists as a 0 change ... in fact it steals"), so `OVERRIDES` restates, from the C API reference,
the steals it misses and the `-1`s that are not the caller's reference. Tables read at several
release tags are merged: a name keeps the record of the newest version that lists it, and
`since` says the oldest one that did.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from refcheck.conventions.summary import Effect, Returns, Summary, Tracked, When
from refcheck.conventions.records import record_table

OUT = Path(__file__).with_name("cpython_refcounts.json")


@dataclass(frozen=True)
class Entry:
    """One function block of refcounts.dat."""

    name: str
    result_type: str
    result: str  # "+1", "0", "null" or "" (not a PyObject*)
    arguments: tuple[tuple[str, str, str], ...]  # (type, name, effect) in prototype order; "..." too


def parse(text: str) -> dict[str, Entry]:
    """The function blocks of one refcounts.dat (the first line of a block is the result)."""
    heads: dict[str, tuple[str, str]] = {}
    args: dict[str, list] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = (line.split(":", 4) + ["", "", "", ""])[:5]
        name, typ, param, effect, comment = (f.strip() for f in fields)
        if name not in heads:
            heads[name] = (typ, effect)
            args[name] = []
        else:
            if "stolen" in comment.lower() or "steal" in comment.lower():
                effect = "-1"
            args[name].append((typ, param, effect))
    return {n: Entry(n, t, e, tuple(args[n])) for n, (t, e) in heads.items()}


# The refcounting primitives: their +1/-1 is the caller's own count, not a steal.
PRIMITIVES = {
    "Py_INCREF": "retain", "Py_XINCREF": "retain", "Py_NewRef": "retain", "Py_XNewRef": "retain",
    "Py_DECREF": "release", "Py_XDECREF": "release", "Py_CLEAR": "release",
}

# What the C API reference says where refcounts.dat says otherwise (or nothing), by function:
# argument index -> effect. "steals a reference to item" (PyList_SetItem, PyTuple_SetItem and the
# macros, PyStructSequence_SetItem); PyModule_AddObject "steals a reference to value" only on
# success; PyException_SetCause/SetContext steal the cause/context.
OVERRIDES: dict[str, dict[int, Effect | tuple[Effect, When]]] = {
    "PyList_SetItem": {2: Effect.CONSUME}, "PyList_SET_ITEM": {2: Effect.CONSUME},
    "PyTuple_SetItem": {2: Effect.CONSUME}, "PyTuple_SET_ITEM": {2: Effect.CONSUME},
    "PyStructSequence_SetItem": {2: Effect.CONSUME}, "PyStructSequence_SET_ITEM": {2: Effect.CONSUME},
    "PyModule_AddObject": {2: (Effect.CONSUME, When.ZERO)},
    "PyException_SetCause": {1: Effect.CONSUME}, "PyException_SetContext": {1: Effect.CONSUME},
    # refcounts.dat's `+1` on the item: the list or dict takes a reference of its own when the call
    # succeeds (returns 0) and the caller's stays the caller's, so the object outlives the
    # caller's release while the container holds it (CPython's blocks output buffer:
    # `PyList_Append(list, b); Py_DECREF(b); ... PyBytes_AS_STRING(b)`). Not the dict's key, nor
    # PySet_Add's: an equal key already there is kept instead of the one passed.
    "PyList_Append": {1: (Effect.KEEP, When.ZERO)}, "PyList_Insert": {2: (Effect.KEEP, When.ZERO)},
    "PyDict_SetItem": {2: (Effect.KEEP, When.ZERO)}, "PyDict_SetItemString": {2: (Effect.KEEP, When.ZERO)},
}
# Out-parameters (`PyObject**`) the C API reference says receive new references where
# refcounts.dat says `0`: PyErr_Fetch "set *ptype, *pvalue and *ptraceback ... If the error
# indicator is not set, set all three variables to NULL. If it is set, it will be cleared and you
# own a reference to each object retrieved" (NULL or a new reference, on a void call).
# PyErr_SetExcInfo "This function steals the references of the arguments" (the file's 0s).
OVERRIDES.update({
    "PyErr_Fetch": {0: Effect.ACQUIRE_OUT, 1: Effect.ACQUIRE_OUT, 2: Effect.ACQUIRE_OUT},
    "PyErr_SetExcInfo": {0: Effect.CONSUME, 1: Effect.CONSUME, 2: Effect.CONSUME},
})
# Fills NULL where another's is (`Summary.fills_with`): PyErr_Fetch sets all three to NULL when
# no error is set, so `if (type) PyErr_Restore (type, value, tb);` leaks nothing; value and
# traceback may still be NULL beside a type.
FILLS_WITH = {"PyErr_Fetch": ((1, 0), (2, 0))}
# A `PyObject**` marked `+1` is a fill: `*p` receives a new reference (refcounts.dat's only way to
# say so). A void call fills it unconditionally (PyErr_GetExcInfo; NULL where there is nothing);
# an int one on the result its documentation names, NULL on the others: PyContextVar_Get "Returns
# -1 if an error has occurred during lookup, and 0 if no error occurred" (then a new reference, or
# NULL where there is no value nor default); PyWeakref_GetRef and PyIter_NextItem return 1 with
# the new reference, 0 and -1 with NULL. An int fill the table does not name is not read
# (PyIter_Send's `*presult` holds a new reference on both PYGEN_RETURN 1 and PYGEN_NEXT 0, a class
# `When` has no name for).
FILLED_ON = {"PyContextVar_Get": When.ZERO, "PyWeakref_GetRef": When.POSITIVE, "PyIter_NextItem": When.POSITIVE}
# `+1` on an in-out `PyObject**` whose reference stays the caller's: PyErr_NormalizeException
# replaces the three values in place ("+1???"), PyUnicode_InternInPlace replaces `*p` by the
# interned string, releasing the old one: before and after the call `*p` holds the caller's own.
IN_OUT = {"PyErr_NormalizeException", "PyUnicode_InternInPlace"}

# `-1` entries that are not the caller's reference: PySet_Discard drops the set's own reference
# to the key, PyContext_Exit/PyContextVar_Reset and Py_ReprLeave undo what their partner did.
NOT_STEALS = {"PySet_Discard", "PyContext_Exit", "PyContextVar_Reset", "Py_ReprLeave"}


# Functions that hand back the object they are given, its ownership unchanged: PyObject_Init and
# PyObject_InitVar "Initialize a newly allocated object op ... Returns the initialized object"
# (the C API reference; refcounts.dat gives them no result), so `op = PyObject_Init(op, tp)`
# and `return PyObject_INIT(op, tp)` keep op's reference.
RETURNS_ARGUMENT = {"PyObject_Init": 0, "PyObject_InitVar": 0}


# The names the analysis sees after the preprocessor, for the API name each one spells (3.8 to
# 3.13 headers): PY_SSIZE_T_CLEAN's _SizeT variants, the object allocators behind their macros,
# PyModule_Create's API-version call, and the static inline functions behind the refcounting
# macros (3.8-3.10 _Py_INCREF/_Py_DECREF/_Py_XDECREF, 3.10+ _Py_NewRef/_Py_XNewRef).
ALIASES = {
    "_Py_BuildValue_SizeT": "Py_BuildValue", "_Py_VaBuildValue_SizeT": "Py_VaBuildValue",
    "_PyObject_CallFunction_SizeT": "PyObject_CallFunction", "_PyObject_CallMethod_SizeT": "PyObject_CallMethod",
    "_PyObject_GC_New": "PyObject_GC_New", "_PyObject_GC_NewVar": "PyObject_GC_NewVar",
    "_Py_INCREF": "Py_INCREF", "_Py_XINCREF": "Py_XINCREF", "_Py_DECREF": "Py_DECREF", "_Py_XDECREF": "Py_XDECREF",
    "_Py_NewRef": "Py_NewRef", "_Py_XNewRef": "Py_XNewRef",
}
# _PyObject_New, _PyObject_NewVar and PyModule_Create2 have entries of their own in the file.


def record(e: Entry) -> Summary | None:
    """The summary record of one function, or None when it would say nothing (no pointer result,
    every argument borrowed)."""
    kind = PRIMITIVES.get(e.name)
    if kind == "retain":  # Py_NewRef(o) returns o with the reference it added
        return Summary(arguments=((Tracked.EVERY, Effect.RETAIN),), returns=Returns.ARGUMENT, returned=Tracked.FIRST)
    if kind == "release":
        return Summary(arguments=((Tracked.EVERY, Effect.RELEASE),))
    if e.name in RETURNS_ARGUMENT:
        return Summary(returns=Returns.ARGUMENT, returned=RETURNS_ARGUMENT[e.name])
    effects: dict[int, Effect] = {}
    if e.name not in NOT_STEALS:
        effects = {i: Effect.CONSUME for i, (_, _, eff) in enumerate(e.arguments) if eff == "-1"}
    effects.update(_fills(e))
    effects.update(OVERRIDES.get(e.name, {}))
    returns = Returns.OWNED if e.result == "+1" else Returns.BORROWED
    pointer = e.result in ("+1", "0", "null") or e.result_type.endswith("*")
    if returns is Returns.BORROWED and not effects and not pointer:
        return None
    return Summary(returns=returns, fills_with=FILLS_WITH.get(e.name, ()), **_arguments(effects))


def _fills(e: Entry) -> dict[int, Effect | tuple[Effect, When]]:
    """The out-parameters a `+1` marks as filled with a new reference (`FILLED_ON`, `IN_OUT`)."""
    outs = [i for i, (typ, _, eff) in enumerate(e.arguments)
            if typ.replace(" ", "") == "PyObject**" and eff == "+1"]
    if not outs or e.name in IN_OUT:
        return {}
    if e.result_type == "void":
        return {i: Effect.ACQUIRE_OUT for i in outs}
    when = FILLED_ON.get(e.name)
    return {} if when is None else {i: (Effect.ACQUIRE_OUT, when) for i in outs}


def _arguments(effects: dict) -> dict:
    """Summary fields from index -> effect or (effect, When): plain and conditional effects."""
    return {"arguments": tuple(sorted((i, e) for i, e in effects.items() if isinstance(e, Effect))),
            "conditional": tuple(sorted((i, *e) for i, e in effects.items() if not isinstance(e, Effect)))}


def tables(entries: dict[str, Entry]) -> dict[str, dict]:
    out = {}
    for name, e in sorted(entries.items()):
        s = record(e)
        if s is not None:
            out[name] = record_table(s)
    for name in OVERRIDES:  # a steal refcounts.dat does not list at all (yet) still counts
        if name not in out:
            out[name] = record_table(Summary(**_arguments(OVERRIDES[name])))
    return out


def merge(versions: list[tuple[str, str, dict[str, Entry]]]) -> dict:
    """One document from the tables of several versions, oldest first."""
    functions: dict[str, dict] = {}
    for label, _, entries in versions:
        for name, table in tables(entries).items():
            since = functions.get(name, {}).get("since", label)
            functions[name] = {"since": since, "record": table}
    for alias, name in ALIASES.items():
        if name in functions and alias not in functions:
            functions[alias] = {**functions[name], "alias-of": name}
    return {
        "source": "Doc/data/refcounts.dat of python/cpython, regenerated by refcheck/data/cpython_refcounts.py",
        "versions": [{"label": label, "commit": commit} for label, commit, _ in versions],
        "functions": functions,
    }


def dump(doc: dict) -> str:
    """The document as JSON with one function a line, so that a regeneration diffs by function."""
    head = json.dumps({k: v for k, v in doc.items() if k != "functions"}, indent=1, sort_keys=True)
    lines = [f" {json.dumps(n)}: {json.dumps(f, sort_keys=True)}" for n, f in sorted(doc["functions"].items())]
    return head[:-2] + ',\n "functions": {\n' + ",\n".join(lines) + "\n }\n}\n"


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True,
                          text=True).stdout


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--git-dir", help="a clone of python/cpython (bare is fine)")
    p.add_argument("revisions", nargs="*", help="tags or commits to read, oldest first")
    p.add_argument("--file", help="one refcounts.dat instead of a clone")
    p.add_argument("--label", default="unknown", help="with --file: the version it is of")
    p.add_argument("--commit", default="", help="with --file: the commit it is from")
    p.add_argument("--output", default=str(OUT))
    a = p.parse_args(argv)
    versions = []
    if a.file:
        versions.append((a.label, a.commit, parse(Path(a.file).read_text())))
    elif a.git_dir and a.revisions:
        for rev in a.revisions:
            commit = _git(a.git_dir, "rev-parse", f"{rev}^{{commit}}").strip()
            text = _git(a.git_dir, "show", f"{commit}:Doc/data/refcounts.dat")
            versions.append((rev, commit, parse(text)))
    else:
        p.error("give --file, or --git-dir and revisions")
    doc = merge(versions)
    Path(a.output).write_text(dump(doc))
    print(f"{a.output}: {len(doc['functions'])} functions from {len(versions)} version(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
