"""Which calls acquire, retain, release and consume references, and which never return.

The analysis only ever asks a `Conventions` object; the TH preset below is the default, and
`refcheck.config` builds other instances from `[tool.refcheck]` tables and presets.
"""

from __future__ import annotations

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

    @cached_property
    def _compiled(self) -> dict[str, re.Pattern]:
        def join(patterns: list[str]) -> re.Pattern:
            return re.compile("|".join(f"(?:{p})" for p in patterns) or r"(?!)")

        return {name: join(getattr(self, name)) for name in (
            "acquire", "reallocate", "may_fail", "retain", "release", "consume", "error", "exit", "pure",
            "context")}

    @cached_property
    def _conditional(self) -> list[tuple[re.Pattern, int]]:
        return [(re.compile(p), i) for p, i in self.conditional_error.items()]

    def matches(self, kind: str, name: str) -> bool:
        return bool(name) and self._compiled[kind].search(name) is not None

    def condition_argument(self, name: str) -> int | None:
        for pattern, index in self._conditional:
            if pattern.search(name):
                return index
        return None

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
                     self.errors))
