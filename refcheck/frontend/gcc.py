"""Compile database arguments written for gcc, adapted to what libclang can honour.

A CMake project configured with gcc records gcc's view of the machine: `-fopenmp` (clang parses
it, but the clang-tidy wheel's resource directory has no omp.h), macros set by configure probes
that gcc passed and clang's headers contradict (`USE_C11_ATOMICS`: gcc's <stdatomic.h> accepts
atomic operations on plain `volatile int *`, clang's rejects them), and options clang does not
know at all. Each change is made with a note, so a user's first run works without hand-written
flags and still says what it did. Pure functions: no libclang (the parent calls this).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True)
class ProbeMacro:
    """A macro a gcc configure probe defines whose clang counterpart differs."""

    macro: str
    replacement: tuple[str, ...]
    why: str


# Known gcc-probe macros and their clang fix; applied to compile database arguments only (a
# macro the user gave on the command line is the user's choice).
PROBE_MACROS = (
    ProbeMacro("USE_C11_ATOMICS", ("-UUSE_C11_ATOMICS", "-DUSE_GCC_ATOMICS=1"),
               "a gcc probe found C11 atomics, but clang rejects atomic operations on plain "
               "volatile pointers (torch7's THAtomic.c); gcc's __sync builtins parse alike"),
)

# gcc options that clang rejects as "unknown argument" (an error on every unit). Options clang
# accepts and ignores (-fno-tree-vectorize, -mno-red-zone) are left alone; any other unknown
# one is dropped by the frontend on the first parse that reports it (frontend/unit.py).
GCC_ONLY = ("-fopt-info", "-fno-var-tracking-assignments", "-fvar-tracking-assignments",
            "-fconserve-stack", "-mno-avx256-split-unaligned-load",
            "-mno-avx256-split-unaligned-store", "-mavx256-split-unaligned-load",
            "-mavx256-split-unaligned-store", "-fno-keep-inline-dllexport", "-fno-ipa-",
            "-fipa-", "-fno-tree-loop-distribute-patterns", "-fmax-errors", "-fdiagnostics-color",
            "-fno-allow-store-data-races", "-fallow-store-data-races", "-fno-gnu-unique",
            "-fno-printf-return-value", "-fsched-", "-fno-sched-", "-fgcse", "-fno-gcse")

OPENMP_NOTE = ("-fopenmp: clang's builtin headers have no omp.h; refcheck's minimal omp.h "
               "(declarations of the omp_* functions) stands in, #pragma omp parses as usual")


@dataclass(frozen=True)
class Adapted:
    """Arguments after adaptation, and one note per change made."""

    args: tuple[str, ...]
    notes: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def omp_dir() -> str:
    """The directory holding refcheck's stand-in omp.h."""
    return str(resources.files("refcheck.data").joinpath("omp"))


def _openmp(args: list[str]) -> bool:
    return any(a == "-fopenmp" or a.startswith("-fopenmp=") for a in args)


def adapt(args: list[str] | tuple[str, ...], builtin_include: str | None,
          from_database: bool = True) -> Adapted:
    """`builtin_include`: clang's builtin header directory (resource dir's include/), None when
    unknown (then omp.h is assumed missing: the stand-in goes after every other directory)."""
    out: list[str] = []
    notes: list[str] = []
    macros = {p.macro: p for p in PROBE_MACROS} if from_database else {}
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a.startswith(GCC_ONLY):
            notes.append(f"{a}: a gcc-only option clang does not know; dropped")
            continue
        name, value = _macro(a, args, i)
        if name is not None and a.startswith("-D") and name in macros:
            probe = macros[name]
            i += value
            out += probe.replacement
            notes.append(f"-D{name}: {probe.why}; using {' '.join(probe.replacement)} instead")
            continue
        out.append(a)
    if _openmp(out) and not (builtin_include and os.path.isfile(os.path.join(builtin_include, "omp.h"))):
        out += ["-idirafter", omp_dir()]
        notes.append(OPENMP_NOTE)
    return Adapted(tuple(out), tuple(notes))


def _macro(a: str, args, i: int) -> tuple[str | None, int]:
    """The macro name of a -D/-U option and how many more tokens it spans (-D X: one)."""
    if a in ("-D", "-U"):
        if i < len(args):
            return args[i].split("=", 1)[0], 1
        return None, 0
    if a.startswith(("-D", "-U")):
        return a[2:].split("=", 1)[0], 0
    return None, 0


def unknown_arguments(messages: list[str]) -> list[str]:
    """The options named by clang's "unknown argument: 'X'" diagnostics."""
    prefix = "unknown argument: '"
    return [m[len(prefix):-1] for m in messages if m.startswith(prefix) and m.endswith("'")]
