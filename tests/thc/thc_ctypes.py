"""The CUDA build of the runtime for the THC tests: configuring it, probing for a GPU, and a
small ctypes binding to libTHC whose calls take the THCState first, as the C API does."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "runtime"
BUILD = ROOT / "build" / "runtime-cuda"
CUDA_ROOTS = ("/usr/local/cuda", "/opt/cuda")
# CMake's CUDA architectures for the build, e.g. "90-real;90-virtual" (the CMakeLists default when
# unset); benchmarks/thc_gpu_check.py sets the device's own.
ARCH_ENV = "THC_CUDA_ARCHITECTURES"
REALS = {"Float": ("Cuda", ctypes.c_float), "Double": ("CudaDouble", ctypes.c_double)}

P, I, L, D = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_ssize_t
R, A = "real", "accreal"

# Every signature without the leading THCState *, which Bound adds.
STORAGE_API = {
    "data": (P, [P]), "size": (D, [P]), "refcount": (I, [P]), "new": (P, []), "newWithSize": (P, [D]),
    "newClone": (P, [P]), "retain": (None, [P]), "free": (None, [P]), "resize": (None, [P, D]),
    "fill": (None, [P, R]), "set": (None, [P, D, R]), "get": (R, [P, D]),
    "copyFromHost": (None, [P, P, D]), "copyToHost": (None, [P, P, D]),
}
TENSOR_API = {
    "storage": (P, [P]), "storageOffset": (D, [P]), "nDimension": (I, [P]), "size": (L, [P, I]),
    "stride": (L, [P, I]), "refcount": (I, [P]), "data": (P, [P]),
    "new": (P, []), "newWithTensor": (P, [P]), "newWithStorageNd": (P, [P, D, I, P, P]),
    "newWithStorage1d": (P, [P, D, L, L]), "newWithStorage2d": (P, [P, D, L, L, L, L]),
    "newWithSizeNd": (P, [I, P]), "newWithSize1d": (P, [L]), "newWithSize2d": (P, [L, L]),
    "newWithSize3d": (P, [L, L, L]), "newWithSize4d": (P, [L, L, L, L]),
    "newClone": (P, [P]), "newContiguous": (P, [P]), "newSelect": (P, [P, I, L]),
    "newNarrow": (P, [P, I, L, L]), "newTranspose": (P, [P, I, I]),
    "retain": (None, [P]), "free": (None, [P]), "freeCopyTo": (None, [P, P]), "set": (None, [P, P]),
    "setStorageNd": (None, [P, P, D, I, P, P]), "setStorage1d": (None, [P, P, D, L, L]),
    "setStorage2d": (None, [P, P, D, L, L, L, L]), "resizeNd": (None, [P, I, P, P]),
    "resizeAs": (None, [P, P]), "resize1d": (None, [P, L]), "resize2d": (None, [P, L, L]),
    "resize3d": (None, [P, L, L, L]), "resize4d": (None, [P, L, L, L, L]),
    "narrow": (None, [P, P, I, L, L]), "select": (None, [P, P, I, L]), "transpose": (None, [P, P, I, I]),
    "isContiguous": (I, [P]), "isSameSizeAs": (I, [P, P]), "nElement": (D, [P]),
    "copy": (None, [P, P]), "copyFromHost": (None, [P, P, P]), "copyToHost": (None, [P, P, P]),
    "fill": (None, [P, R]), "zero": (None, [P]), "add": (None, [P, P, R]), "mul": (None, [P, P, R]),
    "cadd": (None, [P, P, R, P]), "cmul": (None, [P, P, P]), "sum": (A, [P]), "dot": (A, [P, P]),
}


class BuildError(RuntimeError):
    pass


def nvcc() -> str | None:
    for root in CUDA_ROOTS:
        candidate = os.path.join(root, "bin", "nvcc")
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("nvcc")


def build(build_dir: Path = BUILD) -> Path:
    """Configures the runtime with THC on and builds libTH and libTHC (incrementally)."""
    compiler = nvcc()
    if compiler is None:
        raise BuildError("no nvcc found")
    arch = [f"-DCMAKE_CUDA_ARCHITECTURES={os.environ[ARCH_ENV]}"] if os.environ.get(ARCH_ENV) else []
    for cmd in (["cmake", "-S", str(RUNTIME), "-B", str(build_dir), "-DTH_CUDA=ON", "-DTH_BUILD_TESTS=OFF",
                 f"-DCMAKE_CUDA_COMPILER={compiler}", *arch],
                ["cmake", "--build", str(build_dir), "-j2", "--target", "TH", "THC"]):
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError(f"{' '.join(cmd)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return build_dir


def load_libraries(build_dir: Path = BUILD) -> tuple[ctypes.CDLL, ctypes.CDLL]:
    """libTH and libTHC, with one libTH in the process whatever else the test run loaded.

    tests/runtime loads build/runtime/libTH.so. A second libTH from this build, in the same
    process (`pytest tests` on a GPU machine), splits it in two: glibc binds a library's calls
    to the first libTH in the global scope, and satisfies libTHC's and libthtest's DT_NEEDED
    `libTH.so` with the first object of that soname; so THLiveObjects read from one copy while
    the objects were counted in the other (seen on the first GPU run: every live count 0). The
    two are built from the same sources with the same flags, so the one already loaded serves
    both suites; otherwise this build's is loaded RTLD_LOCAL, out of the global scope, so that a
    libTH loaded after it still binds to itself.
    """
    th = loaded_libth() or ctypes.CDLL(str(build_dir / "libTH.so"), mode=getattr(os, "RTLD_LOCAL", 0))
    # By path, after libTH: its DT_NEEDED libTH.so is the object above (matched by soname).
    lib = ctypes.CDLL(str(build_dir / "libTHC.so"), mode=getattr(os, "RTLD_LOCAL", 0))
    return th, lib


def loaded_libth() -> ctypes.CDLL | None:
    """The libTH.so this process has already loaded (by soname), or None."""
    try:
        return ctypes.CDLL("libTH.so", mode=getattr(os, "RTLD_NOLOAD", 4))
    except OSError:
        return None


def gpu_missing_reason(build_dir: Path = BUILD) -> str | None:
    """Why GPU tests cannot run here, or None when a device is visible."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return "no GPU: nvidia-smi is not installed"
    done = subprocess.run([smi, "-L"], capture_output=True, text=True)
    if done.returncode != 0 or "GPU" not in done.stdout:
        return f"no GPU: `nvidia-smi -L` failed ({(done.stderr or done.stdout).strip()[:200]})"
    if (build_dir / "libTHC.so").exists():
        count = load_libraries(build_dir)[1].THCDeviceCount()
        if count == 0:
            return "no GPU: cudaGetDeviceCount reports 0 devices"
    return None


class Bound:
    """TH<CReal><Kind>_<name> with its signature declared and the state passed first."""

    def __init__(self, lib, prefix: str, api: dict, real_type, state: int):
        self._lib, self._prefix, self._api, self._real, self._state = lib, prefix, api, real_type, state

    def __getattr__(self, name: str):
        if name not in self._api:
            raise AttributeError(f"{self._prefix}{name} is not in the binding's API table")
        fn = getattr(self._lib, self._prefix + name)
        restype, argtypes = self._api[name]
        pick = {R: self._real, A: ctypes.c_double}
        fn.restype = pick.get(restype, restype)
        fn.argtypes = [P] + [pick.get(a, a) for a in argtypes]
        state = self._state

        def call(*args):
            return fn(state, *args)

        setattr(self, name, call)
        return call


class THC:
    """libTH and libTHC from one build, with one THCState on device 0."""

    def __init__(self, build_dir: Path = BUILD):
        self.th, self.lib = load_libraries(build_dir)
        self.th.THLiveObjects.restype = ctypes.c_long
        self.th.THLiveObjects.argtypes = [ctypes.c_int]
        self.lib.THCLiveDeviceBlocks.restype = ctypes.c_long
        self.lib.THCState_new.restype = P
        self.lib.THCState_new.argtypes = [ctypes.c_int]
        self.lib.THCState_free.argtypes = [P]
        self.state = self.lib.THCState_new(0)

    def close(self):
        self.lib.THCState_free(self.state)
        self.state = None

    def storage(self, real: str) -> Bound:
        creal, ctype = REALS[real]
        return Bound(self.lib, f"TH{creal}Storage_", STORAGE_API, ctype, self.state)

    def tensor(self, real: str) -> Bound:
        creal, ctype = REALS[real]
        return Bound(self.lib, f"TH{creal}Tensor_", TENSOR_API, ctype, self.state)

    def live(self) -> dict[str, int]:
        counts = {name: self.th.THLiveObjects(k) for name, k in (("storage", 0), ("tensor", 1), ("data", 2))}
        counts["device blocks"] = self.lib.THCLiveDeviceBlocks()
        return counts
