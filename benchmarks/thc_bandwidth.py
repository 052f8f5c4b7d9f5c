"""THC's kernels against the memory-bandwidth limit (issue 13): builds benchmarks/thc_bandwidth.cu
against build/runtime-cuda, runs it, and writes benchmarks/results/thc_bandwidth.{json,md}.

    python benchmarks/thc_bandwidth.py                    # 256 MiB and 1 GiB per tensor, 20 reps
    python benchmarks/thc_bandwidth.py --sizes 256,2048 --reps 50
    python benchmarks/thc_bandwidth.py --build-only       # compile only (no GPU needed)

Bandwidth counts the bytes each operation must move at least (fill writes n elements; copy and
memcpy and mul read and write n; cadd reads two and writes one; sum reads n) over the mean time of
`reps` back-to-back calls on the state's stream (cudaEvent timing, one warm-up call first).
Targets (issue 13): fill, copy, mul, cadd and sum at >= 80% of the cudaMemcpy device-to-device
ceiling measured alongside; the transposed copy at >= 50%.

Exit codes: 0 measured, every target met; 1 measured, some target missed (or a sanity check
failed); 2 the build failed or bad arguments; 3 no CUDA device (built, nothing measured).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from thc_build import BUILD, EXIT_NO_DEVICE, REPO, BuildError, architectures, build_benchmark  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
# Share of the memcpy ceiling each operation must reach: issue 29's "fill/copy/elementwise kernels
# at least 80% of the device-to-device copy bandwidth and reductions at least 50%". `sum` pays its
# read-back and synchronisation as a caller does, so a small tensor's share is below its kernel's.
TARGETS = {"fill": 0.80, "copy": 0.80, "mul": 0.80, "cadd": 0.80, "sum": 0.50, "copy_transposed": 0.50}


def verdicts(report: dict) -> list[dict]:
    """Each measured row with its target and whether it met it (memcpy itself has none)."""
    rows = []
    for r in report["results"]:
        target = TARGETS.get(r["op"])
        rows.append({**r, "target": target, "met": None if target is None else r["share_of_memcpy"] >= target})
    return rows


def markdown(report: dict, rows: list[dict], command: str) -> str:
    out = [f"Device: {report['device']} (sm_{report['compute_capability'].replace('.', '')}, "
           f"{report['sms']} SMs), peak {report['peak_gbs']:.0f} GB/s from the device attributes "
           f"({report['memory_clock_khz'] / 1e3:.0f} MHz x {report['memory_bus_bits']} bits x 2); "
           f"driver {report['driver_version']}, runtime {report['runtime_version']}; {report['reps']} reps.",
           "", f"Command: `{command}`", "",
           "| op | MiB | GB/s | % of peak | % of memcpy | target | met |",
           "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        target = "" if r["target"] is None else f"{100 * r['target']:.0f}%"
        met = "" if r["met"] is None else ("yes" if r["met"] else "**no**")
        out.append(f"| {r['op']} | {r['mib']} | {r['gbs']:.0f} | {100 * r['share_of_peak']:.1f}% | "
                   f"{100 * r['share_of_memcpy']:.1f}% | {target} | {met} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="256,1024", help="MiB per tensor, comma-separated (default 256,1024)")
    ap.add_argument("--reps", type=int, default=20, help="timed calls per operation (default 20)")
    ap.add_argument("--build-dir", type=Path, default=BUILD, help=f"where THC is built (default {BUILD})")
    ap.add_argument("--out", type=Path, default=RESULTS, help="folder for thc_bandwidth.{json,md}")
    ap.add_argument("--build-only", action="store_true", help="compile the benchmark and stop")
    args = ap.parse_args(argv)
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        ap.error(f"--sizes: not a list of integers: {args.sizes!r}")
    if not sizes or min(sizes) < 1 or args.reps < 1:
        ap.error("--sizes and --reps must be positive")

    try:
        exe = build_benchmark(args.build_dir)
    except BuildError as e:
        print(f"thc_bandwidth: {e}", file=sys.stderr)
        return 2
    print(f"thc_bandwidth: built {exe} for CUDA architectures {architectures()}", file=sys.stderr)
    if args.build_only:
        return 0

    cmd = [str(exe), "--sizes", ",".join(map(str, sizes)), "--reps", str(args.reps)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    sys.stderr.write(done.stderr)
    if done.returncode == EXIT_NO_DEVICE:
        print("thc_bandwidth: no CUDA device: nothing measured (run this where a GPU is visible)", file=sys.stderr)
        return EXIT_NO_DEVICE
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        print(f"thc_bandwidth: the benchmark exited {done.returncode} without a report:\n{done.stdout[-2000:]}",
              file=sys.stderr)
        return 1
    rows = verdicts(report)
    command = "python benchmarks/thc_bandwidth.py " + " ".join(argv if argv is not None else sys.argv[1:])
    report = {**report, "results": rows, "command": command.strip(), "exit_status": done.returncode}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "thc_bandwidth.json").write_text(json.dumps(report, indent=2) + "\n")
    table = markdown(report, rows, command.strip())
    (args.out / "thc_bandwidth.md").write_text(table)
    print(table)
    missed = [f"{r['op']} {r['mib']} MiB" for r in rows if r["met"] is False]
    if missed:
        print("thc_bandwidth: below target: " + ", ".join(missed), file=sys.stderr)
    return 0 if done.returncode == 0 and not missed else 1


if __name__ == "__main__":
    sys.exit(main())
