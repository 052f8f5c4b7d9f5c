"""How often a unit's calls repeat a callee and an argument shape, and what the builds cost: the
measure behind answering a call's questions once per (callee, argument shape) (issue 30).

    python benchmarks/callshapes.py PRESET FILE [--code DIR] -- CLANG_ARGS...
    python benchmarks/callshapes.py cpython src/gmpy2.c -- -Isrc -I$PYINC

The unit is checked in process (`engine._check`, in a thread with the worker's stack), every
`CallLowering.call` counted by its callee's name and by its shape (the callee's name and, per
argument, its stripped cursor kind, its type's spelling and whether it is a NULL constant: what
most of a call's questions read besides the callee), and every `builder._built` timed by the
thread's CPU clock (unprofiled: the builds' CPU moves with the machine's load, so compare two
checkouts as pairs run back to back). Prints the findings' count and digest, the counts, the
calls per callee and per shape (the most a memo keyed by either could save), and the builds' CPU.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import sys
import threading
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("preset")
    ap.add_argument("file")
    ap.add_argument("--top", type=int, default=8)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    args.clang_args = argv[cut + 1:]

    from refcheck.conventions.presets import PRESETS
    from refcheck.driver import engine
    from refcheck.driver.engine import Settings
    from refcheck.frontend import builder, calls, expressions
    from refcheck.frontend.binding import arguments
    from refcheck.frontend.clangutil import kind_of, strip
    from refcheck.frontend.conditions import is_null_constant

    callees: collections.Counter = collections.Counter()
    shapes: collections.Counter = collections.Counter()
    real_call, real_built = calls.CallLowering.call, builder._built
    cpu = [0.0, 0]

    def call(self, c):
        name = self.b.callee_of(c)[1]
        callees[name] += 1
        shapes[(name, tuple((kind_of(strip(a)), a.type.spelling, is_null_constant(a)) for a in arguments(c)))] += 1
        return real_call(self, c)

    def built(b):
        began = time.thread_time()
        try:
            return real_built(b)
        finally:
            cpu[0] += time.thread_time() - began
            cpu[1] += 1

    calls.CallLowering.call, builder._built = call, built
    # The expression lowering's dispatch table holds the function itself, read at import.
    for table in (expressions.EXPR_HANDLERS, expressions.HANDLERS_BY_ID):
        for k, h in list(table.items()):
            if h is real_call:
                table[k] = call
    settings = Settings(conventions=PRESETS[args.preset].conventions, clang_args=args.clang_args, root=".",
                        function_seconds=6000)
    sys.setrecursionlimit(20_000)
    threading.stack_size(engine.STACK_BYTES)
    box: list = []
    t = threading.Thread(target=lambda: box.append(engine._check(args.file, settings)))
    t.start()
    t.join()
    result = box[0]
    digest = hashlib.sha256(repr(sorted(map(repr, result.findings))).encode()).hexdigest()[:16]
    total = sum(callees.values())
    print(f"findings {len(result.findings)} {digest}, errors {len(result.errors)}")
    print(f"calls {total}, callees {len(callees)}, shapes {len(shapes)}: "
          f"{total / max(len(callees), 1):.1f} calls per callee, {total / max(len(shapes), 1):.1f} per shape")
    print("  most called: " + ", ".join(f"{n} {k}" for n, k in callees.most_common(args.top)))
    print(f"builds {cpu[1]} (nested ones counted in their outer build too), {cpu[0]:.2f} s CPU (thread clock)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
