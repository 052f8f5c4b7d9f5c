"""Compile databases as CMake writes them: nvcc command lines translated to clang's, and real
CMake builds (C, and CUDA where nvcc exists) of a small project and of our own runtime."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from refcheck.workspace.compdb import is_nvcc, load, nvcc_args

REPO = Path(__file__).resolve().parents[2]
NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")


def test_nvcc_options_become_clang_options(tmp_path):
    (tmp_path / "inc.rsp").write_text('-I"sub dir" -isystem=/opt/cuda/include -DFROM_RSP=1 --foo\n')
    dropped: list[str] = []
    argv = ["/usr/local/cuda/bin/nvcc", "-forward-unknown-to-host-compiler", "-DA", "-D", "B=2",
            "--define-macro=C", "-UD", "--options-file", "inc.rsp", "-Irel", "--include-path", "/abs",
            "-ccbin", "/usr/bin/g++-12", "-gencode", "arch=compute_90,code=sm_90",
            "--generate-code=arch=compute_80,code=[sm_80]", "-arch=sm_90", "--expt-relaxed-constexpr",
            "-Xcompiler=-fPIC,-DHOST=1", "-Xcompiler", "-Wall", "-Werror=all-warnings",
            "-Xptxas", "-v", "--std", "c++17", "-x", "cu", "-O3", "-fno-strict-aliasing",
            "@more.rsp", "--made-up-option", "-c", "k.cu", "-o", "k.o"]
    assert is_nvcc(argv) and not is_nvcc(["/usr/bin/cc", "-c", "a.c"])
    args = nvcc_args(argv, str(tmp_path), dropped)
    assert args == [
        "-D", "A", "-D", "B=2", "-D", "C", "-U", "D",
        "-I", str(tmp_path / "sub dir"), "-isystem", "/opt/cuda/include", "-D", "FROM_RSP=1",
        "-I", str(tmp_path / "rel"), "-I", "/abs", "-std=c++17", "-x", "cuda",
        # host flags, -Xcompiler's and forwarded unknown ones, through the clang filter
        "-fPIC", "-DHOST=1", "-Wall", "-fno-strict-aliasing"]
    assert dropped == ["--foo (an nvcc option refcheck does not translate) (in inc.rsp)",
                       "@more.rsp (response file: not read)",
                       "--made-up-option (an nvcc option refcheck does not translate)"]


def test_an_unreadable_options_file_is_dropped_with_the_reason(tmp_path):
    dropped: list[str] = []
    assert nvcc_args(["nvcc", "--options-file=missing.rsp", "-DX", "k.cu"], str(tmp_path), dropped) == ["-D", "X"]
    assert len(dropped) == 1 and dropped[0].startswith("--options-file missing.rsp (cannot read")


def test_the_database_records_what_it_did_not_translate(tmp_path):
    db = tmp_path / "compile_commands.json"
    db.write_text(json.dumps([{"directory": str(tmp_path), "file": "k.cu",
                               "command": "nvcc --bogus -DX -x cu -c k.cu"}]))
    loaded = load(str(db))
    key = str(tmp_path / "k.cu")
    assert loaded.units[key] == ["-D", "X", "-x", "cuda"]
    assert loaded.dropped[key] == ["--bogus (an nvcc option refcheck does not translate)"]


CMAKELISTS = """
cmake_minimum_required(VERSION 3.18)
project(Demo LANGUAGES C {cuda})
add_library(demo_c STATIC src/a.c)
target_include_directories(demo_c PRIVATE inc)
target_compile_definitions(demo_c PRIVATE RELEASE_IT)
{cuda_target}
"""
CUDA_TARGET = """
add_library(demo_cu STATIC src/k.cu)
target_include_directories(demo_cu PRIVATE inc)
target_compile_definitions(demo_cu PRIVATE RELEASE_IT)
set_target_properties(demo_cu PROPERTIES CUDA_STANDARD 17)
target_compile_options(demo_cu PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-fPIC>)
"""
TH = """
typedef struct THFloatTensor THFloatTensor;
THFloatTensor *THFloatTensor_new(void);
void THFloatTensor_free(THFloatTensor *t);
void use(THFloatTensor *t);
"""
# Clean only when the build's include directory and definition both reach the parser; the
# leak in `leaks` must be found either way.
BODY = """
#include "th.h"
void f(void) {
  THFloatTensor *t = THFloatTensor_new();
  use(t);
#ifdef RELEASE_IT
  THFloatTensor_free(t);
#endif
}
void leaks(void) {
  THFloatTensor *t = THFloatTensor_new();
  use(t);
}
"""
KERNEL = """
__global__ void zero(float *p) { p[threadIdx.x] = 0; }
"""


def _cmake(src: Path, build: Path, *extra: str) -> None:
    p = subprocess.run(["cmake", "-S", str(src), "-B", str(build), "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", *extra],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr


def _refcheck(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "refcheck", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


@needs_cmake
@pytest.mark.parametrize("cuda", [False, pytest.param(True, marks=pytest.mark.skipif(NVCC is None, reason="needs nvcc"))])
def test_a_cmake_database_gives_each_unit_its_flags(tmp_path, cuda):
    (tmp_path / "refcheck.toml").write_text("")
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "th.h").write_text(TH)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.c").write_text(BODY)
    units = ["src/a.c"]
    extra = []
    if cuda:
        (tmp_path / "src" / "k.cu").write_text(BODY + KERNEL)
        units.append("src/k.cu")
        extra = [f"-DCMAKE_CUDA_COMPILER={NVCC}"]
    (tmp_path / "CMakeLists.txt").write_text(CMAKELISTS.format(cuda="CUDA" if cuda else "",
                                                               cuda_target=CUDA_TARGET if cuda else ""))
    _cmake(tmp_path, tmp_path / "build", *extra)
    entries = json.loads((tmp_path / "build" / "compile_commands.json").read_text())
    assert sorted(os.path.relpath(e["file"], tmp_path) for e in entries) == sorted(units)
    if cuda:
        (cu,) = [e for e in entries if e["file"].endswith(".cu")]
        assert "nvcc" in cu["command"] and "-x cu" in cu["command"]
    p = _refcheck("check", "-p", "build", "--no-cache", "--format", "json", cwd=tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    report = json.loads(p.stdout)
    assert report["errors"] == []
    found = sorted((f["file"], f["function"], f["rule"]) for f in report["findings"])
    assert found == sorted((u, "leaks", "RC001") for u in units)


@needs_cmake
@pytest.mark.parametrize("cuda", [False, pytest.param(True, marks=pytest.mark.skipif(NVCC is None, reason="needs nvcc"))])
def test_our_runtime_checks_clean_from_its_cmake_build(tmp_path, cuda):
    extra = ["-DTH_BUILD_TESTS=OFF"] + ([f"-DCMAKE_CUDA_COMPILER={NVCC}", "-DTH_CUDA=ON"] if cuda else ["-DTH_CUDA=OFF"])
    _cmake(REPO / "runtime", tmp_path / "build", *extra)
    entries = json.loads((tmp_path / "build" / "compile_commands.json").read_text())
    assert any(e["file"].endswith(".cu") for e in entries) == cuda
    p = _refcheck("check", "-p", str(tmp_path / "build"), "--cache-dir", str(tmp_path / "cache"), cwd=REPO)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stderr.startswith(f"refcheck: 0 findings in {len(entries)} files"), p.stderr
