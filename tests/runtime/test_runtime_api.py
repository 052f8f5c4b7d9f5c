"""The ABI: libTH.so exports every function the issue lists, for every type, and nothing that
is not TH's; the headers are plain C that C++ can include with C linkage (the seed's rule)."""

import os
import shutil
import subprocess

import pytest

from th_ctypes import RUNTIME, TYPES

# An instrumented build exports the sanitizers' symbols and cannot link plain programs.
pytestmark = pytest.mark.skipif(bool(os.environ.get("TH_RUNTIME_SANITIZER")),
                                reason="checks the plain build's ABI")

GENERAL = ["THAlloc", "THRealloc", "THFree", "_THError", "THArgError", "THSetErrorHandler",
           "THSetDefaultErrorHandler", "THLiveObjects", "THLongStorage_newInferSize",
           "THDefaultAllocator"]
STORAGE = ["newWithSize", "newWithData", "newWithAllocator", "newWithDataAndAllocator", "retain",
           "free", "resize", "fill", "copy", "newLazyClone", "materialize"]
TENSOR = ["new", "newWithStorage", "newWithSize1d", "newWithSize2d", "newWithSize3d",
          "newWithSize4d", "newWithSize", "newClone", "newContiguous", "newSelect", "newNarrow",
          "newTranspose", "newUnfold", "newView", "newExpand", "retain", "free", "freeCopyTo",
          "setStorage", "resize", "narrow", "select", "transpose", "squeeze", "unsqueeze",
          "isContiguous", "nElement", "data", "fill", "zero", "copy", "add", "mul", "cadd",
          "cmul", "sum", "dot", "maskedFill", "indexSelect", "addmm"] + [f"copy{t}" for t in TYPES]
SPARSE = ["newIndices", "newValues", "toDense", "newWithTensorAndSize", "free", "retain"]


@pytest.fixture(scope="module")
def exported(th):
    if not shutil.which("nm"):
        pytest.skip("nm is not installed")
    out = subprocess.run(["nm", "-D", "--defined-only", str(th.build_dir / "libTH.so")],
                         capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def test_every_listed_function_is_exported_for_every_type(exported):
    expected = set(GENERAL)
    for t in TYPES:
        expected |= {f"TH{t}Storage_{n}" for n in STORAGE}
        expected |= {f"TH{t}Tensor_{n}" for n in TENSOR}
        expected |= {f"THS{t}Tensor_{n}" for n in SPARSE}
    assert sorted(expected - exported) == []


def test_only_th_names_are_exported(exported):
    # Internals (the copy-on-write context, static helpers) stay hidden.
    assert sorted(n for n in exported if not n.startswith(("TH", "_TH"))) == []
    assert not any(n.startswith("THCOWContext") for n in exported)


@pytest.mark.parametrize("compiler, flags", [
    ("cc", ["-x", "c", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"]),
    ("c++", ["-x", "c++", "-std=c++17", "-Wall", "-Wextra", "-Werror"]),
])
def test_headers_compile_and_link_as_c_and_cpp(th, tmp_path, compiler, flags):
    if not shutil.which(compiler):
        pytest.skip(f"{compiler} is not installed")
    src = tmp_path / "use.c"
    src.write_text(
        '#include "TH.h"\n'
        "int main(void) {\n"
        "  THFloatTensor *t = THFloatTensor_newWithSize2d(2, 3);\n"
        "  THFloatTensor_fill(t, 1.5f);\n"
        "  int ok = THFloatTensor_sum(t) == 9.0;\n"
        "  THFloatTensor_free(t);\n"
        "  return ok && THLiveObjects(TH_LIVE_DATA) == 0 ? 0 : 1;\n"
        "}\n")
    exe = tmp_path / "use"
    subprocess.run([compiler, *flags, "-I", str(RUNTIME / "TH"), str(src), "-x", "none",
                    "-L", str(th.build_dir), "-lTH", f"-Wl,-rpath,{th.build_dir}", "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    assert subprocess.run([str(exe)]).returncode == 0
