"""Fuzzing the whole pipeline: token soups and mutated fixtures in, a result (never a crash) out.

Hypothesis is derandomized, so every run feeds the same inputs: a failure here reproduces,
and the suite's time is predictable. Most examples go through `engine.check_unit` in this
process (parse, CFG, analysis); a sample goes through the real CLI to cover workers, cache,
filters and reporters too.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pathological as gen

REPO = Path(__file__).resolve().parents[2]
FIXTURES = sorted(p for p in (REPO / "fixtures").glob("*.c"))
INCLUDE = REPO / "fixtures" / "include"

TOKENS = [
    "THFloatTensor", "*", "t", "u", "=", "THFloatTensor_new", "THFloatTensor_newClone",
    "THFloatTensor_free", "THFloatTensor_retain", "THFloatTensor_freeCopyTo", "THError",
    "(", ")", "(", ")", "{", "}", "[", "]", ";", ";", ",", "if", "else", "while", "for", "do",
    "switch", "case", "1", ":", "default", "break", "continue", "return", "goto", "L", "L:",
    "c", "0", "NULL", "&&", "||", "!", "?", "->", ".", "&", "sizeof", "int", "void", "static",
    "\"s\"", "'x'", "#define", "M(x)", "#if", "#endif", "#include \"nope.h\"", "\\", "\n",
    "/*", "*/", "//", "__attribute__((noreturn))", "typedef", "struct", "...", "\x00", "é",
]

soups = st.lists(st.sampled_from(TOKENS), max_size=60).map(" ".join)
wrapped_soups = soups.map(lambda s: gen.PRELUDE + "void fuzz(int c, THFloatTensor *x)\n{\n"
                          + s + "\n}\n")

mutation = st.tuples(st.sampled_from(["delete", "duplicate", "swap", "insert", "truncate",
                                      "byte"]),
                     st.integers(0, 10**6), st.integers(0, 10**6), st.binary(max_size=8))


def mutate(text: bytes, edits) -> bytes:
    for kind, a, b, payload in edits:
        lines = text.split(b"\n")
        i, j = a % len(lines), b % len(lines)
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(j, lines[i])
        elif kind == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "insert":
            cut = b % (len(lines[i]) + 1)
            lines[i] = lines[i][:cut] + payload + lines[i][cut:]
        elif kind == "truncate":
            return b"\n".join(lines[:i]) + lines[i][: b % (len(lines[i]) + 1)]
        else:
            line = bytearray(lines[i])
            if line:
                line[b % len(line)] = payload[0] if payload else 0
            lines[i] = bytes(line)
        text = b"\n".join(lines) or b"\n"
    return text


mutated_fixtures = st.tuples(st.sampled_from(FIXTURES),
                             st.lists(mutation, min_size=1, max_size=6)).map(
    lambda fe: mutate(fe[0].read_bytes(), fe[1]))

inputs = st.one_of(soups.map(str.encode), wrapped_soups.map(str.encode), mutated_fixtures)

WORKDIR = tempfile.mkdtemp(prefix="refcheck-fuzz-")
atexit.register(shutil.rmtree, WORKDIR, True)


def _check(data: bytes, name: str = "fuzz.c"):
    from refcheck.driver import engine
    path = os.path.join(WORKDIR, name)
    with open(path, "wb") as f:
        f.write(data)
    s = engine.Settings(clang_args=[f"-I{INCLUDE}"], root=WORKDIR, max_states=3_000,
                        function_seconds=2.0)
    return engine.check_unit(path, s)


@settings(derandomize=True, max_examples=80, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(inputs)
def test_engine_survives_any_input(data):
    from refcheck.findings import UnitResult
    from refcheck.rules import RULES

    result = _check(data)
    assert isinstance(result, UnitResult)
    assert isinstance(result.findings, list) and isinstance(result.errors, list)
    internal = [e.message for e in result.errors if "internal error" in e.message]
    assert not internal, internal
    for f in result.findings:
        assert f.rule in RULES and f.location.line >= 1
        assert not os.path.isabs(f.location.file) or f.location.file.startswith(str(INCLUDE))


@settings(derandomize=True, max_examples=3, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(inputs, min_size=4, max_size=6))
def test_cli_survives_a_directory_of_fuzz(batch):
    with tempfile.TemporaryDirectory(prefix="refcheck-fuzz-cli-") as top:
        root = Path(top)
        (root / "refcheck.toml").write_text(f'include-dirs = ["{INCLUDE}"]\nmax-states = 3000\n')
        (root / "good.c").write_text(gen.GOOD)
        for i, data in enumerate(batch):
            (root / f"f{i}.c").write_bytes(data)
        env = {k: v for k, v in os.environ.items() if k not in ("CI", "REFCHECK_DEBUG")}
        p = subprocess.run([sys.executable, "-m", "refcheck", "check", "-j", "2", "."], cwd=root,
                           env=env, capture_output=True, text=True, timeout=120)
        # good.c's leak at least; tool errors (fuzz that does not parse) win over findings.
        tool_errors = any(line.endswith("[tool]") and ": error: " in line
                          for line in p.stdout.splitlines())
        assert p.returncode == (2 if tool_errors else 1), p.stderr
        assert "Traceback" not in p.stderr and "internal error" not in p.stdout + p.stderr
        assert gen.GOOD_FINDING in p.stdout
