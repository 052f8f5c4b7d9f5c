"""Historical ownership bugs of TH, THNN, THC and their neighbours, re-typed as small cases.

Each file under cases/ holds the buggy function (its finding annotated `// expect: RC00N`, the
syntax of tests/fixture_expect.py) and the fixed one, which must be clean. A case refcheck gets
wrong stays here, marked xfail(strict=True) with its cause in KNOWN_WRONG, so that a fix in the
analyzer turns it into a visible XPASS. Where each bug comes from: the header of its file and
docs/realworld.md.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fixture_expect import find_units, unit_sources  # noqa: E402
from refcheck.conventions import Conventions  # noqa: E402
from refcheck.driver.engine import Settings, check_unit  # noqa: E402
from refcheck.findings import merge_findings  # noqa: E402
from test_fixtures import _compare  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CASES = Path(__file__).resolve().parent / "cases"
INCLUDE = CASES / "include"
UNITS = find_units(CASES)

# Cases refcheck gets wrong today: file name -> why (reported to the analyzer's owner).
KNOWN_WRONG: dict[str, str] = {
    "cltorch_set_storage_field_leak.c":
        "references held in fields are not tracked, so overwriting self->storage without "
        "freeing the old storage is not a leak to refcheck",
}

MIN_CASES = 10


@functools.lru_cache(maxsize=None)
def _sources(unit: Path):
    return tuple(unit_sources(unit, CASES, [INCLUDE]))


def _analyze(unit: Path):
    options = _sources(unit)[0].options
    settings = Settings(conventions=Conventions(errors=options.errors),
                        clang_args=["-I", str(INCLUDE), *options.clang_args], root=str(REPO))
    return check_unit(str(unit), settings)


def _param(unit: Path):
    reason = KNOWN_WRONG.get(unit.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(unit, id=unit.name, marks=marks)


@pytest.mark.parametrize("unit", [_param(u) for u in UNITS])
def test_case(unit: Path) -> None:
    sources = _sources(unit)
    result = _analyze(unit)
    problems = [f"tool error: {e.file}:{e.line}: {e.message}"
                for e in result.errors if e.severity == "error"]
    expectations = [e for s in sources for e in s.expectations]
    problems += _compare(merge_findings(list(result.findings)), expectations)
    assert not problems, f"{unit.name}:\n" + "\n".join(problems)


def test_every_case_has_a_bug_a_fix_and_a_source() -> None:
    """A case without an expectation would assert nothing; one without a clean twin would not
    show that the fix is accepted; one without a reference could not be checked by a reader."""
    assert len(UNITS) >= MIN_CASES, f"{len(UNITS)} cases, want >= {MIN_CASES}"
    problems = []
    for unit in UNITS:
        fixture = _sources(unit)[0]
        kinds = [m.kind for m in fixture.markers]
        if "buggy" not in kinds or "clean" not in kinds:
            problems.append(f"{unit.name}: markers {kinds}, want a buggy and a clean function")
        if not fixture.expectations:
            problems.append(f"{unit.name}: no `// expect:` annotation")
        header = unit.read_text(encoding="utf-8").split("*/", 1)[0]
        if "github.com" not in header and "commit" not in header:
            problems.append(f"{unit.name}: header names no PR, issue or commit")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_case_compiles(unit: Path) -> None:
    """The reproductions are real C: gcc accepts them with the cases' own header."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    cmd = ["gcc", "-std=gnu11", "-fsyntax-only", "-I", str(INCLUDE), str(unit)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout}{proc.stderr}"
