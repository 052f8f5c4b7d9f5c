"""The CUDA build compiles and links wherever nvcc exists, GPU or not, and libTHC.so exports
exactly the THC API its headers declare, for both types."""

import os
import re
import shutil
import subprocess

import pytest

from thc_ctypes import BUILD, REALS, RUNTIME, BuildError, build, nvcc

pytestmark = pytest.mark.skipif(nvcc() is None, reason="no nvcc (looked in /usr/local/cuda, /opt/cuda, PATH): "
                                                       "the CUDA build is not tested here")

THC = RUNTIME / "THC"
DECL = re.compile(r"TH_API\b[^;(]*?\b(THC\w*_\(\w+\)|THC\w+)\s*\(", re.S)


def declared_api() -> set[str]:
    """Every TH_API function in THC's headers, generic names expanded for each type."""
    names = set()
    for header in sorted(THC.glob("*.h")) + sorted((THC / "generic").glob("*.h")):
        for name in DECL.findall(header.read_text()):
            generic = re.fullmatch(r"(THC\w*)_\((\w+)\)", name)
            if generic:
                kind = generic.group(1)[len("THC"):]  # Storage, Tensor
                names |= {f"TH{creal}{kind}_{generic.group(2)}" for creal, _ in REALS.values()}
            else:
                names.add(name)
    return names


@pytest.fixture(scope="module")
def libthc():
    try:
        return build() / "libTHC.so"
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)


def exported(lib) -> set[str]:
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in out.stdout.splitlines() if line.split()[1:2] in (["T"], ["D"], ["B"])}


def test_headers_declare_the_issue_api():
    api = declared_api()
    for creal in ("Cuda", "CudaDouble"):
        for fn in ("newContiguous", "newNarrow", "newSelect", "newTranspose", "newClone", "retain", "free",
                   "freeCopyTo", "setStorageNd", "resizeNd", "copy", "copyFromHost", "copyToHost",
                   "fill", "zero", "add", "mul", "cadd", "cmul", "sum", "dot"):
            assert f"TH{creal}Tensor_{fn}" in api
    assert {"THCState_new", "THCState_free", "THCudaBlock_new", "THCudaBlock_free"} <= api


def test_libthc_exports_exactly_the_declared_api(libthc):
    symbols = {s for s in exported(libthc) if s.startswith("TH")}
    api = declared_api()
    assert api - symbols == set(), "declared but not exported"
    # The two allocators are data (declared TH_API variables), not functions.
    assert symbols - api - {"THCDefaultDeviceAllocator", "THCPoolDeviceAllocator"} == set(), \
        "exported but not declared"


def test_libthc_links_against_th_and_cudart(libthc):
    needed = subprocess.run(["readelf", "-d", str(libthc)], capture_output=True, text=True, check=True).stdout
    assert "libTH.so" in needed
    assert "libcudart" in needed


def configured_arch() -> str:
    """The compute capability the build targets ("90" unless THC_CUDA_ARCHITECTURES chose another)."""
    for line in (BUILD / "CMakeCache.txt").read_text().splitlines():
        if line.startswith("CMAKE_CUDA_ARCHITECTURES:"):
            return line.split("=", 1)[1].split(";")[0].split("-")[0]
    return "90"


def test_device_code_is_machine_code_with_ptx(libthc):
    cc = configured_arch()
    tool = shutil.which("cuobjdump") or ("/usr/local/cuda/bin/cuobjdump"
                                         if os.path.exists("/usr/local/cuda/bin/cuobjdump") else None)
    if tool is None:  # the toolkit here lacks cuobjdump: check what CMake asked nvcc for
        flags = (BUILD / "THC" / "CMakeFiles" / "THC.dir" / "flags.make").read_text()
        assert f"arch=compute_{cc},code=[sm_{cc}]" in flags and f"arch=compute_{cc},code=[compute_{cc}]" in flags
        return
    listing = subprocess.run([tool, "--list-elf", "--list-ptx", str(libthc)], capture_output=True, text=True).stdout
    assert f"sm_{cc}" in listing and ".ptx" in listing
