"""Which pointer arguments carry counted references, told by the unit's types (issue 27).

A port passes a context first to every call (THC's `THCState *state`, cltorch's `THClState
*state`, Lua's `lua_State *L`). Such a handle is no reference: nothing in the unit hands one out
counted. The counted types are the pointees of the pointer results of the unit's acquirer
declarations (`THClTensor *THClTensor_newv2(THClState *, ...)`); a pointer to another record type
passed beside a counted one (`THClTensor_free(state, t)`, `freeCopyTo(state, t, dst)`) is a
handle. Alone in a call it stays tracked: `THClState_free(state)` releases whatever it is given.
"""

from __future__ import annotations

from functools import lru_cache

import clang.cindex as ci

from refcheck.conventions import Conventions, Counts
from refcheck.frontend.binding import among, spellings
from refcheck.frontend.clangutil import K, record_cache

_DECLS = {K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE}
_SCOPES = {K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL}
_POINTERS = (ci.TypeKind.POINTER, ci.TypeKind.LVALUEREFERENCE)


def record_name(t) -> str | None:
    """The record a pointer type points to, as one spelling for C and C++ (`THClTensor`), else
    None (`void *`, `float *`, not a pointer). Asked of every pointer argument of every call
    (`handle_positions`): kept per build by the type's bytes, as `clangutil.canonical_kind`."""
    cache = record_cache()
    if cache is None:
        return _record_name(t)
    key = bytes(t)
    if key not in cache:
        cache[key] = _record_name(t)
    return cache[key]


def _record_name(t) -> str | None:
    t = t.get_canonical()
    if t.kind not in _POINTERS:
        return None
    pointee = t.get_pointee().get_canonical()
    if pointee.kind != ci.TypeKind.RECORD:
        return None
    name = pointee.spelling
    for word in ("const ", "volatile ", "struct ", "class ", "union "):
        name = name.replace(word, "")
    return name.strip() or None


def counted_types(top: list, conv: Conventions) -> frozenset[str]:
    """The record types the unit's declarations count: those its acquirers (and reallocations)
    return pointers to, and those its releasers and retainers take (a type no convention ever
    acquires or releases is no reference: `THAllocator *`, `THCState *`).

    Every declaration's name is asked (5,700 a GLib unit, 2,700 Python.h's), all in one query
    (`binding.spellings`); the types of the few hundred that count are named once per distinct
    type (most return or take the same few)."""
    out: set[str] = set()
    names: dict[bytes, str | None] = {}

    def named(t) -> str | None:
        key = bytes(t)  # the type within this unit (kind and libclang's pointers)
        if key not in names:
            names[key] = _record_name(t)
        return names[key]

    # The kind first, as libclang's id: most top-level cursors declare no function. The names in
    # one query (compiled where built: three ctypes calls a name were most of this walk).
    counts_of, cache = conv.counts, conv.counts_cache()
    found = _declared(top)
    for c, name in zip(found, spellings(found)):
        c._spelling = name  # kept where `binding.spelling` keeps it: the definitions' names are asked again
        name = name or ""
        counts = cache.get(name) or counts_of(name)
        if counts is Counts.RESULT:
            out.add(named(c.result_type))
        elif counts is Counts.ARGUMENT:
            # The last pointer parameter: THC's `THCudaTensor_free(THCState *state, THCudaTensor *self)`.
            records = [named(a.type) for a in c.get_arguments()]
            out.add(next((r for r in reversed(records) if r is not None), None))
    out.discard(None)
    return frozenset(out)


def _declared(cursors) -> list:
    """The function declarations among `cursors` and inside their scopes (namespaces, extern "C"
    blocks), in order: the kinds picked in one query (binding.among, compiled where built), as
    most of a unit's top-level cursors (~8,600 on a GLib unit) declare no function."""
    decls, scopes = _kind_ids()
    out: list = []
    for c in among(cursors, decls | scopes):
        if c._kind_id in scopes:
            out.extend(_declared(c.get_children()))
        else:
            out.append(c)
    return out


@lru_cache(maxsize=1)
def _kind_ids() -> tuple[frozenset, frozenset]:
    """The ids of `_DECLS` and `_SCOPES` (a cursor's `_kind_id`)."""
    return frozenset(k.value for k in _DECLS), frozenset(k.value for k in _SCOPES)


class CountedTypes:
    """`counted_types` of a unit, walked when first asked (`conv.unit_counted`): a unit where no
    graph is built, or no call passes two pointers, never asks, and the walk lists every
    top-level cursor (16,819 on simplejson, ~15 ms). Reads as the frozenset it stands for."""

    __slots__ = ("_top", "_conv", "_types")

    def __init__(self, top: list, conv: Conventions) -> None:
        self._top, self._conv = top, conv
        self._types: frozenset[str] | None = None

    def get(self) -> frozenset[str]:
        if self._types is None:
            self._types = counted_types(self._top, self._conv)
            self._top = self._conv = None  # the parse's cursors are not kept past the walk
        return self._types

    def __bool__(self) -> bool:
        return bool(self.get())

    def __contains__(self, name) -> bool:
        return name in self.get()

    def __iter__(self):
        return iter(self.get())

    def __len__(self) -> int:
        return len(self.get())

    def __eq__(self, other) -> bool:
        return self.get() == (other.get() if isinstance(other, CountedTypes) else other)

    def __hash__(self) -> int:
        return hash(self.get())

    def __repr__(self) -> str:
        return repr(self.get())

    def __reduce__(self):  # a cursor does not pickle: the walked set does
        return frozenset, (tuple(self.get()),)


def handle_positions(conv: Conventions, args: list, candidates: list[int]) -> frozenset[int]:
    """Among the argument positions `candidates` (pointers holding a value), those that are
    handles: a type the `context` patterns name, or a record type no acquirer of the unit
    returns while another candidate's type is counted (or unknown: `void *`)."""
    names = {i: record_name(args[i].type) for i in candidates}
    handles = {i for i, n in names.items() if n is not None and conv.matches("context", n)}
    if conv.unit_counted:
        counted = [i for i, n in names.items() if i not in handles and (n is None or n in conv.unit_counted)]
        if counted:
            # An object record (CPython's PyObject, PyVarObject) is counted whatever the unit's
            # acquirers return: `PyObject_InitVar((PyVarObject *)op, Py_TYPE(op), n)` (guppy3).
            handles |= {i for i, n in names.items()
                        if n is not None and n not in conv.unit_counted and n not in conv.object_records}
    return frozenset(handles)
