"""The dynamic witness: build the mutant under ASan+UBSan+LSan and run the runtime's own tests.

Reachability comes from one coverage run of the unmutated runtime: a mutant changes nothing
before its site, so the tests reach the site in the mutant exactly when they reach it in the
original. The tests find the library through TH_RUNTIME_BUILD (tests/runtime/th_ctypes.py),
and every test asserts that no storage, tensor or data block is left alive, so a leak shows as
a failing live-object check even where LSan stays quiet.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

from refcheck.validate.layout import Runtime, copy_tree
from refcheck.validate.mutants import Mutant

BUILD_ENV = "TH_RUNTIME_BUILD"
SANITIZER_ENV = "TH_RUNTIME_SANITIZER"
TARGETS = ("TH", "thtest")
SUITE_SECONDS = 600
# What each witness prints, most specific first: (marker in the output, evidence).
MARKERS = (
    ("attempting double-free", "double free (ASan)"),
    ("heap-use-after-free", "use after free (ASan)"),
    ("ERROR: AddressSanitizer", "memory error (ASan)"),
    ("ERROR: LeakSanitizer", "leak (LSan)"),
    ("objects still alive after the test", "live objects left (counters)"),
    ("runtime error:", "undefined behaviour (UBSan)"),
    ("Fatal Python error", "crash"),
)


def evidence(done: subprocess.CompletedProcess, markers: tuple) -> str:
    """What a test run's output shows of a bug: the first marker found, or a crash."""
    output = done.stdout + done.stderr
    for marker, what in markers:
        if marker in output:
            return what
    if done.returncode < 0:
        return f"crash (signal {-done.returncode})"
    return ""


class DynamicError(Exception):
    """The dynamic check cannot run here (no tests, no compiler, the unmutated suite fails)."""


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


class DynamicChecker:
    def __init__(self, runtime: Runtime, workdir: str, progress=None):
        tests = os.path.join(runtime.root, "tests", "runtime")
        binding = os.path.join(tests, "th_ctypes.py")
        if not os.path.isfile(binding) or BUILD_ENV not in open(binding, encoding="utf-8").read():
            raise DynamicError(f"{binding} does not exist or does not read {BUILD_ENV}")
        self.progress = progress or (lambda line: None)
        self.tree = copy_tree(runtime, os.path.join(workdir, "dynamic-tree"), with_tests=True)
        self.tests = os.path.join(self.tree.root, "tests", "runtime")
        self.asan = os.path.join(workdir, "build-asan")
        coverage = os.path.join(workdir, "build-coverage")
        self.progress("dynamic: coverage build and run of the unmutated runtime")
        self._build(coverage, "-DCMAKE_C_FLAGS=--coverage", "-DCMAKE_SHARED_LINKER_FLAGS=--coverage",
                    "-DCMAKE_EXE_LINKER_FLAGS=--coverage")
        # The export check would see gcov's own symbols in this build; it reaches no ownership code.
        done = self._suite(coverage, {}, ignore=("test_runtime_api.py",))
        if done.returncode != 0:
            raise DynamicError("the unmutated runtime's tests fail:\n" + (done.stdout + done.stderr)[-2000:])
        self.reached = self._executed_lines(coverage)
        self.progress("dynamic: ASan build of the unmutated runtime")
        self._build(self.asan, "-DTH_SANITIZE_ADDRESS=ON")
        self.asan_env = self._asan_env()
        done = self._suite(self.asan, self.asan_env)
        if done.returncode != 0 or self._evidence(done):
            raise DynamicError("the unmutated runtime is not clean under ASan:\n" + (done.stdout + done.stderr)[-2000:])

    # --- building and running ------------------------------------------------------------------

    def _build(self, build_dir: str, *flags: str) -> None:
        configure = ["cmake", "-S", self.tree.runtime_dir, "-B", build_dir, "-DTH_CUDA=OFF", *flags]
        for cmd in (configure, ["cmake", "--build", build_dir, "-j2", "--target", *TARGETS]):
            try:
                done = _run(cmd, timeout=900)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise DynamicError(f"{' '.join(cmd)}: {e}") from None
            if done.returncode != 0:
                raise DynamicError(f"{' '.join(cmd)} failed:\n{(done.stdout + done.stderr)[-2000:]}")

    def _asan_env(self) -> dict:
        compiler = "cc"
        with open(os.path.join(self.asan, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("CMAKE_C_COMPILER:"):
                    compiler = line.split("=", 1)[1].strip()
        libasan = _run([compiler, "-print-file-name=libasan.so"]).stdout.strip()
        if not os.path.isabs(libasan):
            raise DynamicError(f"{compiler} has no libasan.so to preload")
        return {
            SANITIZER_ENV: "address", "LD_PRELOAD": libasan, "PYTHONMALLOC": "malloc",
            "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
            "LSAN_OPTIONS": f"suppressions={os.path.join(self.tests, 'lsan-python.supp')}:print_suppressions=0",
            "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1", "PYTHONDONTWRITEBYTECODE": "1",
        }

    def _suite(self, build_dir: str, extra_env: dict, ignore: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
        env = {**os.environ, **extra_env, BUILD_ENV: build_dir}
        # --capture=sys: with fd capture, an ASan report printed just before the process dies
        # would go to pytest's capture file and never be shown.
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "--capture=sys", "-p", "no:cacheprovider", self.tests]
        for name in ("test_runtime_sanitizers.py", *ignore):
            cmd += ["--ignore", os.path.join(self.tests, name)]
        try:
            return _run(cmd, cwd=self.tree.root, env=env, timeout=SUITE_SECONDS)
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            return subprocess.CompletedProcess(cmd, -9, out + "\n(timed out)", "")

    def _executed_lines(self, build_dir: str) -> set[tuple[str, int]]:
        """(file, line) of every line the unmutated suite executed, from gcov's JSON."""
        reached: set[tuple[str, int]] = set()
        for gcda in glob.glob(os.path.join(build_dir, "**", "*.gcda"), recursive=True):
            done = _run(["gcov", "--json-format", "--stdout", "-o", os.path.dirname(gcda), gcda],
                        cwd=os.path.dirname(gcda))
            for line in done.stdout.splitlines():
                if not line.strip().startswith("{"):
                    continue
                data = json.loads(line)
                cwd = data.get("current_working_directory", "")
                for f in data.get("files", []):
                    rel = self.tree.relative(os.path.join(cwd, f["file"]))
                    reached.update((rel, ln["line_number"]) for ln in f["lines"] if ln["count"] > 0)
        if not reached:
            raise DynamicError("gcov found no executed line: is gcov the compiler's own?")
        return reached

    @staticmethod
    def _evidence(done: subprocess.CompletedProcess) -> str:
        return evidence(done, MARKERS)

    # --- one mutant ---------------------------------------------------------------------------

    @staticmethod
    def applies(mutant: Mutant) -> bool:
        return mutant.kind != "rename-new" and mutant.file.startswith("runtime/TH/")

    def check(self, mutant: Mutant, sources: dict[str, bytes]) -> tuple[str, str]:
        if mutant.kind == "rename-new":
            return "skipped", "a naming rule: nothing to observe at run time"
        if not mutant.file.startswith("runtime/TH/"):
            return "skipped", "only the CPU library (runtime/TH) is built and tested here"
        if (mutant.file, mutant.line) not in self.reached:
            return "unreached", "no runtime test executes this line"
        mutated = mutant.apply(sources)
        try:
            for name, data in mutated.items():
                with open(self.tree.path(name), "wb") as f:
                    f.write(data)
            try:
                self._build(self.asan)
            except DynamicError as e:
                return "skipped", f"the mutant does not build: {str(e)[-300:]}"
            done = self._suite(self.asan, self.asan_env)
        finally:
            for name in mutated:
                with open(self.tree.path(name), "wb") as f:
                    f.write(sources[name])
        evidence = self._evidence(done)
        if evidence:
            return "confirmed", evidence
        if done.returncode != 0:
            failed = [ln for ln in done.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
            tail = " ".join((done.stdout + done.stderr).split())[-300:]
            return "clean", (f"tests failed (exit {done.returncode}) with no ownership symptom: "
                             + (failed[0][:200] if failed else tail))
        return "clean", "reached; every test passed with no sanitizer report and no live object"
