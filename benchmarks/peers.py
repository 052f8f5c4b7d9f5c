"""Other checkers on the same corpus, where installed (Debian: apt-get install -y cppcheck
clang-16): cppcheck with a library .cfg declaring the corpus's acquire and release functions,
and clang's static analyzer (unix.Malloc) reading ownership attributes. A peer that is not
installed is skipped and reported as such; nothing is installed here."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from xml.sax.saxutils import escape

from corpus import NEW_FUNCS, TYPES
from proc import run, which

BORROWING = ("retain", "isContiguous", "nDimension", "nElement", "size", "data", "resizeAs", "copy")
CLANG_NAMES = ("clang-16", "clang-17", "clang-18", "clang-15", "clang")
_CPPCHECK_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<id>[\w]+):", re.M)
_CLANG_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):\d+: warning: .*\[(?P<checker>[\w.]+)\]$", re.M)


@dataclass
class PeerRun:
    tool: str
    version: str
    seconds: float
    locations: list[tuple[str, int]]  # one per finding
    failed_units: int = 0


def library_cfg() -> str:
    """A cppcheck library: every acquiring function allocates, free and freeCopyTo deallocate.

    retain cannot be said in a .cfg (it has no reference counts), so it is declared as a
    function that neither leaks nor allocates; THError and THArgError never return."""
    allocs, frees = [], []
    for name, _, _ in TYPES:
        allocs += [f"TH{name}Tensor_{f}" for f in NEW_FUNCS]
        frees += [f"TH{name}Tensor_free", f"TH{name}Tensor_freeCopyTo"]
    lines = ['<?xml version="1.0"?>', '<def format="2">', "  <memory>"]
    lines += [f"    <alloc init=\"true\">{escape(a)}</alloc>" for a in allocs]
    lines += [f"    <dealloc>{escape(d)}</dealloc>" for d in frees]
    lines += ["  </memory>", "  <memory>", '    <alloc init="false">THAlloc</alloc>',
              "    <dealloc>THFree</dealloc>", "  </memory>"]
    # Borrowing calls: passing a pointer to them does not hand it over (cppcheck's default
    # assumption for an unknown function would hide every leak after such a call).
    for name, _, _ in TYPES:
        for f in BORROWING:
            lines += [f'  <function name="TH{name}Tensor_{f}"><leak-ignore/><noreturn>false</noreturn></function>']
    for name in ("_THError", "THArgError"):
        lines += [f'  <function name="{name}"><noreturn>true</noreturn></function>']
    lines.append("</def>")
    return "\n".join(lines) + "\n"


def cppcheck(corpus: str, units: list[str]) -> PeerRun | str:
    exe = which("cppcheck")
    if exe is None:
        return "cppcheck not installed (apt-get install -y cppcheck): skipped"
    cfg = os.path.join(corpus, "thb.cfg")
    with open(cfg, "w", encoding="utf-8") as f:
        f.write(library_cfg())
    version = run([exe, "--version"], cwd=corpus).stdout.strip()
    r = run([exe, "--library=thb.cfg", "-Iinclude", "-I.", "--std=c11", "-D__GNUC__", "--quiet",
             "--enable=warning", "--inline-suppr", "-j1",
             "--template={file}:{line}:{id}:{message}", *units], cwd=corpus)
    locations = [(m["file"], int(m["line"])) for m in _CPPCHECK_LINE.finditer(r.stderr)
                 if m["id"] in ("memleak", "resourceLeak", "leakReturnValNotUsed", "memleakOnRealloc",
                                "leakNoVarFunctionCall", "doubleFree", "deallocuse", "deallocret")]
    return PeerRun("cppcheck", version, r.seconds, locations, 1 if r.returncode else 0)


def clang_analyze(corpus: str, units: list[str]) -> PeerRun | str:
    exe = next((p for p in map(which, CLANG_NAMES) if p), None)
    if exe is None:
        return "clang not installed (apt-get install -y clang-16): skipped"
    version = run([exe, "--version"], cwd=corpus).stdout.splitlines()[0]
    seconds, locations, failed = 0.0, [], 0
    # Optimistic mode makes unix.Malloc honour ownership_returns/ownership_takes; without
    # analyze-headers the analyzer skips every function outside the main file, which in TH is
    # all of them (they live in generic/*.c, included through THGenerateAllTypes.h).
    base = [exe, "--analyze", "-DTHB_OWNERSHIP", "-Iinclude", "-I.", "-std=gnu11",
            "-Xclang", "-analyzer-opt-analyze-headers",
            "-Xclang", "-analyzer-config", "-Xclang", "unix.DynamicMemoryModeling:Optimistic=true",
            "-Xclang", "-analyzer-checker=unix.Malloc", "--analyzer-output", "text",
            "-o", os.devnull]
    for unit in units:
        r = run(base + [unit], cwd=corpus)
        seconds += r.seconds
        failed += r.returncode != 0
        locations += [(m["file"], int(m["line"])) for m in _CLANG_LINE.finditer(r.stderr)
                      if m["checker"].startswith("unix.")]
    return PeerRun("clang --analyze", version, seconds, locations, failed)
