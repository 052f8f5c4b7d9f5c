"""Every GPU check of issue 13 in one command, with one summary:

    python benchmarks/thc_gpu_check.py                              # all steps
    python benchmarks/thc_gpu_check.py --steps build,tests,bench    # some of them (results merge)
    python benchmarks/thc_gpu_check.py --out "$OUT" -j 16

Steps, in order:
  env         nvcc, driver, GPU, compute capability, compute-sanitizer (what is there)
  build       libTH + libTHC for the device's own architecture plus PTX, and benchmarks/thc_bandwidth
  tests       pytest tests/thc tests/runtime (the GPU tests assert zero live objects after each test)
  sanitizers  tests/thc/test_thc_gpu.py again under compute-sanitizer memcheck (leak check), racecheck,
              initcheck
  mutants     python -m refcheck.validate --under runtime/THC: every THC mutant caught statically and
              confirmed on the GPU (live-object counters, glibc, compute-sanitizer)
  bench       benchmarks/thc_bandwidth.py: fill, copy, transposed copy, cadd, sum vs cudaMemcpy and peak

Each step's result replaces its entry in <out>/summary.json (kept from earlier runs), and summary.md
is rebuilt from it, so steps run in separate calls (a GPU machine lent 10 minutes a call) add up to
one summary. <out> holds four files at most: summary.{json,md} and thc_bandwidth.{json,md}. Without
a GPU the steps that need one report "no-gpu" with the reason and everything else still runs.

Exit codes: 0 every step run is ok; 1 a step failed; 3 nothing failed, but some step could not do
its GPU part (no CUDA device here: "no-gpu"; compute-sanitizer missing or refusing the device:
"unavailable").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from thc_build import (ARCH_ENV, BUILD, EXIT_NO_DEVICE, REPO, BuildError, architectures,  # noqa: E402
                       build_benchmark, cuda_tool)

STEPS = ("env", "build", "tests", "sanitizers", "mutants", "bench")
OUT = REPO / "benchmarks" / "results" / "thc_gpu_check"
OK, FAILED, NO_GPU, UNAVAILABLE = "ok", "failed", "no-gpu", "unavailable"
# Skip reasons of tests/thc that mean "no GPU here" rather than a chosen skip.
GPU_SKIP_PREFIXES = ("no GPU", "no nvcc", "libTHC did not build")


def _cmd(cmd: list[str], timeout: int = 3600, env: dict | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO,
                              env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return subprocess.CompletedProcess(cmd, 124, out + f"\n(timed out after {timeout} s)", "")
    except OSError as e:
        return subprocess.CompletedProcess(cmd, 127, "", str(e))


def gpu_reason() -> str | None:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return "no GPU: nvidia-smi is not installed"
    done = _cmd([smi, "-L"], timeout=60)
    if done.returncode != 0 or "GPU" not in done.stdout:
        return f"no GPU: `nvidia-smi -L` failed ({(done.stderr or done.stdout).strip()[:200]})"
    return None


def junit(path: Path) -> dict:
    """Counts and the distinct skip reasons (with how many tests each) of a pytest JUnit file."""
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    reasons: dict[str, int] = {}
    failures = []
    for case in ET.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        skipped = case.find("skipped")
        if skipped is not None:
            counts["skipped"] += 1
            reason = (skipped.get("message") or "").removeprefix("Skipped: ")
            reasons[reason] = reasons.get(reason, 0) + 1
        elif case.find("failure") is not None:
            counts["failed"] += 1
            failures.append(name)
        elif case.find("error") is not None:
            counts["error"] += 1
            failures.append(name)
        else:
            counts["passed"] += 1
    return {**counts, "skip_reasons": reasons, "failures": failures[:50]}


def _pytest(paths: list[str], out: Path, name: str, extra: list[str], timeout: int) -> tuple[dict, str]:
    with tempfile.TemporaryDirectory(prefix="thc-gpu-check-") as scratch:
        xml = Path(scratch) / f"{name}.junit.xml"
        done = _cmd([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", f"--junitxml={xml}",
                     *extra, *paths], timeout=timeout, env={ARCH_ENV: architectures()})
        tail = (done.stdout + done.stderr)[-3000:]
        if not xml.exists():
            return {"exit_status": done.returncode}, tail
        return {"exit_status": done.returncode, **junit(xml)}, tail


def step_env(args, out: Path) -> dict:
    info = {"python": sys.version.split()[0], "platform": platform.platform(), "architectures": architectures()}
    nvcc = cuda_tool("nvcc")
    info["nvcc"] = _cmd([nvcc, "--version"]).stdout.strip().splitlines()[-1] if nvcc else None
    smi = shutil.which("nvidia-smi")
    if smi:
        q = _cmd([smi, "--query-gpu=name,driver_version,compute_cap,memory.total", "--format=csv,noheader"])
        info["gpus"] = [line.strip() for line in q.stdout.splitlines() if line.strip()] or q.stderr.strip()[:300]
    sanitizer = cuda_tool("compute-sanitizer")
    info["compute_sanitizer"] = (_cmd([sanitizer, "--version"]).stdout.strip().splitlines() or [sanitizer])[-1] \
        if sanitizer else None
    reason = gpu_reason()
    return {"status": NO_GPU if reason else OK, "reason": reason, **info}


def step_build(args, out: Path) -> dict:
    try:
        exe = build_benchmark(BUILD, architectures())
    except BuildError as e:
        return {"status": FAILED, "reason": str(e)[-3000:]}
    return {"status": OK, "architectures": architectures(), "libTHC": str(BUILD / "libTHC.so"), "benchmark": str(exe)}


def step_tests(args, out: Path) -> dict:
    result, tail = _pytest(args.pytest_paths, out, "tests", ["-k", "not compute_sanitizer"], timeout=args.timeout)
    if "passed" not in result:
        return {"status": FAILED, "reason": "pytest wrote no report", "output": tail, **result}
    gpu_skips = {r: n for r, n in result["skip_reasons"].items() if r.startswith(GPU_SKIP_PREFIXES)}
    result["gpu_skips"] = sum(gpu_skips.values())
    if result["failed"] or result["error"] or result["exit_status"] not in (0,):
        return {"status": FAILED, "output": tail, **result}
    if gpu_skips:
        return {"status": NO_GPU, "reason": "; ".join(gpu_skips), **result}
    return {"status": OK, **result}


def step_sanitizers(args, out: Path) -> dict:
    result, tail = _pytest(["tests/thc/test_thc_gpu.py"], out, "sanitizers", ["-k", "compute_sanitizer"],
                           timeout=args.timeout)
    if "passed" not in result:
        return {"status": FAILED, "reason": "pytest wrote no report", "output": tail, **result}
    if result["failed"] or result["error"]:
        return {"status": FAILED, "output": tail, **result}
    if result["passed"] == 3:
        return {"status": OK, "tools": ["memcheck --leak-check full", "racecheck", "initcheck"], **result}
    reasons = "; ".join(result["skip_reasons"]) or "no sanitizer test ran"
    if any(r.startswith(GPU_SKIP_PREFIXES) for r in result["skip_reasons"]):
        status = NO_GPU
    elif result["skip_reasons"] and all(r.startswith("compute-sanitizer") for r in result["skip_reasons"]):
        status = UNAVAILABLE  # not installed, or it refuses this device: the code is not at fault
    else:
        status = FAILED
    return {"status": status, "reason": reasons, **result}


def step_mutants(args, out: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="thc-gpu-check-") as scratch:
        return _mutants(args, Path(scratch) / "thc_mutants.json")


def _mutants(args, report_path: Path) -> dict:
    done = _cmd([sys.executable, "-m", "refcheck.validate", "--under", "runtime/THC", "-j", str(args.jobs), "-q",
                 "--json", str(report_path)], timeout=args.timeout, env={ARCH_ENV: architectures()})
    if not report_path.exists():
        return {"status": FAILED, "reason": f"refcheck.validate exited {done.returncode} without a report",
                "output": (done.stdout + done.stderr)[-3000:]}
    report = json.loads(report_path.read_text())
    ms = report["mutants"]
    runnable = [m for m in ms if m["kind"] != "rename-new"]
    by_verdict: dict[str, int] = {}
    for m in runnable:
        by_verdict[m["dynamic"]] = by_verdict.get(m["dynamic"], 0) + 1
    result = {
        "mutants": len(ms), "static_detected": sum(m["static_detected"] for m in ms),
        "dynamic_runnable": len(runnable), "dynamic": by_verdict,
        "not_confirmed": [{"id": m["id"], "dynamic": m["dynamic"], "evidence": m["dynamic_evidence"]}
                          for m in runnable if m["dynamic"] != "confirmed"],
        "evidence": sorted({m["dynamic_evidence"] for m in runnable if m["dynamic"] == "confirmed"}),
        "note": report["summary"].get("dynamic_note", ""),
    }
    if result["static_detected"] != len(ms):
        return {"status": FAILED, "reason": "a THC mutant was missed statically", **result}
    if by_verdict.get("confirmed", 0) == len(runnable):
        return {"status": OK, **result}
    if result["note"].startswith("THC not run: no "):
        return {"status": NO_GPU, "reason": result["note"], **result}
    return {"status": FAILED, "reason": "some THC mutants were not confirmed on the GPU", **result}


def step_bench(args, out: Path) -> dict:
    done = _cmd([sys.executable, str(REPO / "benchmarks" / "thc_bandwidth.py"), "--out", str(out),
                 "--sizes", args.sizes, "--reps", str(args.reps)], timeout=args.timeout, env={ARCH_ENV: architectures()})
    if done.returncode == EXIT_NO_DEVICE:
        return {"status": NO_GPU, "reason": done.stderr.strip().splitlines()[-1]}
    table = out / "thc_bandwidth.json"
    if not table.exists():
        return {"status": FAILED, "reason": f"thc_bandwidth.py exited {done.returncode}",
                "output": (done.stdout + done.stderr)[-3000:]}
    report = json.loads(table.read_text())
    missed = [f"{r['op']} {r['mib']} MiB ({100 * r['share_of_memcpy']:.0f}% of memcpy, target "
              f"{100 * r['target']:.0f}%)" for r in report["results"] if r["met"] is False]
    return {"status": OK if done.returncode == 0 else FAILED,
            "reason": ("below target: " + ", ".join(missed)) if missed else
                      (None if done.returncode == 0 else done.stderr[-2000:]),
            "table": (out / "thc_bandwidth.md").read_text(), "device": report["device"],
            "peak_gbs": report["peak_gbs"]}


RUNNERS = {"env": step_env, "build": step_build, "tests": step_tests, "sanitizers": step_sanitizers,
           "mutants": step_mutants, "bench": step_bench}


def load_steps(out: Path) -> dict:
    """The step results of earlier runs into this folder (none when there is no readable summary)."""
    try:
        steps = json.loads((out / "summary.json").read_text())["steps"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return steps if isinstance(steps, dict) else {}


def summarize(out: Path, steps: dict) -> dict:
    steps = {name: steps[name] for name in STEPS if isinstance(steps.get(name), dict) and "status" in steps[name]}
    lines = ["# THC GPU check (issue 13)", "", "Written by `python benchmarks/thc_gpu_check.py`; "
             "each row from the latest run of that step.", "",
             "| step | status | when | seconds | reason |", "| --- | --- | --- | ---: | --- |"]
    for name, s in steps.items():
        reason = (s.get("reason") or "").replace("\n", " ").replace("|", "\\|")[:300]
        lines.append(f"| {name} | {s['status']} | {s.get('when', '')} | {s.get('seconds', '')} | {reason} |")
    for name in ("tests", "sanitizers"):
        s = steps.get(name)
        if s and "passed" in s:
            lines += ["", f"## {name}", "", f"passed {s['passed']}, failed {s['failed']}, errors {s['error']}, "
                      f"skipped {s['skipped']}"]
            lines += [f"- skipped {n}: {r}" for r, n in s["skip_reasons"].items()]
            lines += [f"- FAILED {f}" for f in s.get("failures", [])]
    if "mutants" in steps and "mutants" in steps["mutants"]:
        m = steps["mutants"]
        lines += ["", "## THC mutants", "", f"{m['mutants']} mutants, {m['static_detected']} detected statically; "
                  f"dynamic over {m['dynamic_runnable']} with a runtime symptom: {m['dynamic']}"]
        lines += [f"- evidence seen: {e}" for e in m["evidence"]]
        if m["status"] == NO_GPU:
            lines.append(f"- dynamic half not run: {m.get('reason')}")
        else:
            lines += [f"- not confirmed: {x['id']}: {x['dynamic']} {x['evidence']}" for x in m["not_confirmed"][:40]]
    if "bench" in steps and steps["bench"].get("table"):
        lines += ["", "## Bandwidth", "", steps["bench"]["table"]]
    if "env" in steps:
        env = {k: v for k, v in steps["env"].items() if k not in ("status", "when", "seconds")}
        lines += ["", "## Environment", "", "```", json.dumps(env, indent=2), "```"]
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    summary = {"steps": steps}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--steps", default=",".join(STEPS), help=f"comma-separated, from {','.join(STEPS)}")
    ap.add_argument("--out", type=Path, default=OUT, help=f"folder for the step files and summary (default {OUT})")
    ap.add_argument("-j", "--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2),
                    help="parallel builds of THC mutants, static-check processes (default: half the cores)")
    ap.add_argument("--pytest-paths", nargs="+", default=["tests/thc", "tests/runtime"],
                    help="what the tests step runs (default tests/thc tests/runtime)")
    ap.add_argument("--sizes", default="256,1024", help="benchmark MiB per tensor (default 256,1024)")
    ap.add_argument("--reps", type=int, default=20, help="benchmark repetitions (default 20)")
    ap.add_argument("--timeout", type=int, default=3000, help="seconds per step's subprocess (default 3000)")
    args = ap.parse_args(argv)
    steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    unknown = [s for s in steps if s not in RUNNERS]
    if unknown or not steps:
        ap.error(f"unknown step(s) {', '.join(unknown) or '(none given)'}; known: {', '.join(STEPS)}")
    if args.jobs < 1 or args.timeout < 1 or args.reps < 1:
        ap.error("--jobs, --timeout and --reps must be positive")
    args.out.mkdir(parents=True, exist_ok=True)

    statuses = []
    results = load_steps(args.out)
    for name in steps:
        print(f"thc_gpu_check: {name} ...", file=sys.stderr, flush=True)
        start = time.monotonic()
        result = RUNNERS[name](args, args.out)
        result["seconds"] = round(time.monotonic() - start, 1)
        result["when"] = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime())
        results[name] = result
        summarize(args.out, results)  # after every step, so a run cut off keeps what it did
        statuses.append(result["status"])
        reason = f": {result['reason'].splitlines()[0][:200]}" if result.get("reason") else ""
        print(f"thc_gpu_check: {name}: {result['status']} ({result['seconds']} s){reason}", file=sys.stderr,
              flush=True)
    print(f"thc_gpu_check: summary in {args.out / 'summary.md'}", file=sys.stderr)
    if FAILED in statuses:
        return 1
    return EXIT_NO_DEVICE if NO_GPU in statuses or UNAVAILABLE in statuses else 0


if __name__ == "__main__":
    sys.exit(main())
