"""refcheck reads THC's .cu sources as CUDA host code and finds them following the Golden Rule."""

import json
import subprocess
import sys

from thc_ctypes import ROOT, RUNTIME


def test_refcheck_parses_thc_cleanly_and_reports_nothing():
    done = subprocess.run([sys.executable, "-m", "refcheck", "check", str(RUNTIME / "THC"), "--no-cache",
                           "--format", "json", "-j1"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    report = json.loads(done.stdout)
    assert report["errors"] == [], report["errors"]
    assert report["findings"] == [], report["findings"]
    assert report["stats"]["files"] == len(list((RUNTIME / "THC").glob("*.cu")))
    # Generic code is instantiated twice, kernels and host templates count too: far more than
    # the five files' worth of names if anything failed to parse.
    assert report["stats"]["functions"] > 150
    assert done.returncode == 0
