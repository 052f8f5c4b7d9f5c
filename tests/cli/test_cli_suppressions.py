"""`refcheck: ignore` comments, on the real analyzer's findings."""

from __future__ import annotations

import pytest

from refcheck.filters.suppressions import Kind, scan

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


def _scan(tmp_path, lines: list[str]):
    """What the suppression filter makes of these lines, lexed and parsed as the check does."""
    from refcheck.frontend.comments import definition_extents, refcheck_comments
    from refcheck.frontend.unit import parse

    path = tmp_path / "x.c"
    path.write_text("\n".join(lines) + "\n")
    parsed = parse(str(path), [])
    comments = refcheck_comments(parsed)
    return scan(str(path), list(comments), list(definition_extents(parsed, {str(path)})))


def test_scan(tmp_path):
    found = {s.line: s for s in _scan(tmp_path, [
        "int a; // refcheck: ignore[rc001 RC002]", "/* refcheck: ignore */",
        "refcheck: ignore", "// refcheck: ignored", "// refcheck: ignore-next-line[RC003]",
        "x;", 'const char *s = "// refcheck: ignore";']).suppressions}
    assert found[1].codes == ["RC001", "RC002"] and found[1].column == 8
    assert found[2].codes is None
    assert 3 not in found  # not in a comment
    assert 7 not in found  # nor in a string
    assert 4 not in found
    assert (found[5].kind, found[5].first, found[5].last) == (Kind.NEXT_LINE, 6, 6)


TWO_LEAKS = HEAD + (
    "void f(void) {\n  T *t = T_new();\n  use(t);\n}\n"     # lines 5-8
    "void g(void) {\n  T *u = T_new();\n  use(u);\n}\n")    # lines 9-12


def test_ignore_next_line(project):
    text = TWO_LEAKS.replace("  T *t = T_new();", "  // refcheck: ignore-next-line[RC001]\n  T *t = T_new();")
    project.write("a.c", text)
    r = project.run("check", "a.c")
    assert r.code == 1 and "1 suppressed" in r.err
    assert r.out.startswith("a.c:13:1: error:")  # g's leak; f's is silenced
    # The comment covers the next line only: put on the line before that, it silences nothing.
    project.write("a.c", TWO_LEAKS.replace("void f(void) {", "// refcheck: ignore-next-line\nvoid f(void) {"))
    r = project.run("check", "--report-unused-suppressions", "a.c")
    assert "0 suppressed" not in r.err and "suppressed" not in r.err
    assert "a.c:5:1: warning: unused suppression 'refcheck: ignore-next-line' [tool]" in r.out


def test_ignore_begin_end_region(project):
    text = HEAD + "// refcheck: ignore-begin[RC001]\n" + TWO_LEAKS[len(HEAD):].replace(
        "void g", "// refcheck: ignore-end[RC001]\nvoid g")
    project.write("a.c", text)
    r = project.run("check", "--report-unused-suppressions", "a.c")
    assert r.code == 1, r.out
    assert "1 suppressed" in r.err
    assert r.out.count("error:") == 1 and "a.c:14:1: error:" in r.out and "warning" not in r.out
    # A region around both silences both.
    project.write("a.c", HEAD + "/* refcheck: ignore-begin */\n" + TWO_LEAKS[len(HEAD):]
                  + "/* refcheck: ignore-end */\n")
    r = project.run("check", "a.c")
    assert r.code == 0 and "2 suppressed" in r.err


def test_unbalanced_regions_are_reported_and_silence_nothing(project):
    project.write("a.c", HEAD + "// refcheck: ignore-begin[RC001]\n" + TWO_LEAKS[len(HEAD):]
                  + "// refcheck: ignore-end[RC002]\n")
    r = project.run("check", "a.c")  # reported without --report-unused-suppressions
    assert r.code == 1 and r.out.count("error: ") == 2
    assert ("a.c:5:1: warning: 'refcheck: ignore-begin' without a matching 'refcheck: ignore-end' "
            "(for RC001); it silences nothing [tool]") in r.out
    assert ("a.c:14:1: warning: 'refcheck: ignore-end' without a matching 'refcheck: ignore-begin' "
            "(for RC002) [tool]") in r.out


def test_ignore_function(project):
    text = TWO_LEAKS.replace("void f(void) {", "// refcheck: ignore-function[RC001]\nvoid f(void)\n{ /* } in a comment */")
    project.write("a.c", text)
    r = project.run("check", "--report-unused-suppressions", "a.c")
    assert r.code == 1, r.out
    assert "1 suppressed" in r.err and r.out.count("error:") == 1 and "a.c:14:1: error:" in r.out
    # On the function's first line, too.
    project.write("a.c", TWO_LEAKS.replace("void g(void) {", "void g(void) { // refcheck: ignore-function"))
    r = project.run("check", "a.c")
    assert r.code == 1 and "1 suppressed" in r.err and "a.c:8:1: error:" in r.out
    # Above a declaration, it is reported and silences nothing.
    project.write("a.c", TWO_LEAKS + "// refcheck: ignore-function\nvoid other(T *t);\n")
    r = project.run("check", "a.c")
    assert r.out.count("error: ") == 2
    assert ("a.c:13:1: warning: 'refcheck: ignore-function' is not followed by a function body; "
            "it silences nothing [tool]") in r.out


def test_body_end_skips_braces_in_strings_and_comments(tmp_path):
    lines = ["// refcheck: ignore-function", "int f(void) {", '  const char *s = "}{";',
             "  char c = '}'; /* } */ // }", "  if (1) { return 1; }", "  return 0;", "}", "int g;"]
    (s,) = _scan(tmp_path, lines).suppressions
    assert (s.first, s.last) == (1, 7)


def test_report_unused_suppressions_covers_regions_and_functions(project):
    text = HEAD + ("// refcheck: ignore-begin[RC001, RC003]\n"
                   "void f(void) {\n  T *t = T_new();\n  use(t);\n}\n"
                   "// refcheck: ignore-end[RC001, RC003]\n"
                   "// refcheck: ignore-function[RC002]\n"
                   "int g(void) {\n  return 0;\n}\n")
    project.write("a.c", text)
    r = project.run("check", "--report-unused-suppressions", "a.c")
    assert r.code == 0 and "1 suppressed" in r.err, r.out
    lines = {line for line in r.out.splitlines() if "warning" in line}
    assert lines == {
        "a.c:5:1: warning: unused suppression for RC003 ('refcheck: ignore-begin') [tool]",
        "a.c:11:1: warning: unused suppression for RC002 ('refcheck: ignore-function') [tool]",
    }
