"""Second-run speed: `refcheck check runtime/` on an unchanged tree must take well under 0.5 s.

    python benchmarks/cli_warm_run.py [PATH ...]   (default: runtime)

Runs refcheck once cold (fresh cache directory) and then warm several times, as separate
processes so interpreter start-up counts, and prints the timings. Exits 1 if the best warm run
misses the target.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time

TARGET_SECONDS = 0.5
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(args: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, the process and its workers).

    CPU time is reported too because on a shared machine the wall clock mostly measures the
    neighbours.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "refcheck", "check", "-q", *args], cwd=REPO,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1, 2) or "refcheck: error:" in p.stderr:
        sys.exit(f"refcheck failed ({p.returncode}): {p.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    paths = sys.argv[1:] or ["runtime"]
    with tempfile.TemporaryDirectory() as cache:
        args = ["--cache-dir", cache, *paths]
        cold, cold_cpu = timed(args)
        warm = sorted(timed(args) for _ in range(5))
    print(f"cold: {cold:.3f} s wall, {cold_cpu:.3f} s CPU")
    best, median = warm[0], warm[2]
    print(f"warm: best {best[0]:.3f} s wall ({best[1]:.3f} s CPU), median {median[0]:.3f} s wall "
          f"(target < {TARGET_SECONDS} s)")
    sys.exit(0 if best[0] < TARGET_SECONDS else 1)


if __name__ == "__main__":
    main()
