"""`refcheck doctor`, and what `check` does when the builtin headers are missing or mismatched.

Each case runs refcheck in a process of its own: the headers are looked up once per process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from refcheck.frontend import headers


def _refcheck(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != headers.ENV_VAR}
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "refcheck", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=300)


def _fields(stdout: str) -> dict[str, str]:
    out = {}
    for line in stdout.splitlines():
        label, sep, value = line.partition(": ")
        if sep:
            out[label.strip().rstrip(":")] = value.strip()
    return out


def test_doctor_reports_a_working_setup(tmp_path):
    p = _refcheck("doctor", cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    f = _fields(p.stdout)
    lib = headers.libclang_info()
    assert lib.version in f["libclang"] and lib.path in f["libclang"]
    found = headers.find_builtin_headers()
    assert f["resource dir"].startswith(found.path) and "clang-tidy wheel" in f["resource dir"]
    assert f["<stddef.h>"] == f["<stdarg.h>"] == f["<stdatomic.h>"] == "parses"
    assert f["version pairing"] == f"libclang {lib.major}, builtin headers {lib.major}: match"
    assert f["config"].startswith("none found") and f["cache dir"].endswith(".refcheck_cache")
    assert sys.version.split()[0] in f["python"]
    assert p.stdout.rstrip().endswith("no problems found")


def test_doctor_names_the_config_and_the_clang_arguments_of_a_file(tmp_path):
    (tmp_path / "refcheck.toml").write_text('include-dirs = ["inc"]\ndefines = ["A=1"]\ncache-dir = "c"\n')
    (tmp_path / "a.cu").write_text("int f(void) { return 0; }\n")
    p = _refcheck("doctor", "a.cu", "-D", "B", cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    f = _fields(p.stdout)
    assert f["config"] == str(tmp_path / "refcheck.toml")
    assert f["cache dir"] == str(tmp_path / "c")
    args = f["clang args"].split()
    assert args[:3] == ["-x", "cuda", "--cuda-host-only"]
    assert f"-I{tmp_path / 'inc'}" in args and "-DA=1" in args and "-DB" in args
    assert "-resource-dir" in args


def test_doctor_fails_on_an_override_that_is_no_resource_dir(tmp_path):
    p = _refcheck("doctor", cwd=tmp_path, env={headers.ENV_VAR: str(tmp_path)})
    assert p.returncode == 1, p.stdout + p.stderr
    assert f"problem: {headers.ENV_VAR}={tmp_path} has no include/stddef.h" in p.stdout
    assert "1 problem found" in p.stdout


def test_doctor_warns_about_headers_of_another_version_and_fails_when_they_do_not_parse(tmp_path):
    major = headers.libclang_info().major
    fake = tmp_path / "clang" / str(major - 1)
    (fake / "include").mkdir(parents=True)
    (fake / "include" / "stddef.h").write_text("typedef unsigned long size_t;\n")
    p = _refcheck("doctor", cwd=tmp_path, env={headers.ENV_VAR: str(fake)})
    assert p.returncode == 1, p.stdout + p.stderr
    f = _fields(p.stdout)
    assert f["<stddef.h>"] == "parses" and f["<stdarg.h>"].startswith("FAILS")
    assert f["version pairing"].endswith("MISMATCH")
    assert f"warning: clang builtin headers of version {major - 1} with libclang {major}" in p.stdout


def test_check_without_builtin_headers_stops_once_with_the_fix(tmp_path):
    for name in ("a.c", "b.c"):
        (tmp_path / name).write_text("int f(void) { return 0; }\n")
    p = _refcheck("check", ".", "--no-cache", cwd=tmp_path, env={headers.ENV_VAR: str(tmp_path / "nope")})
    assert p.returncode == 2
    assert p.stdout == ""
    (line,) = p.stderr.strip().splitlines()
    assert line.startswith("refcheck: error: REFCHECK_RESOURCE_DIR=") and "refcheck doctor" in line
