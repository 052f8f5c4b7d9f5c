"""refcheck's speed against the libclang parse floor, on generated TH-style corpora, and peers.

    python benchmarks/run.py --sizes 10k,100k,1m --repeat 5 --out benchmarks/results/

Writes results.json and scaling.png under --out and prints a Markdown table for
docs/performance.md. Every measurement of a size is taken in the same round, one after the
other, so that load on the machine hits them alike; each figure is the median of --repeat runs.
Peers (cppcheck, clang --analyze) are used when installed and skipped, with a note, when not.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import checks  # noqa: E402
import corpus  # noqa: E402
import peers  # noqa: E402
import worstcase  # noqa: E402
from proc import run  # noqa: E402

REPO = os.path.dirname(HERE)
CHANGED = "generic/THBUnit0000.c"  # the file edited for the one-changed-file case


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def floor(corpus_dir: str) -> dict:
    r = run([sys.executable, os.path.join(HERE, "floor.py"), corpus_dir, "src"], cwd=REPO, env=checks.ENV)
    if r.returncode != 0:
        raise RuntimeError(f"floor failed: {r.stderr.strip()[-2000:]}")
    doc = json.loads(r.stdout)
    return {"seconds": r.seconds, "parse_seconds": doc["parse_seconds"], "peak_rss_mb": r.peak_rss_mb,
            "units": doc["units"]}


def _edit(path: str, round_: int) -> str:
    with open(path, encoding="utf-8") as f:
        original = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(original + f"/* benchmark edit {round_} {time.time_ns()} */\n")
    return original


def measure_size(spec: str, args) -> dict:
    size, _, rep = spec.partition(":")
    repeat = int(rep) if rep else args.repeat
    kloc = corpus.parse_size(size)
    where = os.path.join(args.corpus_dir, size)
    m = corpus.generate(where, kloc, args.seed)
    print(f"{size}: {len(m.units)} units, {m.functions} functions, {m.lines} lines", flush=True)
    rounds: dict[str, list] = {k: [] for k in ("floor", "j1", "j2", "cold", "warm", "changed")}
    j1_last = None
    for i in range(repeat):
        rounds["floor"].append(floor(where))
        j1 = checks.refcheck(where, ["src"], jobs=1, cache_dir=None)
        j1_last = j1
        rounds["j1"].append({"seconds": j1.run.seconds, "stages": j1.stages, "peak_rss_mb": j1.run.peak_rss_mb})
        j2 = checks.refcheck(where, ["src"], jobs=2, cache_dir=None)
        rounds["j2"].append({"seconds": j2.run.seconds, "peak_rss_mb": j2.run.peak_rss_mb})
        cache = tempfile.mkdtemp(prefix="refcheck-bench-cache-")
        try:
            cold = checks.refcheck(where, ["src"], jobs=2, cache_dir=cache)
            warm = checks.refcheck(where, ["src"], jobs=2, cache_dir=cache)
            original = _edit(os.path.join(where, CHANGED), i)
            try:
                changed = checks.refcheck(where, ["src"], jobs=2, cache_dir=cache)
            finally:
                with open(os.path.join(where, CHANGED), "w", encoding="utf-8") as f:
                    f.write(original)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        rounds["cold"].append({"seconds": cold.run.seconds})
        # Hits show whether the cache really served the run: refcheck's cache key covers its own
        # source, so an edit to refcheck during a run (a shared tree) turns warm into cold.
        rounds["warm"].append({"seconds": warm.run.seconds, "cache_hits": warm.cache_hits})
        rounds["changed"].append({"seconds": changed.run.seconds, "cache_hits": changed.cache_hits})
        print(f"  round {i + 1}: floor {rounds['floor'][-1]['seconds']:.2f} s, -j1 {j1.run.seconds:.2f} s, "
              f"-j2 {j2.run.seconds:.2f} s, cold {cold.run.seconds:.2f} s, warm {warm.run.seconds:.2f} s, "
              f"one changed {changed.run.seconds:.2f} s (cache hits: warm {warm.cache_hits}/{len(m.units)}, "
              f"changed {changed.cache_hits}/{len(m.units)})", flush=True)

    def med(key, field="seconds"):
        return median([r[field] for r in rounds[key]])

    stages = {s: median([r["stages"].get(s, 0.0) for r in rounds["j1"]]) for s in checks.STAGES}
    unit = "src/" + os.path.basename(CHANGED)
    result = {
        "size": size, "repeat": repeat, "units": len(m.units), "functions": m.functions, "lines": m.lines,
        "floor_seconds": med("floor"), "floor_parse_seconds": med("floor", "parse_seconds"),
        "j1_seconds": med("j1"), "j2_seconds": med("j2"), "j1_stages": stages,
        "cold_seconds": med("cold"), "warm_seconds": med("warm"), "changed_seconds": med("changed"),
        "changed_unit_parse_seconds": median([r["units"][unit]["seconds"] for r in rounds["floor"]]),
        "peak_rss_mb_j1": max(r["peak_rss_mb"] for r in rounds["j1"]),
        "peak_rss_mb_j2": max(r["peak_rss_mb"] for r in rounds["j2"]),
        "floor_peak_rss_mb": max(r["peak_rss_mb"] for r in rounds["floor"]),
        "rounds": {k: [{kk: vv for kk, vv in r.items() if kk != "units"} for r in v] for k, v in rounds.items()},
    }
    result["ratio_to_floor"] = result["j1_seconds"] / result["floor_seconds"]
    result["speedup_j2"] = result["j1_seconds"] / result["j2_seconds"]
    result["ms_per_kloc_j1"] = 1000 * result["j1_seconds"] / (m.lines / 1000)
    result["ms_per_kloc_floor"] = 1000 * result["floor_seconds"] / (m.lines / 1000)
    s = checks.score(m, [(f["file"], f["line"]) for f in j1_last.findings])
    result["tools"] = {"refcheck": {"seconds": result["j1_seconds"], **vars(s),
                                    "tool_errors": j1_last.tool_errors}}
    if not args.no_peers:
        for name, fn in (("cppcheck", peers.cppcheck), ("clang --analyze", peers.clang_analyze)):
            runs = [fn(where, m.units) for _ in range(min(args.peer_repeat or repeat, repeat))]
            if isinstance(runs[0], str):
                print(f"  {runs[0]}", flush=True)
                result["tools"][name] = {"skipped": runs[0]}
                continue
            ps = checks.score(m, runs[-1].locations)
            result["tools"][name] = {"version": runs[-1].version, "seconds": median([r.seconds for r in runs]),
                                     "failed_units": runs[-1].failed_units, **vars(ps)}
            print(f"  {name}: {result['tools'][name]['seconds']:.2f} s, found {ps.found}/{ps.planted}, "
                  f"{ps.false_positives} false", flush=True)
    print(f"  refcheck found {s.found}/{s.planted} planted bugs, {s.false_positives} false, "
          f"{j1_last.tool_errors} tool errors", flush=True)
    return result


def measure_runtime(repeat: int) -> dict:
    """The unchanged-tree target for runtime/ itself: a warm re-check of the real code."""
    cache = tempfile.mkdtemp(prefix="refcheck-bench-cache-")
    try:
        def argv(*cache_args: str) -> list[str]:
            return [sys.executable, "-m", "refcheck", "check", "-q", "--exit-zero", "-j", "2",
                    *cache_args, "-I", "runtime/TH", "runtime/TH"]

        cold = run(argv("--cache-dir", cache), cwd=REPO, env=checks.ENV)
        warm = [run(argv("--cache-dir", cache), cwd=REPO, env=checks.ENV).seconds for _ in range(repeat)]
        nocache = [run(argv("--no-cache"), cwd=REPO, env=checks.ENV).seconds for _ in range(repeat)]
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if cold.returncode != 0:
        return {"error": cold.stderr.strip()[-500:]}
    return {"paths": ["runtime/TH"], "cold_seconds": cold.seconds, "warm_seconds": median(warm), "warm_runs": warm,
            "nocache_seconds": median(nocache)}


def machine() -> dict:
    import clang.cindex  # noqa: F401
    from importlib import metadata

    load = os.getloadavg()
    return {"platform": platform.platform(), "python": platform.python_version(),
            "cpus": len(os.sched_getaffinity(0)), "cpu": _cpu_model(),
            "libclang": metadata.version("libclang"), "loadavg_at_start": load,
            "refcheck_commit": _git("rev-parse", "--short", "HEAD"),
            # Uncommitted changes to refcheck/ measured along with the commit (a shared tree).
            "refcheck_dirty": bool(_git("status", "--porcelain", "--", "refcheck")),
            "date": time.strftime("%Y-%m-%d %H:%M:%S")}


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True).stdout.strip()


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="10k,100k",
                   help="comma-separated corpus sizes (10k, 100k, 1m), each optionally SIZE:REPEAT")
    p.add_argument("--repeat", type=int, default=5, help="runs per measurement (the median is kept)")
    p.add_argument("--peer-repeat", type=int, help="runs per peer measurement (default: --repeat)")
    p.add_argument("--no-peers", action="store_true", help="skip cppcheck and clang --analyze")
    p.add_argument("--worst-sizes", default="4,8,16,32,64", help="sizes of the worst-case functions")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default=os.path.join(HERE, "results"))
    p.add_argument("--corpus-dir", help="where corpora are generated (default: OUT/corpus, gitignored)")
    args = p.parse_args(argv)
    try:
        sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
        for s in sizes:
            size, _, rep = s.partition(":")
            corpus.parse_size(size)
            if rep and int(rep) < 1:
                raise ValueError(f"bad repeat in {s!r}")
        worst = [int(x) for x in args.worst_sizes.split(",") if x.strip()]
    except ValueError as e:
        print(f"run: error: {e}", file=sys.stderr)
        return 2
    if args.repeat < 1:
        print("run: error: --repeat must be at least 1", file=sys.stderr)
        return 2
    args.corpus_dir = args.corpus_dir or os.path.join(args.out, "corpus")
    os.makedirs(args.out, exist_ok=True)
    snapshot = tempfile.mkdtemp(prefix="refcheck-bench-snapshot-")
    checks.use_snapshot(REPO, snapshot)
    doc = {"command": " ".join(["python", "benchmarks/run.py", *(argv if argv is not None else sys.argv[1:])]),
           "machine": machine(), "repeat": args.repeat, "sizes": []}
    try:
        for size in sizes:
            doc["sizes"].append(measure_size(size, args))
            _save(doc, args.out)  # a long run keeps what it has measured so far
        print("runtime/ (unchanged tree)", flush=True)
        doc["runtime"] = measure_runtime(args.repeat)
        print("worst-case functions", flush=True)
        doc["worst_case"] = worstcase.measure(os.path.join(args.corpus_dir, "worst"), worst, min(args.repeat, 3))
    except (RuntimeError, OSError) as e:
        print(f"run: error: {e}", file=sys.stderr)
        _save(doc, args.out)
        return 1
    finally:
        shutil.rmtree(snapshot, ignore_errors=True)
    doc["machine"]["loadavg_at_end"] = os.getloadavg()
    _save(doc, args.out)
    import chart

    chart.draw(doc, os.path.join(args.out, "scaling.png"))
    print(chart.table(doc))
    return 0


def _save(doc: dict, out: str) -> None:
    with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
