"""refcheck on real TH: Lua torch7's lib/TH (15 units), side by side with libclang's parse of the
same units, in one run. Writes benchmarks/results/torch7.json and torch7.png, prints a table.

    python benchmarks/torch7.py                       # the snapshot in ../shared/corpora
    python benchmarks/torch7.py --path DIR            # a directory holding lib/TH
    python benchmarks/torch7.py --modes unwind --sets all

Each round runs, one after the other so that load hits them alike: the floor (benchmarks/floor.py:
libclang parsing every unit with refcheck's own argument list, one process, nothing else), then
`refcheck check lib/TH/*.c -j 1 --no-cache --statistics` with the default per-unit timeout in each
--errors mode, then THTensor.c alone (72% of the parse; with --alone-timeout, 1500 s by default, so
that its stage times show even when it runs past the default timeout). A unit that timed out or was not fully
checked is counted and flagged: its time is a lower bound, never a fast result.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import re
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from proc import run  # noqa: E402

FLAGS = ("-std=gnu99 -msse3 -msse4.1 -msse4.2 -DUSE_SSE2 -DUSE_SSE3 -DUSE_SSE4_1 -DUSE_SSE4_2 -DUSE_AVX "
         "-DUSE_AVX2 -DUSE_GCC_ATOMICS=1 -DHAVE_MMAP=1 -D_FILE_OFFSET_BITS=64 -DHAVE_SHM_OPEN=1 "
         "-DHAVE_SHM_UNLINK=1 -DHAVE_MALLOC_USABLE_SIZE=1 -DTH_HAVE_THREAD -DHAVE_GCC_GET_CPUID -Ilib/TH").split()
TARBALL = "torch7-lib-TH-*.tar.gz"
ALONE = "lib/TH/THTensor.c"
_STAGE = re.compile(r"^(parse|cfg|analysis|report|wall)\s+([0-9.]+) s\s*$", re.M)
_COUNTS = re.compile(r"^\s+(\d+) analysed, (\d+) shared with an identical instantiation, (\d+) with nothing",
                     re.M)
_FUNCTIONS = re.compile(r"^functions (\d+)", re.M)


def find_snapshot() -> str | None:
    """../shared/corpora/torch7-*.tar.gz from the repository or any directory above it (worktrees
    sit deeper than the main checkout)."""
    d = REPO
    while True:
        hits = sorted(glob.glob(os.path.join(d, "..", "shared", "corpora", TARBALL)))
        if hits:
            return os.path.abspath(hits[-1])
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def extracted(tarball: str) -> str:
    """The snapshot extracted once under benchmarks/results/corpus/ (gitignored), reused after."""
    name = os.path.basename(tarball).split(".tar")[0]
    target = os.path.join(HERE, "results", "corpus", name)
    if not os.path.isdir(os.path.join(target, "lib", "TH")):
        tmp = tempfile.mkdtemp(dir=os.path.dirname(target) if os.path.isdir(os.path.dirname(target)) else None)
        with tarfile.open(tarball) as tf:
            tf.extractall(tmp, filter="data")
        roots = glob.glob(os.path.join(tmp, "**", "lib", "TH"), recursive=True)
        if not roots:
            raise SystemExit(f"{tarball}: no lib/TH inside")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.rename(os.path.dirname(os.path.dirname(roots[0])), target)
    return target


def floor(corpus: str, units: list[str], env: dict) -> dict:
    r = run([sys.executable, os.path.join(HERE, "floor.py"), corpus, *units,
             *(f"--clang-arg={f}" for f in FLAGS)], cwd=corpus, env=env)
    if r.returncode != 0:
        raise SystemExit(f"floor failed: {r.stderr[-2000:]}")
    return json.loads(r.stdout)


def run_with_report(argv: list[str], corpus: str, env: dict):
    """Run a refcheck command line with `-o REPORT` appended; its process result and the report read."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        report = f.name
    r = run([*argv, "-o", report], cwd=corpus, env=env)
    try:
        with open(report, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        raise SystemExit(f"refcheck failed (exit {r.returncode}): {r.stderr[-2000:]}") from None
    finally:
        if os.path.exists(report):
            os.unlink(report)
    return r, doc


def refcheck(corpus: str, units: list[str], mode: str, env: dict, timeout: float | None,
             keep: str | None = None) -> dict:
    argv = [sys.executable, "-m", "refcheck", "check", *units, "-j", "1", "--no-cache", "--statistics", "-q",
            "--errors", mode, "--format", "json", *(f"--clang-arg={f}" for f in FLAGS)]
    if timeout:
        argv += ["--timeout", f"{timeout:g}"]
    r, doc = run_with_report(argv, corpus, env)
    if keep:
        with open(keep, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2)
    stages = {k: float(v) for k, v in _STAGE.findall(r.stderr)}
    m = _COUNTS.search(r.stderr)
    counts = dict(zip(("analysed", "shared", "skipped"), map(int, m.groups()))) if m else {}
    errors = [e["message"] for e in doc["errors"]]
    fn = _FUNCTIONS.search(r.stderr)
    return {
        "units": units, "mode": mode, "exit": r.returncode, "seconds": r.seconds, "peak_rss_mb": r.peak_rss_mb,
        "stages": stages, "functions": int(fn.group(1)) if fn else doc.get("stats", {}).get("functions", 0),
        "function_counts": counts, "findings": len(doc["findings"]),
        "units_not_checked": sum(1 for e in errors if e.startswith("not checked")),
        "functions_not_fully_checked": sum(1 for e in errors if "not fully checked" in e),
        "findings_digest": _digest(doc["findings"]),
    }


def _digest(findings: list) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(findings, sort_keys=True).encode()).hexdigest()[:16]


def commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "refcheck"], cwd=REPO, capture_output=True,
                               text=True).stdout.strip()
        return out.stdout.strip() + (" (with uncommitted changes)" if dirty else "")
    except OSError:
        return "unknown"


def verdict(ratio: float, target: float, clean: bool) -> str:
    if not clean:
        return "no (units or functions not fully checked: the time is a lower bound)"
    return "yes" if ratio <= target else "no"


def table(doc: dict) -> str:
    rows = ["| run | errors mode | units | functions (analysed / shared / nothing to find) | floor parse (s) "
            "| refcheck -j1 (s) | ratio | parse / cfg / analysis (s) | not checked (units / functions) "
            "| findings |", "|" + "---|" * 10]
    for r in doc["runs"]:
        c, st = r["function_counts"], r["stages"]
        rows.append(
            f"| {'THTensor.c alone' if r['alone'] else 'all 15 units'} | {r['mode']} | {len(r['units'])} "
            f"| {r['functions']} ({c.get('analysed', '?')} / {c.get('shared', '?')} / {c.get('skipped', '?')}) "
            f"| {r['floor_seconds']:.2f} | {r['seconds']:.2f} | {r['ratio']:.1f}x "
            f"| {st.get('parse', 0):.2f} / {st.get('cfg', 0):.2f} / {st.get('analysis', 0):.2f} "
            f"| {r['units_not_checked']} / {r['functions_not_fully_checked']} | {r['findings']} |")
    rows += ["", "| target | measured | met? |", "|---|---|---|"]
    for t in doc["targets"]:
        rows.append(f"| {t['target']} | {t['measured']} | {t['met']} |")
    return "\n".join(rows)


def draw(doc: dict, path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("chart: matplotlib not installed (pip install -e '.[bench]'): no PNG written")
        return
    runs = doc["runs"]
    labels = [f"{'THTensor.c' if r['alone'] else 'lib/TH'}\n{r['mode']}" for r in runs]
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    x = range(len(runs))
    ax.bar([i - 0.2 for i in x], [r["floor_seconds"] for r in runs], 0.4, label="libclang parse floor")
    bottom = [0.0] * len(runs)
    for stage in ("parse", "cfg", "analysis"):
        vals = [r["stages"].get(stage, 0.0) for r in runs]
        ax.bar([i + 0.2 for i in x], vals, 0.4, bottom=bottom, label=f"refcheck {stage}")
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.scatter([i + 0.2 for i in x], [r["seconds"] for r in runs], marker="_", s=400, color="black",
               label="refcheck -j1 wall", zorder=3)
    ax.set_xticks(list(x), labels)
    ax.set_ylabel("seconds")
    ax.set_title("torch7 lib/TH: refcheck -j1 --no-cache vs the parse")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", help="directory holding lib/TH (default: the snapshot in ../shared/corpora)")
    ap.add_argument("--modes", default="abort,unwind", help="--errors modes to run (comma-separated)")
    ap.add_argument("--timeout", type=float, default=None, help="per-unit timeout (default: refcheck's)")
    ap.add_argument("--sets", default="all,alone",
                    help=f"which runs: all (the 15 units), alone ({ALONE} by itself); comma-separated")
    ap.add_argument("--alone-timeout", type=float, default=1500,
                    help=f"timeout of the {ALONE}-alone run, long enough to see its stages when it takes "
                         "longer than the default")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--keep-reports", action="store_true",
                    help="also write each run's JSON report to OUT/torch7-MODE[-alone].json (to diff findings)")
    args = ap.parse_args(argv)
    if args.path:
        corpus = os.path.abspath(args.path)
    else:
        tarball = find_snapshot()
        if tarball is None:
            print("no --path given and no ../shared/corpora/torch7-lib-TH-*.tar.gz found", file=sys.stderr)
            return 2
        corpus = extracted(tarball)
    units = sorted(os.path.relpath(p, corpus) for p in glob.glob(os.path.join(corpus, "lib", "TH", "*.c")))
    if not units:
        print(f"{corpus}: no lib/TH/*.c", file=sys.stderr)
        return 2
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, *filter(None, [os.environ.get("PYTHONPATH")])]))
    doc = {"corpus": corpus, "commit": commit(), "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
           "load_before": os.getloadavg()[0], "runs": []}
    wanted = args.sets.split(",")
    sets = ([(units, False)] if "all" in wanted else []) + \
        ([([ALONE], True)] if "alone" in wanted and ALONE in units else [])
    for unit_set, alone in sets:
        for mode in args.modes.split(","):
            fl = floor(corpus, unit_set, env)
            keep = os.path.join(args.out, f"torch7-{mode}{'-alone' if alone else ''}.json") if args.keep_reports else None
            os.makedirs(args.out, exist_ok=True)
            r = refcheck(corpus, unit_set, mode, env, args.alone_timeout if alone else args.timeout, keep)
            r.update(alone=alone, floor_seconds=fl["parse_seconds"], ratio=r["seconds"] / fl["parse_seconds"])
            doc["runs"].append(r)
            print(f"{'THTensor.c' if alone else 'lib/TH'} {mode}: floor {fl['parse_seconds']:.2f} s, refcheck "
                  f"{r['seconds']:.2f} s ({r['ratio']:.1f}x), stages {r['stages']}, {r['function_counts']}, "
                  f"not checked {r['units_not_checked']} units / {r['functions_not_fully_checked']} functions",
                  flush=True)
    doc["load_after"] = os.getloadavg()[0]
    targets = []
    for r in doc["runs"]:
        clean = r["units_not_checked"] == 0 and r["functions_not_fully_checked"] == 0
        what = "THTensor.c alone" if r["alone"] else "lib/TH, every unit checked, none cut off,"
        targets.append({"target": f"{what} within 3x of the parse ({r['mode']})",
                        "measured": f"{r['ratio']:.1f}x", "met": verdict(r["ratio"], 3.0, clean)})
        if not r["alone"]:
            targets.append({"target": f"lib/TH within 1.3x of the parse, the standing goal ({r['mode']})",
                            "measured": f"{r['ratio']:.1f}x", "met": verdict(r["ratio"], 1.3, clean)})
    doc["targets"] = targets
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "torch7.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    draw(doc, os.path.join(args.out, "torch7.png"))
    print(table(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
