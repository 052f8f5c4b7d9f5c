"""The ownership bugs injected into runtime/THC: refcheck catches every one statically (here, on
any machine); the dynamic confirmation needs a GPU, and without one each THC mutant is reported
"skipped" with the reason rather than silently passing. The full GPU confirmation is run by
`python benchmarks/thc_gpu_check.py` (it takes a rebuild and a sanitized suite per mutant)."""

import json
import subprocess

from click.testing import CliRunner

from refcheck.validate.__main__ import main as validate_main
from refcheck.validate.thc_dynamic import THCDynamicChecker, gpu_missing_reason
from thc_ctypes import ROOT

GPU_REASON = gpu_missing_reason()


def test_every_thc_mutant_is_detected_statically_and_the_dynamic_check_says_why_it_did_not_run(tmp_path):
    out = tmp_path / "thc.json"
    # With a GPU the dynamic half is the check script's (tens of minutes); here only its refusal is cheap.
    static_only = ["--static-only"] if GPU_REASON is None else []
    result = CliRunner().invoke(validate_main, ["--root", str(ROOT), "--under", "runtime/THC", "-j", "2", "-q",
                                                "--json", str(out), *static_only])
    report = json.loads(out.read_text())
    mutants = report["mutants"]
    assert mutants and all(m["file"].startswith("runtime/THC/") for m in mutants)
    # Every kind with a runtime symptom has THC sites (copies release their temporaries).
    assert {"delete-release", "duplicate-release", "use-after-release", "early-return"} <= {m["kind"] for m in mutants}
    missed = [m["id"] for m in mutants if not m["static_detected"]]
    assert missed == [], missed
    assert result.exit_code == 0, result.stdout
    if GPU_REASON is not None:
        runnable = [m for m in mutants if THCDynamicChecker.applies(_Mutant(m))]
        assert len(runnable) >= 15
        for m in runnable:
            assert m["dynamic"] == "skipped", m["id"]
            assert m["dynamic_evidence"].startswith("THC dynamic check not run: no "), m["dynamic_evidence"]
        assert report["summary"]["dynamic_note"].startswith("THC not run: no ")


class _Mutant:
    def __init__(self, record):
        self.kind, self.file = record["kind"], record["file"]


def test_sanitizer_and_counter_output_is_read_as_evidence():
    def evidence(out, rc=1):
        return THCDynamicChecker._evidence(subprocess.CompletedProcess([], rc, out, ""))

    assert evidence("E AssertionError: objects still alive after the test") == "live objects changed (counters)"
    assert evidence("free(): double free detected in tcache 2", -6) == "double free (glibc)"
    assert evidence("========= Leaked 1024 bytes at 0x7f00") == "device memory leaked (compute-sanitizer)"
    assert evidence("========= Invalid __global__ read of size 4 bytes") == \
        "invalid device access (compute-sanitizer)"
    assert evidence("", -11) == "crash (signal 11)"
    assert evidence("========= ERROR SUMMARY: 1 error", 99) == "error reported (compute-sanitizer)"
    assert evidence("3 passed", 0) == ""
    assert evidence("FAILED test_x - assert 1.0 == 2.0", 1) == ""
