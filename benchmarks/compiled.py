"""refcheck's own Python compiled with Cython against the same source run as Python, on lib/TH.
Writes benchmarks/results/compiled.json, prints a table.

    python benchmarks/compiled.py --path /tmp/torch7           # a directory holding lib/TH
    python benchmarks/compiled.py --path DIR --rounds 3 --modes abort,unwind

Copies this checkout's refcheck/ twice into a temporary directory, compiles the hot packages of one
copy with Cython 3 (pure-Python mode: the .py files as they are; needs Cython and a C compiler),
checks that the compiled copy imports extension modules for them and the pure copy none, then runs
`refcheck check lib/TH/*.c -j 1 --no-cache` on the two copies alternately, pure first, and records
CPU (user + sys of the process tree), wall and the findings' digest of each run. The two digests
must be equal: the compiled code is the same program.

`annotation_typing` is off: with it Cython turns annotations into type checks (a parameter
annotated `set[str]` refuses a frozenset) and `int`/`float` into C types, which is a different
program. Expressions of C values Cython types itself stay C: `1 << len(x)` is a shift of C ints
(see analysis/bitsets.py).
"""

from __future__ import annotations

import argparse
import glob
import hashlib
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
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from torch7 import FLAGS, commit  # noqa: E402

PACKAGES = ("analysis", "frontend", "reuse", "ir", "conventions")
DIRECTIVES = {"language_level": 3, "binding": True, "annotation_typing": False}
_BUILD = """
import glob, sys
from setuptools import setup
from Cython.Build import cythonize
files = sorted(f for p in sys.argv[1].split(",") for f in glob.glob(f"refcheck/{p}/*.py"))
setup(script_args=["build_ext", "--inplace", "-j2"],
      ext_modules=cythonize(files, compiler_directives=%r, nthreads=2, quiet=True))
"""


def timed(argv: list[str], cwd: str, env: dict) -> tuple[int, float, float, str]:
    """Exit status, wall seconds, CPU seconds (user + sys, children included) and stderr."""
    started = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.stderr.close()
    return (os.waitstatus_to_exitcode(status), time.perf_counter() - started,
            usage.ru_utime + usage.ru_stime, err.decode(errors="replace"))


def copies(work: str, packages: list[str], env: dict) -> dict:
    """The pure and the compiled copy of refcheck/ under `work`, and what the compile cost."""
    pure, native = os.path.join(work, "pure"), os.path.join(work, "compiled")
    for d in (pure, native):
        shutil.copytree(os.path.join(REPO, "refcheck"), os.path.join(d, "refcheck"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c"))
    script = os.path.join(work, "build.py")
    with open(script, "w", encoding="utf-8") as f:
        f.write(_BUILD % (DIRECTIVES,))
    rc, wall, cpu, err = timed([sys.executable, script, ",".join(packages)], native, dict(env, CFLAGS="-O2"))
    if rc != 0:
        raise SystemExit(f"the Cython build failed (exit {rc}): {err[-3000:]}")
    for d in (pure, native):  # both start from bytecode, as an installed refcheck does
        subprocess.run([sys.executable, "-m", "compileall", "-q", "refcheck"], cwd=d, check=True, env=env)
    modules = sorted(glob.glob(os.path.join(native, "refcheck", "*", "*.so")))
    return {"pure": pure, "compiled": native, "build_wall_s": round(wall, 1), "build_cpu_s": round(cpu, 1),
            "extension_modules": len(modules)}


def imported_from(tree: str, packages: list[str], env: dict) -> dict:
    """How many of the packages' modules a process started on `tree` imports from .so files."""
    names = sorted({f"refcheck.{p}.{os.path.basename(f)[:-3]}".replace(".__init__", "")
                    for p in packages for f in glob.glob(os.path.join(tree, "refcheck", p, "*.py"))})
    code = ("import importlib, json, sys\n"
            f"names = {names!r}\n"
            "files = [importlib.import_module(n) and sys.modules[n].__file__ for n in names]\n"
            "print(json.dumps([len(files), sum(f.endswith('.so') for f in files), sys.modules['refcheck'].__file__]))")
    out = subprocess.run([sys.executable, "-c", code], cwd="/", env=dict(env, PYTHONPATH=tree), check=True,
                         capture_output=True, text=True).stdout
    total, native, root = json.loads(out)
    if not root.startswith(tree):
        raise SystemExit(f"refcheck imported from {root}, not {tree} (another refcheck on sys.path?)")
    return {"modules": total, "from_so": native}


def check(tree: str, corpus: str, mode: str, env: dict) -> dict:
    report = os.path.join(os.path.dirname(tree), f"report-{mode}.json")
    argv = [sys.executable, "-m", "refcheck", "check", *sorted(glob.glob(os.path.join(corpus, "lib/TH/*.c"))),
            "-j", "1", "--no-cache", "-q", "--errors", mode, "--format", "json", "-o", report,
            *(f"--clang-arg={f}" for f in FLAGS)]
    rc, wall, cpu, err = timed(argv, corpus, dict(env, PYTHONPATH=tree))
    try:
        with open(report, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        raise SystemExit(f"refcheck failed (exit {rc}): {err[-2000:]}") from None
    findings = sorted(json.dumps(x, sort_keys=True) for x in doc["findings"])
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "findings": len(findings),
            "errors": len(doc["errors"]), "digest": hashlib.sha256("\n".join(findings).encode()).hexdigest()[:16]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", required=True, help="directory holding lib/TH")
    ap.add_argument("--modes", default="abort,unwind", help="--errors modes to run (comma-separated)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--packages", default=",".join(PACKAGES), help="refcheck packages to compile")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "compiled.json"))
    a = ap.parse_args(argv)
    packages = a.packages.split(",")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    with tempfile.TemporaryDirectory(prefix="refcheck-compiled-") as work:
        trees = copies(work, packages, env)
        paths = {side: imported_from(trees[side], packages, env) for side in ("pure", "compiled")}
        if paths["pure"]["from_so"] or paths["compiled"]["from_so"] != paths["compiled"]["modules"]:
            raise SystemExit(f"not the paths meant: {paths}")
        runs = []
        for r in range(a.rounds):
            for mode in a.modes.split(","):
                for side in ("pure", "compiled"):  # back to back, so that load hits both alike
                    runs.append({"round": r, "mode": mode, "side": side,
                                 **check(trees[side], a.path, mode, env)})
                    print(json.dumps(runs[-1]), file=sys.stderr)
    doc = {"commit": commit(), "python": platform.python_version(), "cython": _cython_version(),
           "packages": packages, "directives": DIRECTIVES,
           **{k: trees[k] for k in ("build_wall_s", "build_cpu_s", "extension_modules")},
           "imported": paths, "load_after": os.getloadavg()[0], "runs": runs}
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
    print(table(doc))
    same = all(len({x["digest"] for x in runs if x["mode"] == m}) == 1 for m in a.modes.split(","))
    return 0 if same else 1


def _cython_version() -> str:
    try:
        import Cython
    except ImportError:
        return "not installed"
    return Cython.__version__


def table(doc: dict) -> str:
    lines = [f"{doc['extension_modules']} modules compiled in {doc['build_wall_s']} s wall, "
             f"{doc['build_cpu_s']} s CPU (Cython {doc['cython']})",
             "| mode | pure CPU (median) | compiled CPU (median) | compiled / pure | digests |",
             "| --- | --- | --- | --- | --- |"]
    for mode in dict.fromkeys(x["mode"] for x in doc["runs"]):
        cpu = {s: statistics.median(x["cpu_s"] for x in doc["runs"] if x["mode"] == mode and x["side"] == s)
               for s in ("pure", "compiled")}
        digests = {x["digest"] for x in doc["runs"] if x["mode"] == mode}
        lines.append(f"| {mode} | {cpu['pure']:.2f} s | {cpu['compiled']:.2f} s | "
                     f"{cpu['compiled'] / cpu['pure']:.3f} | {'equal' if len(digests) == 1 else 'DIFFER'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
