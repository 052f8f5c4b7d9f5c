"""A process that starts fast: `refcheck check` on one small unit (a 50-line TH-style file written
here) against a bare `python -c pass` and against libclang's parse of the same unit, rounds
interleaved so that load hits them alike. Writes benchmarks/results/startup.json, prints medians.

    python benchmarks/startup.py                       # this checkout
    python benchmarks/startup.py --code DIR --label before   # another checkout's refcheck/ (PYTHONPATH)

The target (issue 30): refcheck's wall time at most 0.25 s above the unit's parse.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from proc import run  # noqa: E402

# 50 lines of TH-style code with one leak, so that the run reports (the reporter is imported).
SMALL = """#include <stdlib.h>
#include <string.h>

typedef struct THTensor { int refcount; float *data; long size; } THTensor;

THTensor *THTensor_newWithSize1d(long n);
void THTensor_free(THTensor *t);
void THTensor_retain(THTensor *t);
void THError(const char *fmt, ...);

static float sum_of(THTensor *t)
{
  float s = 0;
  long i;
  for (i = 0; i < t->size; i++)
    s += t->data[i];
  return s;
}

float THTensor_sumCopy(THTensor *src)
{
  THTensor *tmp = THTensor_newWithSize1d(src->size);
  float s;
  if (src->size == 0)
    return 0; /* leaks tmp */
  memcpy(tmp->data, src->data, sizeof(float) * src->size);
  s = sum_of(tmp);
  THTensor_free(tmp);
  return s;
}

THTensor *THTensor_newClone(THTensor *src)
{
  THTensor *r = THTensor_newWithSize1d(src->size);
  if (!r)
    THError("out of memory");
  memcpy(r->data, src->data, sizeof(float) * src->size);
  return r;
}

void THTensor_keep(THTensor *t, THTensor **slot)
{
  THTensor_retain(t);
  if (*slot)
    THTensor_free(*slot);
  *slot = t;
}
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--code", default=REPO, help="a checkout whose refcheck/ is run (default: this one)")
    ap.add_argument("--label", default="this checkout")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "startup.json"))
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="refcheck-startup-")
    with open(os.path.join(work, "small.c"), "w") as f:
        f.write(SMALL)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(args.code))
    py = sys.executable
    check = [py, "-m", "refcheck", "check", "small.c", "-j", "1", "--no-cache"]
    floor = [py, os.path.join(HERE, "floor.py"), work, "small.c"]
    rows: dict[str, list[float]] = {"python -c pass": [], "refcheck check": [], "floor process": [], "parse": []}
    # CPU (user + system, the workers included): on a shared machine the walls vary with the load,
    # the CPU much less.
    cpu: dict[str, list[float]] = {"python -c pass": [], "refcheck check": [], "floor process": []}
    peaks: list[float] = []  # refcheck's largest process (the worker), MB
    for _ in range(args.rounds):
        p = run([py, "-c", "pass"], cwd=work, env=env)
        rows["python -c pass"].append(p.seconds)
        cpu["python -c pass"].append(p.cpu_seconds)
        r = run(check, cwd=work, env=env)
        if r.returncode != 1 or "RC001" not in r.stdout:
            raise SystemExit(f"refcheck did not report the leak (rc {r.returncode}): {r.stdout}{r.stderr[-2000:]}")
        rows["refcheck check"].append(r.seconds)
        cpu["refcheck check"].append(r.cpu_seconds)
        peaks.append(r.peak_rss_mb)
        f = run(floor, cwd=work, env=env)
        rows["floor process"].append(f.seconds)
        cpu["floor process"].append(f.cpu_seconds)
        rows["parse"].append(json.loads(f.stdout)["parse_seconds"])
    med = {k: statistics.median(v) for k, v in rows.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    commit = subprocess.run(["git", "-C", args.code, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    # With PYTHONDONTWRITEBYTECODE set (as on the shared machine) every module of a checkout is
    # compiled from source at every start, about 80 ms of refcheck's own; an installed package
    # has its bytecode.
    bytecode = "not written (PYTHONDONTWRITEBYTECODE)" if env.get("PYTHONDONTWRITEBYTECODE") else "cached"
    result = {"label": args.label, "commit": commit, "rounds": args.rounds, "load": os.getloadavg(),
              "bytecode": bytecode,
              "machine": platform.platform(), "runs": rows, "medians": med,
              "cpu_runs": cpu, "cpu_medians": med_cpu,
              "cpu_above_floor": med_cpu["refcheck check"] - med_cpu["floor process"], "peak_rss_mb": statistics.median(peaks),
              "above_parse": med["refcheck check"] - med["parse"],
              "above_python": med["refcheck check"] - med["python -c pass"]}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(f"{args.label} ({commit}), median of {args.rounds}, load {os.getloadavg()[0]:.2f}, bytecode {bytecode}:")
    for k, v in med.items():
        print(f"  {k:16s} {v * 1000:7.1f} ms")
    print(f"  refcheck above its parse {result['above_parse'] * 1000:.1f} ms (target <= 250 ms), "
          f"above python -c pass {result['above_python'] * 1000:.1f} ms; peak {result['peak_rss_mb']:.0f} MB")
    print("  CPU (user + system, workers included): " + ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in med_cpu.items())
          + f"; refcheck above the floor process {result['cpu_above_floor'] * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
