"""docs/first-run.md in small: a CMake project configured with the default (gcc) compiler and
checked with `refcheck check -p build src`, no flags of our own, and no tool error.

The project holds what torch7's lib/TH needed adapting for: a -fopenmp unit that includes
<omp.h>, a macro a configure probe defines that clang's headers contradict (USE_C11_ATOMICS),
and a file the build does not compile (the database does not list it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("cc") is None,
                                reason="needs cmake and a C compiler")

CMAKE = """\
cmake_minimum_required(VERSION 3.10)
project(firstrun C)
add_definitions(-DUSE_C11_ATOMICS=1)
add_library(demo STATIC src/count.c src/leak.c)
target_compile_options(demo PRIVATE -fopenmp)
"""

COUNT = """\
#include <omp.h>
#include <stdatomic.h>
int count(volatile int *a, int n) {
  int s = 0;
#pragma omp parallel for reduction(+:s)
  for (int i = 0; i < n; i++)
    s += omp_get_thread_num() + omp_get_num_threads();
#if defined(USE_C11_ATOMICS)
  atomic_fetch_add(a, 1);
#else
  __sync_fetch_and_add(a, 1);
#endif
  return s;
}
"""

LEAK = """\
typedef struct THFloatTensor THFloatTensor;
THFloatTensor *THFloatTensor_newContiguous(THFloatTensor *t);
void THFloatTensor_free(THFloatTensor *t);
int THFloatTensor_bad(THFloatTensor *x, int bad) {
  THFloatTensor *t = THFloatTensor_newContiguous(x);
  if (bad)
    return -1;
  THFloatTensor_free(t);
  return 0;
}
"""

# Built only on ARM: the database does not list it, and alone it lacks ptrdiff_t.
ARM = "void neon_add(float *x, ptrdiff_t n);\n"


def test_a_cmake_project_checks_with_no_flags_and_no_tool_error(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "CMakeLists.txt").write_text(CMAKE)
    (tmp_path / "src" / "count.c").write_text(COUNT)
    (tmp_path / "src" / "leak.c").write_text(LEAK)
    (tmp_path / "src" / "neon.c").write_text(ARM)
    (tmp_path / "refcheck.toml").write_text("")
    configure = subprocess.run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
                               cwd=tmp_path, capture_output=True, text=True, timeout=300)
    if configure.returncode != 0:
        pytest.skip(f"cmake could not configure a C project here: {configure.stderr[-500:]}")
    listed = [os.path.basename(e["file"]) for e in json.loads((tmp_path / "build" / "compile_commands.json").read_text())]
    assert sorted(listed) == ["count.c", "leak.c"]
    run = subprocess.run([sys.executable, "-m", "refcheck", "check", "-p", "build", "src", "-j1",
                          "--format", "json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr  # the leak; no tool error
    report = json.loads(run.stdout)
    assert [(f["file"], f["line"], f["rule"]) for f in report["findings"]] == [("src/leak.c", 7, "RC001")]
    assert [e for e in report["errors"] if "neon.c" not in e["file"]] == []
    assert any(e["file"] == "src/neon.c" and e["message"].startswith("not in the compile database")
               for e in report["errors"])
    assert "refcheck: note: -fopenmp: clang's builtin headers have no omp.h" in run.stderr
    assert "refcheck: note: -DUSE_C11_ATOMICS:" in run.stderr
