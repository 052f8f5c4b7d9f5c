"""A stand-in for `refcheck.driver.engine.check_unit` whose behavior each test controls from the source.

The real engine is used wherever a test is about what refcheck finds; this one is for what the
runner must survive (a crashing or hanging unit, Ctrl-C) and for counting how often units are
analyzed. Markers, one per line:
  LEAK            an RC001 finding on this line
  LEAK_IF_<NAME>  the same, only when -D<NAME> is among the unit's clang arguments
  LEAK_IF_ARG[x]  the same, only when x is one of the unit's clang arguments
  CRASH           the worker dies of SIGSEGV, as when libclang crashes
  HANG            the worker sleeps for an hour
  SLOW            the unit takes half a second
  #include "x.h"  x.h is reported as read (for cache invalidation)
Every call appends the unit's path to $REFCHECK_FAKE_LOG when that is set.
"""

from __future__ import annotations

import os
import re
import signal
import time

from refcheck.findings import Finding, Location, Step, UnitResult


def check_unit(path: str, settings) -> UnitResult:
    log = os.environ.get("REFCHECK_FAKE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(path + "\n")
    rel = os.path.relpath(path, settings.root).replace(os.sep, "/")
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8", errors="replace").splitlines()
    result = UnitResult(file=rel, includes=[path], functions=1,
                        timings={"parse": 0.001, "cfg": 0.001, "analysis": 0.001})
    for number, text in enumerate(lines, start=1):
        include = re.search(r'#include "([^"]+)"', text)
        if include:
            result.includes.append(os.path.join(os.path.dirname(path), include.group(1)))
        if "CRASH" in text:
            os.kill(os.getpid(), signal.SIGSEGV)
        if "HANG" in text:
            time.sleep(3600)
        if "SLOW" in text:
            time.sleep(0.5)
        wanted_arg = re.search(r"LEAK_IF_ARG\[([^\]]*)\]", text)
        if wanted_arg and wanted_arg.group(1) not in settings.clang_args:
            continue
        conditional = re.search(r"LEAK_IF_(?!ARG\[)(\w+)", text)
        if conditional and f"-D{conditional.group(1)}" not in settings.clang_args:
            continue
        if "LEAK" in text:
            loc = Location(rel, number, text.index("LEAK") + 1)
            result.findings.append(Finding(
                rule="RC001", name="leak", location=loc, function="f",
                message="`t` acquired by THFloatTensor_new() is not released on this path",
                path=[Step(loc, "acquired here")], origin=loc))
    return result


def install() -> None:
    from refcheck.driver import engine
    engine.check_unit = check_unit
