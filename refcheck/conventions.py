"""Which calls acquire, retain, release and consume references, and which never return.

The analysis only ever asks a `Conventions` object; the TH preset below is the default, and
`refcheck.config` builds other instances from `[tool.refcheck]` tables and presets.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property

# A name "begins with new" after any type prefix: THFloatTensor_newContiguous, newScratch,
# THCudaTensor_newWithSize. The character after "new" must start a new word, so THFile_newline
# style names do not count as acquisitions... but newline would, in C it is spelled that way rarely.
TH_NEW = r"(?:^|_)new(?:[A-Z0-9_]|$)"


@dataclass
class Conventions:
    # Calls whose result is an owned reference.
    acquire: list[str] = field(default_factory=lambda: [
        TH_NEW, r"^THAlloc$", r"^malloc$", r"^calloc$", r"^strdup$",
    ])
    # Calls that hand their first pointer argument back as a fresh owned result (realloc style).
    reallocate: list[str] = field(default_factory=lambda: [r"^THRealloc$", r"^realloc$"])
    # Reallocate calls that return NULL on failure and leave the old block owned (THRealloc
    # raises THError instead).
    may_fail: list[str] = field(default_factory=lambda: [r"^realloc$", r"^reallocarray$"])
    # Calls that add an owned reference to the object their argument points to.
    retain: list[str] = field(default_factory=lambda: [
        r"(?:^|_)retain$", r"^c10::raw::intrusive_ptr::incref$",
    ])
    # Calls that give up a reference held in any argument position.
    release: list[str] = field(default_factory=lambda: [
        r"(?:^|_)free$", r"^c10::raw::intrusive_ptr::decref$", r"^THFree$",
    ])
    # Calls that take the reference over (after which it must not be released).
    consume: list[str] = field(default_factory=lambda: [r"(?:^|_)freeCopyTo$", r"(?:^|_)move$"])
    # Calls `steal(&x)` that return x's value and set x to NULL (GLib's g_steal_pointer): the
    # result is owned as x was, and the cleanup of an `__attribute__((cleanup))` x releases nothing.
    steal: list[str] = field(default_factory=lambda: [r"(?:^|_)steal_pointer$"])
    # Calls that never return: with errors="abort" their paths need no cleanup, with "unwind" they
    # are exits where nothing may still be held.
    error: list[str] = field(default_factory=lambda: [
        r"^_?THError$", r"^THArgError$", r"^_THAssertionFailed$", r"^THCudaCheckFail$",
    ])
    # Calls that leave the process: no cleanup needed in either errors mode.
    exit: list[str] = field(default_factory=lambda: [r"^abort$", r"^exit$", r"^_exit$", r"^_Exit$",
                                                     r"^__assert_fail$", r"^quick_exit$"])
    # Calls that raise an error only when one argument is false: name pattern -> index of it.
    conditional_error: dict[str, int] = field(default_factory=lambda: {r"^_THArgCheck$": 2})
    # Calls without side effects on their arguments, so that `if (!isContiguous(x))` tested twice
    # is the same condition both times.
    pure: list[str] = field(default_factory=lambda: [
        r"(?:^|_)is[A-Z]\w*$", r"(?:^|_)(?:nDimension|nElement|size|stride|dim|numel)$",
    ])
    # Pointer types that are handles passed along, not counted references (THC's state argument).
    context: list[str] = field(default_factory=lambda: [r"^THCState$", r"^THNNState$", r"^THCudaState$"])
    # "abort": error paths need no cleanup (PyTorch); "unwind": they must release (Lua torch).
    errors: str = "abort"
    # Functions that implement an allocator or deallocator (the name of the function being checked,
    # not of a callee): like the implementations of release/retain/consume, their parameters are
    # not tracked, and returning raw owned memory is their job (no RC004). TH's default allocator
    # (`THDefaultAllocator_alloc`), `THAllocInternal`, `THRealloc(p, 0)` freeing p, THC's
    # `THCudaFree`/`THCudaHostFree`. "Allocator" itself is excluded: THMapAllocatorContext_new is
    # an ordinary acquirer whose leaks are real.
    primitive: list[str] = field(default_factory=lambda: [
        r"(?:^|_)(?:re)?alloc$", r"^TH\w*Alloc(?!ator)\w*$", r"^THRealloc$", r"^THFree$",
        r"^THCuda(?:Host)?(?:Malloc|Alloc|Free)$",
    ])
    # Calls that keep a reference passed in given argument positions (a hand-over, like a store
    # into memory): pattern -> argument indices, negative from the end so that TH's
    # `newWithAllocator(size, allocator, ctx)` and THC's `(state, size, allocator, ctx)` share one.
    sinks: dict[str, list[int]] = field(default_factory=lambda: {
        r"(?:^|_)newWithAllocator$": [-1],            # the allocator context
        r"(?:^|_)newWithDataAndAllocator$": [-4, -1],  # the data block and the context
        r"(?:^|_)newWithData$": [-2],                  # the storage takes (and THFree's) the data
        r"^THCThreadLocal_set$": [-1],                 # a retained stream kept as current
    })
    # Calls that raise an error only when one argument is NONZERO (a status code that is not
    # success): real THC's THCudaCheck(err) is __THCudaCheck(err, __FILE__, __LINE__), an error
    # only when err != cudaSuccess. The polarity is the opposite of `conditional_error`.
    error_if_nonzero: dict[str, int] = field(default_factory=lambda: {
        r"^__THCudaCheck$": 0, r"^__THCublasCheck$": 0, r"^__THCusparseCheck$": 0,
    })
    # Acquirers that may return (with +1) the object passed in an argument instead of a new
    # one: `newContiguous` of a contiguous tensor. Every other acquirer returns an object that
    # cannot equal any pointer live before the call (newClone, new, newWithSize, ...).
    may_return_argument: dict[str, int] = field(default_factory=lambda: {
        r"(?:^|_)newContiguous$": -1,
    })
    # Calls after which two arguments have the same number of elements (pattern -> [a, b]), and
    # tests that are true exactly when two arguments do: what the size check of
    # TH_TENSOR_APPLY2/3 ("inconsistent tensor size") needs in order to be known not to fire.
    same_size: dict[str, list[int]] = field(default_factory=lambda: {
        r"(?:^|_)resizeAs$": [-2, -1],
    })
    same_size_test: dict[str, list[int]] = field(default_factory=lambda: {
        r"(?:^|_)isSameSizeAs$": [-2, -1],
    })
    # Callees outside the unit that may raise an error (errors="unwind": a call to one is a
    # possible exit). Functions of the same unit are summarised by the analysis instead.
    may_raise: list[str] = field(default_factory=lambda: [r"(?:^|_)shapeCheck$"])
    # Summarise the unit's own functions (errors="unwind"): every function that may reach an error
    # call on some path, directly or through others of the unit, is a may-raise callee. Off by
    # default: on torch7's lib/TH it adds 370 findings, nearly all raises the caller's arguments
    # cannot trigger (select of an index in range, copy of a clone); see docs/realworld.md.
    may_raise_summaries: bool = False
    # Check (and report in) the functions defined in system headers too (`--system-headers`, as
    # clang-tidy's flag): off, they are neither analysed nor reported, only called.
    system_headers: bool = False
    # Exact callee names with a record of their own (the glib preset's table generated from
    # GObject-Introspection data, a project's .gir files): name -> (its role, or None for a call
    # that borrows, and the argument positions it keeps). They win over every pattern above.
    named: dict[str, tuple[str | None, tuple[int, ...]]] = field(default_factory=dict)
    # The functions of the unit being checked that may raise (`frontend.raises`), set per unit by
    # the engine in errors="unwind" mode. Derived from the unit's text, so not in the fingerprint.
    unit_may_raise: frozenset = frozenset()

    @cached_property
    def _compiled(self) -> dict[str, re.Pattern]:
        def join(patterns: list[str]) -> re.Pattern:
            return re.compile("|".join(f"(?:{p})" for p in patterns) or r"(?!)")

        return {name: join(getattr(self, name)) for name in (
            "acquire", "reallocate", "may_fail", "retain", "release", "consume", "error", "exit", "pure",
            "context", "primitive", "may_raise", "steal")}

    @cached_property
    def _conditional(self) -> list[tuple[re.Pattern, int]]:
        return [(re.compile(p), i) for p, i in self.conditional_error.items()]

    @cached_property
    def _tables(self) -> dict[str, list[tuple[re.Pattern, object]]]:
        return {name: [(re.compile(p), v) for p, v in getattr(self, name).items()]
                for name in ("sinks", "error_if_nonzero", "may_return_argument", "same_size", "same_size_test")}

    def _lookup(self, table: str, name: str):
        if name:
            for pattern, value in self._tables[table]:
                if pattern.search(name):
                    return value
        return None

    def matches(self, kind: str, name: str) -> bool:
        if not name:
            return False
        if kind in NAMED_ROLES:
            entry = self.named.get(name)
            if entry is not None:
                return entry[0] == kind
        return self._compiled[kind].search(name) is not None

    def condition_argument(self, name: str) -> int | None:
        for pattern, index in self._conditional:
            if pattern.search(name):
                return index
        return None

    def error_condition(self, name: str) -> ErrorCondition | None:
        """Where a conditional error call's condition is, and on which truth value it raises."""
        index = self.condition_argument(name)
        if index is not None:
            return ErrorCondition(index, raises_when=False)
        index = self._lookup("error_if_nonzero", name)
        return ErrorCondition(index, raises_when=True) if index is not None else None

    def sink_arguments(self, name: str, nargs: int) -> frozenset[int]:
        """The argument positions (0-based, resolved against nargs) a call keeps the reference of."""
        entry = self.named.get(name)
        table = entry[1] if entry is not None and entry[1] else self._lookup("sinks", name) or ()
        return frozenset(_resolve(i, nargs) for i in table if _resolve(i, nargs) is not None)

    def returns_argument(self, name: str) -> bool:
        """A call returning its first argument itself, ownership unchanged (Returns.ARGUMENT:
        g_string_append), so `s = g_string_append(s, x)` keeps s's object."""
        entry = self.named.get(name)
        return entry is not None and entry[0] == "argument"

    def returned_argument(self, name: str, nargs: int) -> int | None:
        """The argument an acquirer may hand back (+1) instead of a fresh object, or None: fresh."""
        index = self._lookup("may_return_argument", name)
        return _resolve(index, nargs) if index is not None else None

    def acquires_fresh(self, callee: str) -> bool:
        """An acquirer whose result is never an object that existed before the call: not one
        that may return its argument (newContiguous), nor a reallocation (realloc may return
        the block it was given)."""
        return (callee == "new" or self.matches("acquire", callee)) and not self.matches("reallocate", callee) \
            and self._lookup("may_return_argument", callee) is None

    def same_size_arguments(self, name: str, nargs: int, test: bool = False) -> tuple[int, int] | None:
        """For a size-establishing call (or, with test=True, a same-size test) the two argument
        positions whose element counts it makes (or finds) equal."""
        pair = self._lookup("same_size_test" if test else "same_size", name)
        if pair is None:
            return None
        a, b = (_resolve(i, nargs) for i in pair)
        return (a, b) if a is not None and b is not None and a != b else None

    def may_raise_call(self, name: str) -> bool:
        """A call that may raise an error and return to nobody (errors="unwind": an exit)."""
        return bool(name) and (name in self.unit_may_raise or self.matches("may_raise", name))

    def is_primitive(self, function: str) -> bool:
        """The function being checked implements a primitive: its parameters are not tracked."""
        return any(self.matches(k, function) for k in ("release", "consume", "retain", "primitive"))

    def returns_owned(self, function: str) -> bool:
        """The function being checked may return an owned reference (RC004 does not apply)."""
        return any(self.matches(k, function) for k in ("acquire", "reallocate", "primitive"))

    def classify(self, name: str) -> str | None:
        """The role of a callee, most specific first; None for a call that just borrows."""
        for kind in ("release", "consume", "retain", "reallocate", "error", "exit", "acquire"):
            if self.matches(kind, name):
                return kind
        return None

    def fingerprint(self) -> str:
        """Stable text for cache keys."""
        return repr((self.acquire, self.reallocate, self.may_fail, self.retain, self.release, self.consume,
                     self.error, self.exit, sorted(self.conditional_error.items()), self.pure, self.context,
                     self.errors, self.primitive, sorted(self.sinks.items()),
                     sorted(self.error_if_nonzero.items()), sorted(self.may_return_argument.items()),
                     sorted(self.same_size.items()), sorted(self.same_size_test.items()), self.may_raise,
                     self.may_raise_summaries, self.steal, self.system_headers,
                     hashlib.blake2b(repr(sorted(self.named.items())).encode(), digest_size=16).hexdigest()))


# The roles an exact-name record decides (the other pattern lists, pure or primitive, still apply).
NAMED_ROLES = frozenset({"acquire", "reallocate", "retain", "release", "consume", "error", "exit"})


@dataclass(frozen=True)
class ErrorCondition:
    """A call that raises when argument `index` has truth value `raises_when`, else returns."""

    index: int
    raises_when: bool


def _resolve(index: int, nargs: int) -> int | None:
    """A table index (negative counts from the end) as a 0-based position, None if out of range."""
    i = index + nargs if index < 0 else index
    return i if 0 <= i < nargs else None
