"""benchmarks/thc_gpu_check.py's bookkeeping, without running any step: how it reads pytest's
JUnit reports, that steps run in separate calls merge into one summary, and bad arguments."""

import json
import subprocess
import sys

from thc_ctypes import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import thc_gpu_check as check  # noqa: E402

JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.thc.test_thc_gpu" name="test_a[Float]"/>
<testcase classname="tests.thc.test_thc_gpu" name="test_b[Float]"><skipped message="no GPU: nvidia-smi is not installed"/></testcase>
<testcase classname="tests.thc.test_thc_gpu" name="test_b[Double]"><skipped message="no GPU: nvidia-smi is not installed"/></testcase>
<testcase classname="tests.thc.test_thc_gpu" name="test_c"><skipped message="Skipped: compute-sanitizer is not installed"/></testcase>
<testcase classname="tests.thc.test_thc_gpu" name="test_d"><failure message="assert 1 == 2"/></testcase>
</testsuite></testsuites>"""


def test_junit_counts_and_groups_skip_reasons(tmp_path):
    path = tmp_path / "r.xml"
    path.write_text(JUNIT)
    r = check.junit(path)
    assert (r["passed"], r["failed"], r["error"], r["skipped"]) == (1, 1, 0, 3)
    assert r["skip_reasons"] == {"no GPU: nvidia-smi is not installed": 2, "compute-sanitizer is not installed": 1}
    assert r["failures"] == ["tests.thc.test_thc_gpu::test_d"]


def test_steps_from_separate_calls_make_one_summary(tmp_path):
    check.summarize(tmp_path, {"bench": {"status": "no-gpu", "reason": "no CUDA device", "when": "t2"}})
    steps = check.load_steps(tmp_path)  # what the next call starts from
    steps["build"] = {"status": "ok", "when": "t1", "seconds": 3.0}
    summary = check.summarize(tmp_path, steps)
    assert list(summary["steps"]) == ["build", "bench"]  # in step order, whatever order they ran in
    md = (tmp_path / "summary.md").read_text()
    assert "| build | ok | t1 | 3.0 |" in md and "| bench | no-gpu | t2 |  | no CUDA device |" in md
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json", "summary.md"]


def test_an_unreadable_summary_is_started_afresh(tmp_path):
    (tmp_path / "summary.json").write_text("{not json")
    assert check.load_steps(tmp_path) == {}
    (tmp_path / "summary.json").write_text('{"steps": [1, 2]}')
    assert check.load_steps(tmp_path) == {}


def test_unknown_step_is_a_usage_error():
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "thc_gpu_check.py"), "--steps", "bogus"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "unknown step(s) bogus" in done.stderr and "Traceback" not in done.stderr
