"""The clean gate and the mutation harness, on the real runtime."""

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from refcheck.validate.__main__ import main as validate_main
from refcheck.validate.layout import Runtime
from refcheck.validate.mutants import make, read_sources, renamed
from refcheck.validate.sites import KINDS, discover

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def discovery():
    return discover(Runtime(ROOT))


def test_clean_gate_runtime_has_no_findings_and_no_tool_errors():
    """`refcheck check runtime/` (TH, and THC where it exists) is clean: the CI gate."""
    done = subprocess.run([sys.executable, "-m", "refcheck", "check", "runtime/", "--no-cache", "-j2",
                           "--format", "json", "-q"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    report = json.loads(done.stdout)
    assert report["findings"] == [], done.stdout[:4000]
    assert report["errors"] == [], done.stdout[:4000]
    assert done.returncode == 0, done.stderr


def test_sites_of_every_kind_are_found(discovery):
    kinds = {s.kind for s in discovery.sites}
    assert kinds == set(KINDS)
    # A generic body is one site, not one per type.
    ids = [s.id for s in discovery.sites]
    assert len(ids) == len(set(ids))
    generic = [s for s in discovery.sites if "/generic/" in s.span.file]
    assert generic and all(len(s.function.instantiations) >= 2 for s in generic
                           if "/TH/generic/THTensor.c" in s.span.file)


def test_mutants_change_only_what_their_kind_says(discovery):
    sources = read_sources(Runtime(ROOT), discovery.sites)
    for kind in KINDS:
        site = next(s for s in discovery.sites if s.kind == kind)
        m = make(site, sources)
        mutated = m.apply(sources)
        assert mutated and all(mutated[f] != sources[f] for f in mutated), m.id
        # Line numbers stay put, so findings and coverage lines stay comparable.
        assert all(mutated[f].count(b"\n") == sources[f].count(b"\n") for f in mutated), m.id
        assert m.diff(sources).startswith("--- a/runtime/")


def test_rename_leaves_no_new_name():
    assert renamed(b"newNarrow") == b"makeNarrow"
    assert renamed(b"THCOWContext_new") == b"THCOWContext_make"
    assert renamed(b"THLongStorage_newInferSize") == b"THLongStorage_makeInferSize"
    with pytest.raises(ValueError):
        renamed(b"THTensor_free")


def test_every_mutant_is_detected_statically(tmp_path):
    """The static target of issue 6, on every mutant: all of them, every kind (about 30 s)."""
    out = tmp_path / "all.json"
    result = CliRunner().invoke(validate_main, [
        "--root", ROOT, "--static-only", "-j", "2", "-q", "--json", str(out)])
    report = json.loads(out.read_text())
    kinds = {m["kind"] for m in report["mutants"]}
    assert kinds == set(KINDS), kinds
    missed = [m["id"] for m in report["mutants"] if not m["static_detected"]]
    assert missed == [], missed
    assert result.exit_code == 0, result.stdout


def test_sampled_mutants_are_all_detected_statically(tmp_path):
    out = tmp_path / "v.json"
    md = tmp_path / "v.md"
    result = CliRunner().invoke(validate_main, [
        "--root", ROOT, "--sample", "6", "--seed", "1", "--static-only", "-q",
        "--json", str(out), "--markdown", str(md)])
    report = json.loads(out.read_text())
    assert len(report["mutants"]) == 6
    for m in report["mutants"]:
        assert set(m) >= {"id", "file", "function", "kind", "expected_rule", "static_detected",
                          "rules_reported", "dynamic"}
        assert m["kind"] in KINDS and m["dynamic"] == "skipped"
        assert isinstance(m["rules_reported"], list)
    assert report["summary"]["mutants"] == 6
    assert "# Validation" in md.read_text()
    missed = [m["id"] for m in report["mutants"] if not m["static_detected"]]
    assert missed == [], missed
    assert result.exit_code == 0, result.stdout


def test_bad_input_is_a_message_not_a_traceback(tmp_path):
    done = subprocess.run([sys.executable, "-m", "refcheck.validate", "--root", str(tmp_path), "-q"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "no runtime sources" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run([sys.executable, "-m", "refcheck.validate", "--root", ROOT, "--kinds", "bogus",
                           "-q"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "unknown mutation kind" in done.stderr and "Traceback" not in done.stderr
