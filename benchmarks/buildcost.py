"""The graph builds (the lowering) of one unit, function by function: each build's CPU against its
node count, to tell a cost that grows with the body (per node, flat) from one that grows faster
(a walk of the function per call or per argument, a record recomputed at each call site).

    python benchmarks/buildcost.py PRESET FILE [--only N] [--top 20] -- CLANG_ARGS...
    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no \\
        python benchmarks/buildcost.py cpython src/gmpy2.c --only 200 -- -Isrc -I$PYINC

The unit is checked in process (`engine._check`, in a thread with the worker's stack) with every
`builder._built` timed; prints the findings' count and digest (two checkouts that lower alike
print the same), the builds' total CPU and the slowest, and the median cost per node for each size
band: a band of larger bodies costing more per node is the sign of a quadratic. `--only N`: the
first N definitions by name (a sample short enough for cachegrind, whose instruction count is the
measure on a loaded machine: the CPU printed moves with the load).
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import threading
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("preset")
    ap.add_argument("file")
    ap.add_argument("--only", type=int, default=0, help="the first N definitions by name (0: all)")
    ap.add_argument("--top", type=int, default=15)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    args.clang_args = argv[cut + 1:]

    from refcheck.conventions.presets import PRESETS
    from refcheck.driver import engine
    from refcheck.driver.engine import Settings
    from refcheck.frontend import builder
    from refcheck.frontend.unit import parse

    only = None
    if args.only > 0:
        parsed = parse(args.file, args.clang_args)
        only = frozenset(sorted({f.spelling for f in parsed.functions})[:args.only])
        del parsed
    rows: list[tuple[float, int, str]] = []
    real = builder._built

    def timed(b):
        name, began = b.fn.spelling, time.process_time()
        g = real(b)
        rows.append((time.process_time() - began, g.graph.number_of_nodes(), name))
        return g

    builder._built = timed
    settings = Settings(conventions=PRESETS[args.preset].conventions, clang_args=args.clang_args, root=".",
                        function_seconds=6000, only_functions=only)
    sys.setrecursionlimit(20_000)
    threading.stack_size(engine.STACK_BYTES)
    box: list = []
    began = time.process_time()
    t = threading.Thread(target=lambda: box.append(engine._check(args.file, settings)))
    t.start()
    t.join()
    result = box[0]
    digest = hashlib.sha256(repr(sorted(map(repr, result.findings))).encode()).hexdigest()[:16]
    print(f"findings {len(result.findings)} {digest}, errors {len(result.errors)}, "
          f"CPU {time.process_time() - began:.2f} s")
    total = sum(r[0] for r in rows)
    print(f"builds {len(rows)}, {sum(r[1] for r in rows)} nodes, {total:.2f} s CPU")
    for seconds, nodes, name in sorted(rows, reverse=True)[:args.top]:
        print(f"  {seconds * 1000:8.1f} ms {nodes:6d} nodes {seconds / max(nodes, 1) * 1e6:7.1f} us/node  {name}")
    bands = ((1, 50), (50, 100), (100, 200), (200, 400), (400, 10 ** 9))
    for lo, hi in bands:
        per = [s / n for s, n, _ in rows if lo <= n < hi]
        if per:
            print(f"  {lo:4d}-{hi if hi < 10 ** 9 else '':<4} nodes: {len(per):5d} builds, "
                  f"median {statistics.median(per) * 1e6:7.1f} us/node")
    return 0


if __name__ == "__main__":
    sys.exit(main())
