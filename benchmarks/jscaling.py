"""-j scaling on torch7's lib/TH (15 units; THTensor.c is ~90% of the work): `refcheck check
lib/TH/*.c --no-cache -jN` for each N and --errors mode, with function-level sharding
(refcheck/driver/shards.py) and, with --unsharded, without it (REFCHECK_SHARDS=0). Writes
benchmarks/results/jscaling.json and prints a table.

    python benchmarks/jscaling.py --path /tmp/torch7            # -j1 and -j2, both modes
    python benchmarks/jscaling.py --path DIR --jobs 1 2 4 --unsharded
    python benchmarks/jscaling.py --path /tmp/torch7 --rounds 4 --base /tmp/msnap8   # against a base

Each run imports the refcheck of the tree the benchmark is in (PYTHONPATH), never an installed
one; `--base DIR` runs another tree's before it in every round, alike.

Wall times on a shared machine are noisy, so each run records the load average around it and
the makespan its schedule implies: every job's CPU seconds in its worker (REFCHECK_JOB_LOG),
summed per worker, the largest sum against the -j1 run's total. The log also says when each job
started and ended (a forked shard: when its slot was granted), so each run records every worker's
idle time between the run's first start and last end (`idle`): the waits the schedule makes, which
the makespan does not show. Each -jN run's findings digest must equal the -j1 one's (the table
flags a difference). The log's pool events and the benchmark's own clock (time.monotonic, one
clock for every process) split the wall time outside the jobs (`phases`: the parent's start
before the pool, the workers' start, the merge after the last job, the workers' end, the
report and exit), with the fixup's span; `peak_rss_mb` is the largest worker's. At the end, a
summary per tree, mode and -jN: every round's speedups, the CPU above -j1's, the mean spans.
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
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from proc import run  # noqa: E402
from torch7 import FLAGS, REPO, commit, extracted, find_snapshot  # noqa: E402


def digest(findings: list) -> str:
    """As /work/wt/digest.py: the findings' rule, place, message, path and instantiations."""
    fs = sorted((f["rule"], f["file"], f["line"], f["column"], f["message"],
                 tuple((s["line"], s["message"]) for s in f["path"]), tuple(f["instantiations"])) for f in findings)
    return hashlib.sha256(repr(fs).encode()).hexdigest()[:16]


def one(corpus: str, mode: str, jobs: int, sharded: bool, tree: str = "") -> dict:
    units = sorted(os.path.relpath(p, corpus) for p in glob.glob(os.path.join(corpus, "lib", "TH", "*.c")))
    with tempfile.TemporaryDirectory() as tmp:
        log, report = os.path.join(tmp, "jobs.jsonl"), os.path.join(tmp, "report.json")
        env = dict(os.environ, REFCHECK_JOB_LOG=log, REFCHECK_SHARDS="1" if sharded else "0")
        if tree:  # the tree's refcheck, not an installed one (the run's cwd is the corpus)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [tree, os.environ.get("PYTHONPATH")]))
        argv = [sys.executable, "-m", "refcheck", "check", *units, "-j", str(jobs), "--no-cache", "-q",
                "--errors", mode, "--format", "json", "-o", report, *(f"--clang-arg={f}" for f in FLAGS)]
        before = os.getloadavg()
        launched = time.monotonic()
        r = run(argv, cwd=corpus, env=env)
        exited = time.monotonic()
        after = os.getloadavg()
        try:
            with open(report, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError):
            raise SystemExit(f"refcheck failed (exit {r.returncode}): {r.stderr[-2000:]}") from None
        with open(log, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f]
    entries = [e for e in lines if "event" not in e]
    events = [(e["event"], e["at"]) for e in lines if "event" in e]
    per_worker = collections.Counter()
    busy = collections.Counter()
    for e in entries:
        per_worker[e["worker"]] += e["cpu"]
        waited = e.get("waited") or (0.0, 0.0)  # an early lead waiting for the units ahead of it
        busy[e["worker"]] += e["end"] - e["start"] - (waited[1] - waited[0])
    first = min(e["start"] for e in entries)
    last = max(e["end"] for e in entries)
    span = last - first
    return {"mode": mode, "jobs": jobs, "sharded": sharded, "exit": r.returncode, "wall": round(r.seconds, 2),
            "load_before": [round(x, 2) for x in before], "load_after": [round(x, 2) for x in after],
            "cpu_total": round(sum(per_worker.values()), 2), "makespan": round(max(per_worker.values()), 2),
            "workers": sorted(round(v, 2) for v in per_worker.values()),
            "span": round(span, 2), "idle": sorted(round(span - v, 2) for v in busy.values()),
            "jobs_run": [e for e in entries if e["shard"] is not None],
            # Every job, its times from the run's first start: the schedule, waits included.
            "trace": [dict(e, start=round(e["start"] - first, 3), end=round(e["end"] - first, 3),
                           waited=[round(t - first, 3) for t in e.get("waited") or ()]) for e in entries],
            "phases": phases(launched, exited, first, last, events, entries),
            "peak_rss_mb": round(r.peak_rss_mb, 1),
            "findings": len(doc["findings"]), "errors": len(doc["errors"]), "digest": digest(doc["findings"])}


def phases(launched: float, exited: float, first: float, last: float, events: list, entries: list) -> dict:
    """Where the wall time went outside the jobs (seconds): `pre` from the launch to the pool's
    start (the parent's imports, the units, the queue), `lead_in` to the first job's start (the
    workers' fork), `span` the jobs', `tail` from the last job's end until the pool's last
    outcome was taken in (the merge), `shutdown` until the workers were gone, `post` until the
    process ended (the report, the interpreter's exit). With the fixup job's own span and its
    gap after the shards (the round trip to the parent), where the run has one, and the span of
    the helper that checked part of its second round in the other worker (0: none ran)."""
    start = min((at for name, at in events if name == "start"), default=first)
    drained = max((at for name, at in events if name == "drained"), default=last)
    end = max((at for name, at in events if name == "end"), default=drained)
    out = {"pre": start - launched, "lead_in": first - start, "span": last - first, "tail": drained - last,
           "shutdown": end - drained, "post": exited - end}
    fixups = [e for e in entries if e["shard"] == "fixup"]
    if fixups:
        shards = [e for e in entries if isinstance(e["shard"], int) and e["unit"] == fixups[0]["unit"]]
        out["fixup"] = fixups[0]["end"] - fixups[0]["start"]
        out["fixup_gap"] = fixups[0]["start"] - max(e["end"] for e in shards)
        # The helper that checked part of its second round in the other worker (fixsplit.py).
        helpers = [e for e in entries if e["shard"] == "fixup-helper" and e["unit"] == fixups[0]["unit"]]
        out["fixup_helper"] = sum(e["end"] - e["start"] for e in helpers)
    return {k: round(v, 3) for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", help="a directory holding lib/TH (default: the snapshot in ../shared/corpora)")
    ap.add_argument("--modes", nargs="+", default=["abort", "unwind"])
    ap.add_argument("--jobs", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--unsharded", action="store_true", help="also each -jN > 1 with REFCHECK_SHARDS=0")
    ap.add_argument("--rounds", type=int, default=1, help="repeat the whole set this many times")
    ap.add_argument("--base", help="a snapshot of another refcheck tree, run before this one in every round "
                                   "(by PYTHONPATH; this tree's runs import this tree)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "jscaling.json"))
    args = ap.parse_args()
    corpus = args.path
    if corpus is None:
        snapshot = find_snapshot()
        if snapshot is None:
            raise SystemExit("no torch7 snapshot found: pass --path")
        corpus = extracted(snapshot)
    trees = ([("base", os.path.abspath(args.base))] if args.base else []) + [("tree", REPO)]
    rows = []
    for number in range(args.rounds):
        for name, tree in trees:
            for mode in args.modes:
                rows.extend(_set(corpus, mode, args, tree, name, number))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"commit": commit(), "base": args.base, "corpus": corpus, "cpus": os.cpu_count(), "rows": rows},
                  f, indent=2)
    _summary(rows)
    print(f"wrote {args.out}")


def _set(corpus: str, mode: str, args, tree: str, name: str, number: int) -> list:
    """Each -jN of one mode, in one tree (imported by PYTHONPATH), rated against its -j1."""
    rows, base = [], None
    for jobs in sorted(set(args.jobs)):
        for sharded in ([True, False] if args.unsharded and jobs > 1 else [True]):
            row = dict(one(corpus, mode, jobs, sharded, tree), tree=name, round=number)
            if jobs == 1:
                base = row
            if base is not None:
                row["wall_speedup"] = round(base["wall"] / row["wall"], 2)
                row["makespan_speedup"] = round(base["cpu_total"] / row["makespan"], 2)
                row["same_findings_as_j1"] = row["digest"] == base["digest"]
            rows.append(row)
            outside = " ".join(f"{k} {v:.2f}" for k, v in row["phases"].items() if k != "span")
            print(f"{name} {mode:6} -j{jobs} {'sharded  ' if sharded else 'unsharded'} wall {row['wall']:6.2f} s "
                  f"(load {row['load_before'][0]:.2f}->{row['load_after'][0]:.2f}) "
                  f"makespan {row['makespan']:6.2f} s of cpu {row['cpu_total']:6.2f} s  "
                  f"x{row.get('makespan_speedup', 1.0)} (wall x{row.get('wall_speedup', 1.0)}) "
                  f"idle {'+'.join(f'{x:.2f}' for x in row['idle'])} s  "
                  f"{row['findings']} findings {row['digest']}  peak {row['peak_rss_mb']:.0f} MB"
                  f"{'' if row.get('same_findings_as_j1', True) else '  DIFFERS FROM -j1'}\n"
                  f"    outside the jobs (s): {outside}", flush=True)
    return rows


def _summary(rows: list) -> None:
    """Per tree, mode and -jN > 1: every round's wall and makespan speedups, the -jN CPU above
    -j1's, and the spans outside the jobs (means)."""
    keys = sorted({(r["tree"], r["mode"], r["jobs"], r["sharded"]) for r in rows if r["jobs"] > 1})
    for tree, mode, jobs, sharded in keys:
        got = [r for r in rows if (r["tree"], r["mode"], r["jobs"], r["sharded"]) == (tree, mode, jobs, sharded)]
        ones = {r["round"]: r for r in rows if (r["tree"], r["mode"], r["jobs"]) == (tree, mode, 1)}
        extra = [round(r["cpu_total"] - ones[r["round"]]["cpu_total"], 2) for r in got if r["round"] in ones]
        mean = {k: sum(r["phases"].get(k, 0.0) for r in got) / len(got) for k in got[0]["phases"]}
        print(f"{tree} {mode} -j{jobs}{'' if sharded else ' unsharded'}: wall x{[r.get('wall_speedup') for r in got]} "
              f"makespan x{[r.get('makespan_speedup') for r in got]} cpu over -j1 {extra} s; mean "
              + " ".join(f"{k} {v:.2f}" for k, v in mean.items()) + " s; loads "
              + str([r["load_before"][0] for r in got]))


if __name__ == "__main__":
    main()
