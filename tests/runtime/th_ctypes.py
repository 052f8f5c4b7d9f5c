"""A small ctypes binding to libTH for the runtime tests, plus the build that produces it.

Functions are looked up by their C names through one Family per type and kind
(`th.tensor("Float").newNarrow` is THFloatTensor_newNarrow) with signatures declared below.
Pointers to TH objects travel as plain integers; the tests free what they create.
"""

from __future__ import annotations

import ctypes
import os
import struct
import subprocess
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "runtime"
DEFAULT_BUILD = ROOT / "build" / "runtime"

TYPES = ("Byte", "Int", "Long", "Float", "Double")
REAL = {"Byte": ctypes.c_uint8, "Int": ctypes.c_int32, "Long": ctypes.c_int64,
        "Float": ctypes.c_float, "Double": ctypes.c_double}
ACCREAL = {"Byte": ctypes.c_int64, "Int": ctypes.c_int64, "Long": ctypes.c_int64,
           "Float": ctypes.c_double, "Double": ctypes.c_double}
DTYPE = {"Byte": np.uint8, "Int": np.int32, "Long": np.int64, "Float": np.float32,
         "Double": np.float64}

TH_LIVE_KINDS = {"storage": 0, "tensor": 1, "data": 2, "cow": 3}

P = ctypes.c_void_p
I = ctypes.c_int
L = ctypes.c_int64
D = ctypes.c_ssize_t  # ptrdiff_t
R = "real"
A = "accreal"

STORAGE_API = {
    "data": (P, [P]), "constData": (P, [P]), "size": (D, [P]), "refcount": (I, [P]),
    "isLazyClone": (I, [P]), "set": (None, [P, D, R]), "get": (R, [P, D]),
    "new": (P, []), "newWithSize": (P, [D]), "newWithSize1": (P, [R]), "newWithSize2": (P, [R, R]),
    "newWithSize3": (P, [R, R, R]), "newWithSize4": (P, [R, R, R, R]),
    "newWithAllocator": (P, [D, P, P]), "newWithData": (P, [P, D]),
    "newWithDataAndAllocator": (P, [P, D, P, P]), "newClone": (P, [P]), "newLazyClone": (P, [P]),
    "setFlag": (None, [P, ctypes.c_char]), "clearFlag": (None, [P, ctypes.c_char]),
    "retain": (None, [P]), "free": (None, [P]), "materialize": (None, [P]),
    "resize": (None, [P, D]), "fill": (None, [P, R]), "rawCopy": (None, [P, P]),
    "copy": (None, [P, P]), **{f"copy{t}": (None, [P, P]) for t in TYPES},
}

TENSOR_API = {
    "storage": (P, [P]), "storageOffset": (D, [P]), "nDimension": (I, [P]), "size": (L, [P, I]),
    "stride": (L, [P, I]), "refcount": (I, [P]), "data": (P, [P]), "constData": (P, [P]),
    "newSizeOf": (P, [P]), "newStrideOf": (P, [P]),
    "new": (P, []), "newWithTensor": (P, [P]), "newWithStorage": (P, [P, D, P, P]),
    "newWithStorage1d": (P, [P, D, L, L]), "newWithStorage2d": (P, [P, D, L, L, L, L]),
    "newWithSize": (P, [P, P]), "newWithSize1d": (P, [L]), "newWithSize2d": (P, [L, L]),
    "newWithSize3d": (P, [L, L, L]), "newWithSize4d": (P, [L, L, L, L]),
    "newClone": (P, [P]), "newLazyClone": (P, [P]), "newContiguous": (P, [P]),
    "newSelect": (P, [P, I, L]), "newNarrow": (P, [P, I, L, L]), "newTranspose": (P, [P, I, I]),
    "newUnfold": (P, [P, I, L, L]), "newView": (P, [P, P]), "newExpand": (P, [P, P]),
    "retain": (None, [P]), "free": (None, [P]), "freeCopyTo": (None, [P, P]),
    "set": (None, [P, P]), "setStorage": (None, [P, P, D, P, P]), "resize": (None, [P, P, P]),
    "resizeAs": (None, [P, P]), "resize1d": (None, [P, L]), "resize2d": (None, [P, L, L]),
    "resize3d": (None, [P, L, L, L]), "resize4d": (None, [P, L, L, L, L]),
    "narrow": (None, [P, P, I, L, L]), "select": (None, [P, P, I, L]),
    "transpose": (None, [P, P, I, I]), "unfold": (None, [P, P, I, L, L]),
    "squeeze": (None, [P, P]), "squeeze1d": (None, [P, P, I]), "unsqueeze": (None, [P, P, I]),
    "prepareWrite": (None, [P]),
    "isContiguous": (I, [P]), "isSameSizeAs": (I, [P, P]), "isSetTo": (I, [P, P]),
    "nElement": (D, [P]), "set1d": (None, [P, L, R]), "get1d": (R, [P, L]),
    "set2d": (None, [P, L, L, R]), "get2d": (R, [P, L, L]),
    "copy": (None, [P, P]), **{f"copy{t}": (None, [P, P]) for t in TYPES},
    "fill": (None, [P, R]), "zero": (None, [P]), "add": (None, [P, P, R]), "mul": (None, [P, P, R]),
    "cadd": (None, [P, P, R, P]), "cmul": (None, [P, P, P]), "sum": (A, [P]), "dot": (A, [P, P]),
    "maskedFill": (None, [P, P, R]), "indexSelect": (None, [P, P, I, P]),
    "addmm": (None, [P, R, P, R, P, P]),
}

SPARSE_API = {
    "newWithTensorAndSize": (P, [P, P, P]), "retain": (None, [P]), "free": (None, [P]),
    "nDimension": (I, [P]), "nDimensionI": (I, [P]), "nDimensionV": (I, [P]), "nnz": (L, [P]),
    "size": (L, [P, I]), "refcount": (I, [P]), "newSizeOf": (P, [P]),
    "shrinkNnz": (None, [P, L]), "newIndices": (P, [P]), "newValues": (P, [P]),
    "toDense": (None, [P, P]),
}

# Only what the tests load or run: THC, where configured, is another suite's business.
TARGETS = ("TH", "thtest", "cow_threads")

# Where the tests must not rebuild (the sanitizer runs point here at an instrumented build).
BUILD_ENV = "TH_RUNTIME_BUILD"


class BuildError(RuntimeError):
    pass


def build(build_dir: Path = DEFAULT_BUILD, *cmake_args: str) -> Path:
    """Configures and builds the runtime with CMake (incrementally) and returns build_dir."""
    for cmd in (["cmake", "-S", str(RUNTIME), "-B", str(build_dir), *cmake_args],
                ["cmake", "--build", str(build_dir), "-j2", "--target", *TARGETS]):
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")
    return build_dir


class THRaised(Exception):
    """A TH function called through TH.catch raised THError."""


class Family:
    """The C functions TH<Real><Kind>_<name> of one type, with their signatures declared."""

    def __init__(self, lib: ctypes.CDLL, prefix: str, api: dict, real: str):
        self._lib, self._prefix, self._api, self.real = lib, prefix, api, real

    def _type(self, t):
        if t == R:
            return REAL[self.real]
        if t == A:
            return ACCREAL[self.real]
        return t

    def __getattr__(self, name: str):
        if name not in self._api:
            raise AttributeError(f"{self._prefix}{name} is not in the binding's API table")
        fn = getattr(self._lib, self._prefix + name)
        restype, argtypes = self._api[name]
        fn.restype = self._type(restype)
        fn.argtypes = [self._type(a) for a in argtypes]
        setattr(self, name, fn)
        return fn


def loaded_libth() -> ctypes.CDLL | None:
    """The libTH.so this process has already loaded (by soname), or None."""
    try:
        return ctypes.CDLL("libTH.so", mode=getattr(os, "RTLD_NOLOAD", 4))
    except OSError:
        return None


class TH:
    """libTH (and the test helper library) loaded from one build directory."""

    def __init__(self, build_dir: Path):
        self.build_dir = Path(build_dir)
        mode = getattr(os, "RTLD_GLOBAL", 0)
        # One libTH per process: where tests/thc loaded the CUDA build's libTH (same sources and
        # flags) before this suite ran, a second copy would be split from libthtest, whose
        # DT_NEEDED libTH.so glibc satisfies with the object of that soname already loaded.
        self.lib = loaded_libth() or ctypes.CDLL(str(self.build_dir / "libTH.so"), mode=mode)
        self.test = ctypes.CDLL(str(self.build_dir / "libthtest.so"), mode=mode)
        self.lib.THLiveObjects.restype = ctypes.c_long
        self.lib.THLiveObjects.argtypes = [ctypes.c_int]
        self.test.THTest_call.restype = ctypes.c_int
        self.test.THTest_call.argtypes = [P, ctypes.POINTER(ctypes.c_ssize_t),
                                          ctypes.POINTER(ctypes.c_double),
                                          ctypes.POINTER(ctypes.c_ssize_t)]
        self.test.THTest_lastError.restype = ctypes.c_char_p
        self._families: dict[tuple[str, str], Family] = {}

    def _family(self, kind: str, real: str, api: dict) -> Family:
        key = (kind, real)
        if key not in self._families:
            prefix = f"THS{real}Tensor_" if kind == "sparse" else f"TH{real}{kind}_"
            self._families[key] = Family(self.lib, prefix, api, real)
        return self._families[key]

    def storage(self, real: str) -> Family:
        return self._family("Storage", real, STORAGE_API)

    def tensor(self, real: str) -> Family:
        return self._family("Tensor", real, TENSOR_API)

    def sparse(self, real: str) -> Family:
        return self._family("sparse", real, SPARSE_API)

    def live(self) -> dict[str, int]:
        return {name: self.lib.THLiveObjects(k) for name, k in TH_LIVE_KINDS.items()}

    # ---- errors ----

    def catch(self, fn, *args) -> int:
        """Calls fn(*args) under a handler that recovers from THError (see thtest.c for how the
        arguments reach it); returns fn's integer or pointer result, or raises THRaised with
        the message."""
        ints, fps = [], []
        for arg, kind in zip(args, fn.argtypes, strict=True):
            if kind is ctypes.c_double:
                fps.append(float(arg))
            elif kind is ctypes.c_float:
                bits = struct.unpack("<I", struct.pack("<f", float(arg)))[0]
                fps.append(struct.unpack("<d", struct.pack("<Q", bits))[0])
            else:
                ints.append(int(arg or 0))
        if len(ints) > 6 or len(fps) > 8:
            raise ValueError("THTest_call passes at most 6 integer and 8 floating arguments")
        packed_ints = (ctypes.c_ssize_t * 6)(*ints)
        packed_fps = (ctypes.c_double * 8)(*fps)
        result = ctypes.c_ssize_t(0)
        address = ctypes.cast(fn, P).value
        if self.test.THTest_call(address, packed_ints, packed_fps, ctypes.byref(result)):
            raise THRaised(self.test.THTest_lastError().decode())
        return result.value

    # ---- conversions ----

    def long_storage(self, values) -> int:
        """A new LongStorage holding values (owned by the caller)."""
        S = self.storage("Long")
        s = S.newWithSize(len(values))
        for i, v in enumerate(values):
            S.set(s, i, int(v))
        return s

    def storage_values(self, real: str, s: int) -> np.ndarray:
        S = self.storage(real)
        n = S.size(s)
        if n == 0:
            return np.zeros(0, dtype=DTYPE[real])
        buf = (REAL[real] * n).from_address(S.constData(s))
        return np.ctypeslib.as_array(buf).copy()

    def from_numpy(self, real: str, array) -> int:
        """A new contiguous tensor holding array's values (owned by the caller)."""
        array = np.ascontiguousarray(array, dtype=DTYPE[real])
        T = self.tensor(real)
        size = self.long_storage(array.shape)
        t = T.newWithSize(size, None)
        self.storage("Long").free(size)
        if array.size:
            ctypes.memmove(T.data(t), array.ctypes.data, array.nbytes)
        return t

    def shape(self, real: str, t: int) -> tuple[int, ...]:
        T = self.tensor(real)
        return tuple(T.size(t, d) for d in range(T.nDimension(t)))

    def strides(self, real: str, t: int) -> tuple[int, ...]:
        T = self.tensor(real)
        return tuple(T.stride(t, d) for d in range(T.nDimension(t)))

    def to_numpy(self, real: str, t: int) -> np.ndarray:
        """A copy of t's elements, read through its storage, offset and strides (so a view reads
        exactly what TH would)."""
        T = self.tensor(real)
        shape, strides = self.shape(real, t), self.strides(real, t)
        if T.nElement(t) == 0:
            return np.zeros(shape if shape else (0,), dtype=DTYPE[real])
        base = self.storage_values_view(real, T.storage(t))
        item = np.dtype(DTYPE[real]).itemsize
        view = np.lib.stride_tricks.as_strided(base[T.storageOffset(t):], shape=shape,
                                               strides=[s * item for s in strides])
        return view.copy()

    def storage_values_view(self, real: str, s: int) -> np.ndarray:
        S = self.storage(real)
        buf = (REAL[real] * S.size(s)).from_address(S.constData(s))
        return np.ctypeslib.as_array(buf)


class CountingAllocator:
    """An allocator written in Python, so tests can check that storages use the allocator and the context
    they were given for every allocation and release of their data."""

    MALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_ssize_t)
    FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)

    class Struct(ctypes.Structure):
        _fields_ = [("malloc", ctypes.c_void_p), ("free", ctypes.c_void_p)]

    def __init__(self):
        self.live: dict[int, ctypes.Array] = {}
        self.contexts: list[int] = []
        self._malloc = self.MALLOC(self.malloc)
        self._free = self.FREE(self.free)
        self.struct = self.Struct(ctypes.cast(self._malloc, ctypes.c_void_p),
                                  ctypes.cast(self._free, ctypes.c_void_p))
        self.context = ctypes.c_int(42)

    def malloc(self, ctx, size):
        self.contexts.append(ctx)
        block = ctypes.create_string_buffer(size)
        self.live[ctypes.addressof(block)] = block
        return ctypes.addressof(block)

    def free(self, ctx, ptr):
        self.contexts.append(ctx)
        del self.live[ptr]

    @property
    def pointer(self):
        return ctypes.addressof(self.struct)

    @property
    def context_pointer(self):
        return ctypes.addressof(self.context)


def load() -> TH:
    """Builds the runtime (unless TH_RUNTIME_BUILD names a ready build) and loads it."""
    if os.environ.get(BUILD_ENV):
        return TH(Path(os.environ[BUILD_ENV]))
    return TH(build())
