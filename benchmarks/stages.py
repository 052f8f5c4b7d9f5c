"""One unit's CPU by stage, each stage's own functions timed on the thread's clock, unprofiled: the
parse, the unit's fixed work, the instance keys (the reuse plan), the relevance filter, the graph
builds, the analyses, and the rest (the per-definition bookkeeping, the class keys, the emits).

    python benchmarks/stages.py PRESET FILE [--errors abort|unwind] [--top 10] -- CLANG_ARGS...
    cd /tmp/torch7 && python /path/to/benchmarks/stages.py th lib/TH/THTensor.c --errors unwind \\
        -- -std=gnu99 -Ilib/TH ...

The engine's own `--statistics` splits a unit into parse, cfg and analysis by wall clock, with the
instance keys inside "analysis"; on a shared machine a wall split moves with the load, where the
thread's CPU clock does not (much). Prints the findings' count and digest (two checkouts that
check alike print the same), each stage's CPU, share and calls, and the slowest builds and
analyses by function (the analyses with their node count and whether the first pass proved them).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import sys
import threading
import time
from dataclasses import replace


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("preset")
    ap.add_argument("file")
    ap.add_argument("--errors", choices=("abort", "unwind"), default=None, help="the preset's own when absent")
    ap.add_argument("--top", type=int, default=8, help="the slowest builds and analyses shown")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    args.clang_args = argv[cut + 1:]

    from refcheck.conventions.presets import PRESETS
    if args.preset not in PRESETS:
        print(f"stages.py: no preset {args.preset!r} (one of {', '.join(sorted(PRESETS))})", file=sys.stderr)
        return 2
    import refcheck.analysis as analysis
    from refcheck.driver import engine
    from refcheck.driver.engine import Settings
    from refcheck.frontend import builder

    seconds: collections.Counter = collections.Counter()
    calls: collections.Counter = collections.Counter()
    rows: dict[str, list] = {"builds": [], "analyses": []}

    def timed(module, attr: str, stage: str, row=None) -> None:
        real = getattr(module, attr)

        def run(*a, **k):
            began = time.thread_time()
            out = real(*a, **k)
            spent = time.thread_time() - began
            seconds[stage] += spent
            calls[stage] += 1
            if row is not None:
                rows[stage].append((spent, *row(a, out)))
            return out

        setattr(module, attr, run)

    # None of these calls another of them: the stages do not overlap.
    timed(engine, "_parse", "parse")
    timed(engine, "_prepare", "the unit's fixed work")
    timed(engine, "_plan", "instance keys (plan)")
    timed(builder, "can_find_anything", "relevance")
    timed(builder, "_built", "builds", lambda a, g: (len(g.graph), g.name))
    timed(analysis, "analyze", "analyses", lambda a, r: (len(a[0].graph), a[0].name, "proved" if r.proved else ""))
    conv = PRESETS[args.preset].conventions
    if args.errors:
        conv = replace(conv, errors=args.errors)
    settings = Settings(conventions=conv, clang_args=args.clang_args, root=".", function_seconds=6000)
    sys.setrecursionlimit(20000)
    threading.stack_size(512 * 1024 * 1024)  # the worker's stack (deep bodies)
    box: list = []

    def check() -> None:
        began = time.thread_time()
        box.append(engine._check(args.file, settings))
        box.append(time.thread_time() - began)

    worker = threading.Thread(target=check)
    worker.start()
    worker.join()
    if len(box) != 2:
        print("stages.py: the check raised (above)", file=sys.stderr)
        return 1
    result, total = box
    total = max(total, 1e-9)
    digest = hashlib.sha256(repr(sorted(map(repr, result.findings))).encode()).hexdigest()[:16]
    print(f"{args.file} errors={conv.errors}: {len(result.findings)} findings {digest}, "
          f"{len(result.errors)} tool errors; thread CPU {total:.2f} s")
    for e in result.errors[:3]:
        print(f"  tool error: {e.message}")
    if result.errors and not result.functions:
        return 1  # nothing was checked (no such file, a failed parse): no split to read
    for stage, spent in seconds.most_common():
        print(f"  {stage:24s} {spent:6.2f} s {100 * spent / total:5.1f}%  ({calls[stage]} calls)")
    rest = total - sum(seconds.values())
    print(f"  {'rest':24s} {rest:6.2f} s {100 * rest / total:5.1f}%")
    for stage, got in rows.items():
        got.sort(reverse=True)
        print(f"slowest {stage} (of {len(got)}):")
        for spent, nodes, name, *more in got[:args.top]:
            print(f"  {spent * 1000:7.1f} ms {nodes:5d} nodes {name} {' '.join(more)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
