"""Building THC and the THC benchmark, and asking what GPU (if any) is here: shared by
benchmarks/thc_bandwidth.py and benchmarks/thc_gpu_check.py. Needs nvcc; never a GPU."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from refcheck.validate.thc_dynamic import CUDA_ROOTS, cuda_tool  # noqa: F401 - one toolkit lookup for both

REPO = Path(__file__).resolve().parents[1]
RUNTIME = REPO / "runtime"
BUILD = REPO / "build" / "runtime-cuda"
BENCH_SOURCE = REPO / "benchmarks" / "thc_bandwidth.cu"
# The exit status thc_bandwidth (and every THC script here) gives when there is no CUDA device.
EXIT_NO_DEVICE = 3
ARCH_ENV = "THC_CUDA_ARCHITECTURES"  # the same variable tests/thc/thc_ctypes.py reads


class BuildError(RuntimeError):
    pass


def gpu_compute_capability() -> str | None:
    """'90' for an sm_90 device, from nvidia-smi; None without a driver or a GPU."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    done = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True, text=True)
    if done.returncode != 0 or not done.stdout.strip():
        return None
    return done.stdout.splitlines()[0].strip().replace(".", "")


def architectures() -> str:
    """CMake's CUDA architectures: $THC_CUDA_ARCHITECTURES, else the device's own SASS plus its PTX,
    else (no GPU here) sm_90 + compute_90 as runtime/THC/CMakeLists.txt defaults to."""
    if os.environ.get(ARCH_ENV):
        return os.environ[ARCH_ENV]
    cc = gpu_compute_capability()
    return f"{cc}-real;{cc}-virtual" if cc else "90-real;90-virtual"


def _run(cmd: list[str], what: str, timeout: int = 1800) -> None:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BuildError(f"{what}: {' '.join(cmd)}: {e}") from None
    if done.returncode != 0:
        raise BuildError(f"{what} failed: {' '.join(cmd)}\n{(done.stdout + done.stderr)[-4000:]}")


def build_runtime(build_dir: Path = BUILD, arch: str | None = None) -> Path:
    """libTH.so and libTHC.so in build_dir (incremental), for `arch` (default: architectures())."""
    nvcc = cuda_tool("nvcc")
    if nvcc is None:
        raise BuildError("no nvcc (looked in /usr/local/cuda, /opt/cuda, PATH)")
    _run(["cmake", "-S", str(RUNTIME), "-B", str(build_dir), "-DTH_CUDA=ON", "-DTH_BUILD_TESTS=OFF",
          f"-DCMAKE_CUDA_COMPILER={nvcc}", f"-DCMAKE_CUDA_ARCHITECTURES={arch or architectures()}"], "configuring THC")
    _run(["cmake", "--build", str(build_dir), "-j2", "--target", "TH", "THC"], "building THC")
    return build_dir


def build_benchmark(build_dir: Path = BUILD, arch: str | None = None) -> Path:
    """build_dir/thc_bandwidth, linked against that build's libTH and libTHC (rpath set)."""
    build_runtime(build_dir, arch)
    nvcc = cuda_tool("nvcc")
    exe = build_dir / "thc_bandwidth"
    gencode = []
    for a in (arch or architectures()).split(";"):
        cc, _, kind = a.partition("-")
        gencode += ["-gencode", f"arch=compute_{cc},code={'compute' if kind == 'virtual' else 'sm'}_{cc}"]
    _run([nvcc, "-O3", "-std=c++17", *gencode, "-Werror=all-warnings", "-Xcompiler=-Wall,-Wextra,-Werror",
          f"-I{RUNTIME / 'THC'}", f"-I{RUNTIME / 'TH'}", str(BENCH_SOURCE), "-o", str(exe),
          f"-L{build_dir}", "-lTHC", "-lTH", f"-Xlinker=-rpath,{build_dir}"], "building thc_bandwidth")
    return exe
