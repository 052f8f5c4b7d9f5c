"""The dynamic witness for THC mutants: build each mutated libTHC with nvcc (all of them up front,
-j at a time, each in a tree of its own) and run THC's GPU tests (tests/thc/test_thc_gpu.py) on it,
plainly first and, when that shows nothing, under compute-sanitizer's memcheck with leak checking.

Every GPU test asserts that no storage, tensor, host block or device block is left alive, so a
dropped release shows as a failing live-object check and a doubled one as a count below the
baseline (or glibc's double-free abort); compute-sanitizer adds device-side leaks and invalid
accesses. Needs nvcc and a visible GPU: without either the checker refuses to start with the
reason, and every THC mutant is reported "skipped" with it.

Reachability is not measured for THC (no coverage build of nvcc's host code), so a mutant that ran
clean may be one the tests never reach; the evidence says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from refcheck.validate.dynamic import DynamicError, evidence
from refcheck.validate.layout import Runtime, copy_tree
from refcheck.validate.mutants import Mutant

ARCH_ENV = "THC_CUDA_ARCHITECTURES"  # read by tests/thc/thc_ctypes.py too
UNDER_SANITIZER = "THC_UNDER_SANITIZER"  # tests/thc/test_thc_gpu.py: skip the nested sanitizer runs
SUITE_SECONDS = 900
UNSUPPORTED = "Device not supported"  # compute-sanitizer on a GPU it cannot instrument
CUDA_ROOTS = ("/usr/local/cuda", "/opt/cuda")
# What each witness prints, most specific first: (marker in the output, evidence).
MARKERS = (
    ("double free", "double free (glibc)"),
    ("free(): invalid", "invalid free (glibc)"),
    ("Invalid __global__", "invalid device access (compute-sanitizer)"),
    ("Invalid __device__", "invalid device access (compute-sanitizer)"),
    ("Leaked ", "device memory leaked (compute-sanitizer)"),
    ("objects still alive after the test", "live objects changed (counters)"),
    ("Fatal Python error", "crash"),
)


def cuda_tool(name: str) -> str | None:
    for root in CUDA_ROOTS:
        for sub in ("bin", "compute-sanitizer"):
            candidate = os.path.join(root, sub, name)
            if os.access(candidate, os.X_OK):
                return candidate
    return shutil.which(name)


def gpu_missing_reason() -> str | None:
    """Why no GPU can run the THC tests here, or None; cheap (no build)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return "no GPU: nvidia-smi is not installed"
    try:
        done = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"no GPU: nvidia-smi -L: {e}"
    if done.returncode != 0 or "GPU" not in done.stdout:
        return f"no GPU: `nvidia-smi -L` failed ({(done.stderr or done.stdout).strip()[:200]})"
    return None


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


class THCDynamicChecker:
    name = "THC"

    def __init__(self, runtime: Runtime, workdir: str, progress=None, jobs: int = 1):
        self.progress = progress or (lambda line: None)
        tests = os.path.join(runtime.root, "tests", "thc", "test_thc_gpu.py")
        if not os.path.isfile(tests):
            raise DynamicError(f"{tests} does not exist")
        self.nvcc = cuda_tool("nvcc")
        if self.nvcc is None:
            raise DynamicError("no nvcc (looked in /usr/local/cuda, /opt/cuda, PATH): THC cannot be built")
        reason = gpu_missing_reason()
        if reason:
            raise DynamicError(reason)
        self.runtime, self.workdir, self.jobs = runtime, workdir, jobs
        self.sanitizer = cuda_tool("compute-sanitizer")
        self.prebuilt: dict[str, Runtime | str] = {}  # mutant id -> its built tree, or why it did not build
        tree = self._tree("thc-original")
        self.progress("dynamic (THC): build and GPU run of the unmutated runtime")
        self._build(tree)
        done = self._suite(tree, sanitized=bool(self.sanitizer))
        if self.sanitizer and UNSUPPORTED in done.stdout + done.stderr:
            # compute-sanitizer refuses some virtualised GPUs (seen under gVisor): counters alone then.
            self.progress("dynamic (THC): compute-sanitizer does not support this device; counters only")
            self.sanitizer = None
            done = self._suite(tree, sanitized=False)
        if done.returncode != 0 or self._evidence(done):
            raise DynamicError("the unmutated THC tests fail on this GPU:\n" + (done.stdout + done.stderr)[-2000:])
        if " passed" not in done.stdout:
            raise DynamicError("the unmutated THC tests ran nothing (skipped?):\n" + done.stdout[-1000:])

    def _tree(self, name: str) -> Runtime:
        return copy_tree(self.runtime, os.path.join(self.workdir, name), tests=("thc",))

    @staticmethod
    def _build_dir(tree: Runtime) -> str:
        # tests/thc/thc_ctypes.py builds and loads <root>/build/runtime-cuda: each tree's own.
        return os.path.join(tree.root, "build", "runtime-cuda")

    def _build(self, tree: Runtime) -> None:
        arch = [f"-DCMAKE_CUDA_ARCHITECTURES={os.environ[ARCH_ENV]}"] if os.environ.get(ARCH_ENV) else []
        build_dir = self._build_dir(tree)
        # THC_WERROR=OFF: a mutant is broken code on purpose, and its early returns leave code
        # unreachable, which nvcc warns about (two THC mutants did not build on the first GPU run).
        configure = ["cmake", "-S", tree.runtime_dir, "-B", build_dir, "-DTH_CUDA=ON",
                     "-DTH_BUILD_TESTS=OFF", "-DTHC_WERROR=OFF", f"-DCMAKE_CUDA_COMPILER={self.nvcc}", *arch]
        for cmd in (configure, ["cmake", "--build", build_dir, "-j2", "--target", "TH", "THC"]):
            try:
                done = _run(cmd, timeout=1800)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise DynamicError(f"{' '.join(cmd)}: {e}") from None
            if done.returncode != 0:
                raise DynamicError(f"{' '.join(cmd)} failed:\n{(done.stdout + done.stderr)[-2000:]}")

    def prepare(self, mutants: list[Mutant], sources: dict[str, bytes]) -> None:
        """Builds every mutant in a tree of its own, `jobs` builds at a time: nvcc is the slow part,
        the GPU runs are short, so building them all up front keeps the GPU machine's time short."""
        from concurrent.futures import ThreadPoolExecutor

        def one(item):
            i, mutant = item
            tree = self._tree(f"thc-mutant-{i}")
            for name, data in mutant.apply(sources).items():
                with open(tree.path(name), "wb") as f:
                    f.write(data)
            try:
                self._build(tree)
            except DynamicError as e:
                return mutant.id, f"the mutant does not build: {str(e)[-300:]}"
            return mutant.id, tree

        self.progress(f"dynamic (THC): building {len(mutants)} mutants, {self.jobs} at a time")
        with ThreadPoolExecutor(max(1, self.jobs)) as pool:
            self.prebuilt.update(pool.map(one, enumerate(mutants)))

    def _suite(self, tree: Runtime, sanitized: bool) -> subprocess.CompletedProcess:
        tests = os.path.join(tree.root, "tests", "thc", "test_thc_gpu.py")
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "--capture=sys", "-p", "no:cacheprovider", tests,
               "-k", "not sanitizer and not many_blocks"]
        if sanitized:
            cmd = [self.sanitizer, "--tool", "memcheck", "--leak-check", "full", "--error-exitcode", "99", *cmd]
        env = {**os.environ, UNDER_SANITIZER: "1", "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            return _run(cmd, cwd=tree.root, env=env, timeout=SUITE_SECONDS)
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            return subprocess.CompletedProcess(cmd, -9, out + "\n(timed out)", "")

    @staticmethod
    def _evidence(done: subprocess.CompletedProcess) -> str:
        found = evidence(done, MARKERS)
        if not found and done.returncode == 99:
            return "error reported (compute-sanitizer)"
        return found

    @staticmethod
    def applies(mutant: Mutant) -> bool:
        return mutant.kind != "rename-new" and mutant.file.startswith("runtime/THC/")

    def check(self, mutant: Mutant, sources: dict[str, bytes]) -> tuple[str, str]:
        if mutant.id not in self.prebuilt:
            self.prepare([mutant], sources)
        tree = self.prebuilt[mutant.id]
        if isinstance(tree, str):
            return "skipped", tree
        # The plain run first (the counters and glibc see most bugs, fast); memcheck only if it is clean.
        done = self._suite(tree, sanitized=False)
        if not self._evidence(done) and self.sanitizer:
            done = self._suite(tree, sanitized=True)
        evidence = self._evidence(done)
        if evidence:
            return "confirmed", evidence
        if done.returncode != 0:
            tail = " ".join((done.stdout + done.stderr).split())[-300:]
            return "clean", f"tests failed (exit {done.returncode}) with no ownership symptom: {tail}"
        return "clean", ("ran every GPU test with no sanitizer report and no live object "
                         "(THC reachability is not measured: the line may be unreached)")
