"""-j scaling on torch7's lib/TH (15 units; THTensor.c is ~90% of the work): `refcheck check
lib/TH/*.c --no-cache -jN` for each N and --errors mode, with function-level sharding
(refcheck/driver/shards.py) and, with --unsharded, without it (REFCHECK_SHARDS=0). Writes
benchmarks/results/jscaling.json and prints a table.

    python benchmarks/jscaling.py --path /tmp/torch7            # -j1 and -j2, both modes
    python benchmarks/jscaling.py --path DIR --jobs 1 2 4 --unsharded

Wall times on a shared machine are noisy, so each run records the load average around it and
the makespan its schedule implies: every job's CPU seconds in its worker (REFCHECK_JOB_LOG),
summed per worker, the largest sum against the -j1 run's total. The log also says when each job
started and ended (a forked shard: when its slot was granted), so each run records every worker's
idle time between the run's first start and last end (`idle`): the waits the schedule makes, which
the makespan does not show. Each -jN run's findings digest must equal the -j1 one's (the table
flags a difference).
"""

from __future__ import annotations

import argparse
import collections
import glob
import hashlib
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from proc import run  # noqa: E402
from torch7 import FLAGS, commit, extracted, find_snapshot  # noqa: E402


def digest(findings: list) -> str:
    """As /work/wt/digest.py: the findings' rule, place, message, path and instantiations."""
    fs = sorted((f["rule"], f["file"], f["line"], f["column"], f["message"],
                 tuple((s["line"], s["message"]) for s in f["path"]), tuple(f["instantiations"])) for f in findings)
    return hashlib.sha256(repr(fs).encode()).hexdigest()[:16]


def one(corpus: str, mode: str, jobs: int, sharded: bool) -> dict:
    units = sorted(os.path.relpath(p, corpus) for p in glob.glob(os.path.join(corpus, "lib", "TH", "*.c")))
    with tempfile.TemporaryDirectory() as tmp:
        log, report = os.path.join(tmp, "jobs.jsonl"), os.path.join(tmp, "report.json")
        env = dict(os.environ, REFCHECK_JOB_LOG=log, REFCHECK_SHARDS="1" if sharded else "0")
        argv = [sys.executable, "-m", "refcheck", "check", *units, "-j", str(jobs), "--no-cache", "-q",
                "--errors", mode, "--format", "json", "-o", report, *(f"--clang-arg={f}" for f in FLAGS)]
        before = os.getloadavg()
        r = run(argv, cwd=corpus, env=env)
        after = os.getloadavg()
        try:
            with open(report, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError):
            raise SystemExit(f"refcheck failed (exit {r.returncode}): {r.stderr[-2000:]}") from None
        with open(log, encoding="utf-8") as f:
            entries = [json.loads(line) for line in f]
    per_worker = collections.Counter()
    busy = collections.Counter()
    for e in entries:
        per_worker[e["worker"]] += e["cpu"]
        waited = e.get("waited") or (0.0, 0.0)  # an early lead waiting for the units ahead of it
        busy[e["worker"]] += e["end"] - e["start"] - (waited[1] - waited[0])
    first = min(e["start"] for e in entries)
    span = max(e["end"] for e in entries) - first
    return {"mode": mode, "jobs": jobs, "sharded": sharded, "exit": r.returncode, "wall": round(r.seconds, 2),
            "load_before": [round(x, 2) for x in before], "load_after": [round(x, 2) for x in after],
            "cpu_total": round(sum(per_worker.values()), 2), "makespan": round(max(per_worker.values()), 2),
            "workers": sorted(round(v, 2) for v in per_worker.values()),
            "span": round(span, 2), "idle": sorted(round(span - v, 2) for v in busy.values()),
            "jobs_run": [e for e in entries if e["shard"] is not None],
            # Every job, its times from the run's first start: the schedule, waits included.
            "trace": [dict(e, start=round(e["start"] - first, 3), end=round(e["end"] - first, 3),
                           waited=[round(t - first, 3) for t in e.get("waited") or ()]) for e in entries],
            "findings": len(doc["findings"]), "errors": len(doc["errors"]), "digest": digest(doc["findings"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", help="a directory holding lib/TH (default: the snapshot in ../shared/corpora)")
    ap.add_argument("--modes", nargs="+", default=["abort", "unwind"])
    ap.add_argument("--jobs", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--unsharded", action="store_true", help="also each -jN > 1 with REFCHECK_SHARDS=0")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "jscaling.json"))
    args = ap.parse_args()
    corpus = args.path
    if corpus is None:
        snapshot = find_snapshot()
        if snapshot is None:
            raise SystemExit("no torch7 snapshot found: pass --path")
        corpus = extracted(snapshot)
    rows = []
    for mode in args.modes:
        base = None
        for jobs in sorted(set(args.jobs)):
            for sharded in ([True, False] if args.unsharded and jobs > 1 else [True]):
                row = one(corpus, mode, jobs, sharded)
                if jobs == 1:
                    base = row
                if base is not None:
                    row["wall_speedup"] = round(base["wall"] / row["wall"], 2)
                    row["makespan_speedup"] = round(base["cpu_total"] / row["makespan"], 2)
                    row["same_findings_as_j1"] = row["digest"] == base["digest"]
                rows.append(row)
                print(f"{mode:6} -j{jobs} {'sharded  ' if sharded else 'unsharded'} wall {row['wall']:6.2f} s "
                      f"(load {row['load_before'][0]:.2f}->{row['load_after'][0]:.2f}) "
                      f"makespan {row['makespan']:6.2f} s of cpu {row['cpu_total']:6.2f} s  "
                      f"x{row.get('makespan_speedup', 1.0)} (wall x{row.get('wall_speedup', 1.0)}) "
                      f"idle {'+'.join(f'{x:.2f}' for x in row['idle'])} s  "
                      f"{row['findings']} findings {row['digest']}"
                      f"{'' if row.get('same_findings_as_j1', True) else '  DIFFERS FROM -j1'}", flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"commit": commit(), "corpus": corpus, "cpus": os.cpu_count(), "rows": rows}, f, indent=2)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
