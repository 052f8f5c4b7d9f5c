"""The saved torch7 findings (tests/realworld/torch7/*.findings.tsv) and the hand-kept verdicts agree.

Re-running refcheck on torch7 takes minutes, so this test reads the findings files that
`python -m tests.realworld.study` writes; a change that adds or removes a finding on real code
changes those files, and this test then fails until its verdict is written (or removed).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.realworld import study  # noqa: E402


def test_every_finding_has_a_verdict_and_every_verdict_a_finding():
    findings = {mode: study.load_findings(mode) for mode in study.MODES}
    assert all(findings.values()), "a findings file is empty: regenerate with python -m tests.realworld.study"
    missing, stale = study.compare(findings, study.load_verdicts())
    assert not missing, "findings without a verdict:\n" + "\n".join(f"{m}: {i.row()}" for m, i in missing)
    assert not stale, "verdicts whose finding is gone:\n" + "\n".join(str(i.row()) for i in stale)


def test_identity_ignores_columns_and_wording_but_not_origin():
    base = {"rule": "RC001", "file": "a.c", "line": 7, "column": 3, "function": "f",
            "message": "'t' (acquired by THFloatTensor_new at line 2) is not released on this path"}
    moved = dict(base, column=9, message="'t' (acquired by THFloatTensor_new at line 2) leaks")
    other = dict(base, message="'u' (acquired by THFloatTensor_new at line 3) is not released on this path")
    assert study.identity(base) == study.identity(moved)
    assert study.identity(base) != study.identity(other)
    result = dict(base, rule="RC004", message="the result of THAlloc (acquired by THAlloc at line 19) is returned")
    assert study.identity(result).origin == "THAlloc(): acquired by THAlloc at line 19"


@pytest.mark.parametrize("row, error", [
    ("a.c\t1\tRC001\tf\tt: x\tmaybe\tbug\twhy", "verdict must be"),
    ("a.c\t1\tRC001\tf\tt: x\tfalse\tbug\twhy", "class 'bug' is not one of"),
    ("a.c\t1\tRC001\tf\tt: x\ttrue\tbug", "expected 8"),
])
def test_bad_verdict_rows_are_named(tmp_path, row, error):
    path = tmp_path / "verdicts.tsv"
    path.write_text("# header\n" + row + "\n")
    with pytest.raises(ValueError, match=error):
        study.load_verdicts(path)


def test_summary_counts_true_share_per_mode():
    a = study.Identity("a.c", 1, "RC001", "f", "t: x")
    b = study.Identity("a.c", 2, "RC001", "f", "u: y")
    verdicts = {a: study.Verdict(a, True, "bug", ""), b: study.Verdict(b, False, "sink", "")}
    text = study.summary({"abort": [a], "unwind": [a, b]}, verdicts, 2.0)
    assert "abort: 1 distinct findings, 0.50 per KLOC (2.0 KLOC); 1/1 true (100%)" in text
    assert "unwind: 2 distinct findings, 1.00 per KLOC (2.0 KLOC); 1/2 true (50%)" in text
