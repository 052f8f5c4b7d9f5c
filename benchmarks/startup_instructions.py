"""Instructions of one small unit's check, every process of the run summed (the parent, its workers):
`benchmarks/startup.py`'s 50-line unit under valgrind's cachegrind, `PYTHONHASHSEED=0`. A count
that the load on a shared machine does not move, where walls and CPU times do.

    python benchmarks/startup_instructions.py                                  # this checkout
    python benchmarks/startup_instructions.py --code /tmp/base --label base    # another checkout
    python benchmarks/startup_instructions.py --env REFCHECK_PRESTART=0        # the first worker forked late

Each run takes ~30 s (valgrind). Prints the total and each process's count, largest first.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from startup import SMALL  # noqa: E402


def count(code: str, env_extra: dict, work: str) -> list[int]:
    """Instructions per process of one `refcheck check small.c -j1 --no-cache`."""
    out = os.path.join(work, "cg")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(code), PYTHONHASHSEED="0", **env_extra)
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--trace-children=yes",
           f"--cachegrind-out-file={out}/cg.%p", sys.executable, "-m", "refcheck", "check", "small.c", "-j", "1",
           "--no-cache"]
    r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    if r.returncode != 1 or "RC001" not in r.stdout:
        raise SystemExit(f"refcheck did not report the leak (rc {r.returncode}): {r.stdout}{r.stderr[-2000:]}")
    counts = []
    for path in glob.glob(os.path.join(out, "cg.*")):
        with open(path) as f:
            counts += [int(line.split()[1]) for line in f if line.startswith("summary:")]
    return sorted(counts, reverse=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--code", default=REPO, help="a checkout whose refcheck/ is run (default: this one)")
    ap.add_argument("--label", default="this checkout")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the run (repeatable)")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        print("valgrind not found", file=sys.stderr)
        return 2
    env_extra = dict(e.split("=", 1) for e in args.env)
    work = tempfile.mkdtemp(prefix="refcheck-startup-ir-")
    with open(os.path.join(work, "small.c"), "w") as f:
        f.write(SMALL)
    for _ in range(args.rounds):
        counts = count(args.code, env_extra, work)
        print(f"{args.label}: {sum(counts):,} instructions in {len(counts)} processes "
              f"({', '.join(f'{c:,}' for c in counts)})")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
