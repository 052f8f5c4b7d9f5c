"""`refcheck: ignore` comments, on the real analyzer's findings."""

from __future__ import annotations

import pytest

from refcheck.suppressions import scan

HEAD = "typedef struct T T;\nT *T_new(void);\nvoid T_free(T *t);\nvoid use(T *t);\n"


def leak(primary_comment: str = "", origin_comment: str = "") -> str:
    # Line 6 acquires, line 8 (the closing brace) is where the reference is lost.
    return HEAD + f"void f(void) {{\n  T *t = T_new();{origin_comment}\n  use(t);\n}}{primary_comment}\n"


@pytest.mark.parametrize("primary, origin", [
    (" // refcheck: ignore[RC001]", ""),
    (" /* refcheck: ignore[RC001] */", ""),
    (" // refcheck: ignore", ""),
    (" /* refcheck:ignore */", ""),
    ("", " // refcheck: ignore[RC001]"),
    ("", " /* refcheck: ignore[RC002, RC001] */"),
])
def test_suppression_on_primary_or_acquisition_line(project, primary, origin):
    project.write("a.c", leak(primary, origin))
    r = project.run("check", "a.c")
    assert r.code == 0, r.out
    assert "1 suppressed" in r.err


def test_baseline_without_comment_reports(project):
    project.write("a.c", leak())
    r = project.run("check", "a.c")
    assert r.code == 1 and r.out.startswith("a.c:8:1: error:")


def test_suppression_for_another_rule_does_not_silence(project):
    project.write("a.c", leak(" // refcheck: ignore[RC002]"))
    assert project.run("check", "a.c").code == 1


def test_suppression_on_an_unrelated_line_does_not_silence(project):
    project.write("a.c", leak().replace("  use(t);", "  use(t); // refcheck: ignore"))
    assert project.run("check", "a.c").code == 1


def test_report_unused_suppressions(project):
    text = leak(" // refcheck: ignore[RC001, RC002]") + "int g(void) { return 0; } /* refcheck: ignore */\n" \
        + "int h(void) { return 1; } // refcheck: ignore[RC042]\n"
    project.write("a.c", text)
    r = project.run("check", "--report-unused-suppressions", "a.c")
    assert r.code == 0, r.out  # warnings do not change the exit code
    lines = r.out.splitlines()
    assert "a.c:8:3: warning: unused suppression for RC002 [tool]" in lines
    assert "a.c:9:27: warning: unused suppression 'refcheck: ignore' [tool]" in lines
    assert "a.c:10:27: warning: unknown rule code 'RC042' in suppression [tool]" in lines
    assert not any("for RC001" in line for line in lines)
    # Without the flag, nothing is said about them.
    assert project.run("check", "a.c").out == ""


def test_unused_suppressions_in_headers_are_reported(project):
    project.write("t.h", HEAD + "static inline int k(void) { return 0; } // refcheck: ignore[RC003]\n")
    project.write("a.c", '#include "t.h"\nint g(void) { return 0; }\n')
    r = project.run("check", "--report-unused-suppressions", "a.c")
    assert "t.h:5:41: warning: unused suppression for RC003 [tool]" in r.out


def test_scan():
    found = scan("x.c", ["int a; // refcheck: ignore[rc001 RC002]", "/* refcheck: ignore */",
                         "refcheck: ignore", "// refcheck: ignored"])
    assert found[1].codes == ["RC001", "RC002"] and found[1].column == 8
    assert found[2].codes is None
    assert 3 not in found  # not in a comment
    assert 4 not in found
