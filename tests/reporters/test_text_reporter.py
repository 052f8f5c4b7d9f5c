from refcheck.findings import Finding, Location, RunResult, Step
from refcheck.reporters import FORMATS, render

import pytest


def test_text_is_compiler_style(result):
    assert render("text", result, show_source=False) == (
        "src/generic/THTensorMath.c:8:5: error: `tc` (acquired by THFloatTensor_newContiguous "
        "at line 6) is not released on this path [RC001 leak]\n"
        "src/generic/THTensorMath.c:6:23: note: `tc` acquired by THFloatTensor_newContiguous\n"
        "src/generic/THTensorMath.c:7:3: note: taking the true branch\n"
        "src/generic/THTensorMath.c:8:5: note: `tc` is lost here\n"
        "src/generic/THTensorMath.c:11:13: error: `tc` <100%, a:b> is used after it was "
        "released [RC003 use-after-release]\n"
        "src/generic/THTensorMath.c:6:23: note: `tc` acquired by THFloatTensor_newContiguous\n"
        "src/generic/THTensorMath.c:10:3: note: `tc` released here\n"
        "src/generic/THTensorMath.c:11:13: note: used here: <b>tc->size</b> & more\n"
        "src/broken.c:3:14: error: expected ';' after expression [tool]\n"
        "src/huge.c: warning: gave up after 50000 states\nin THFoo_bar [tool]\n"
    )


def test_source_line_and_caret_as_clang_prints_them(result):
    text = render("text", result)
    assert text.startswith(
        "src/generic/THTensorMath.c:8:5: error: `tc` (acquired by THFloatTensor_newContiguous "
        "at line 6) is not released on this path [RC001 leak]\n"
        "    8 |     return;\n"
        "      |     ^\n"
        "src/generic/THTensorMath.c:6:23: note: `tc` acquired by THFloatTensor_newContiguous\n"
        "    6 |   THFloatTensor *tc = THFloatTensor_newContiguous(t);\n"
        "      |                       ^\n"
        "src/generic/THTensorMath.c:7:3: note: taking the true branch\n"
        "    7 |   if (THFloatTensor_nElement(tc) == 0)\n"
        "      |   ^\n"
        # The note on line 8 follows a snippet of line 7, so line 8 is shown again.
        "src/generic/THTensorMath.c:8:5: note: `tc` is lost here\n"
        "    8 |     return;\n"
        "      |     ^\n")
    # (A note right after a snippet of its own line does not repeat it: see the colour test.)
    # A source file that cannot be read leaves just the diagnostic line.
    assert "src/broken.c:3:14: error: expected ';' after expression [tool]\n" \
           "src/huge.c: warning:" in text


def _one(tmp_path, source: str, column: int, file: str = "u.c") -> str:
    (tmp_path / file).write_text(source, encoding="utf-8")
    f = Finding("RC001", "leak", Location(file, 1, column), "f", "m")
    return render("text", RunResult(findings=[f], root=str(tmp_path)))


def test_caret_column_is_a_utf8_byte_offset(tmp_path):
    # libclang's column 10 is the tenth byte, the `x` (é is two bytes, one character).
    lines = _one(tmp_path, "/* \u00e9 */ x = T_new();\n", 10).splitlines()
    assert lines[1] == "    1 | /* \u00e9 */ x = T_new();"
    assert lines[2] == "      | " + " " * 8 + "^"
    assert lines[1][lines[2].index("^")] == "x"


def test_caret_follows_tabs(tmp_path):
    lines = _one(tmp_path, "\t\tx = T_new();\n", 3).splitlines()
    assert lines[1] == "    1 | \t\tx = T_new();" and lines[2] == "      | \t\t^"


def test_control_characters_in_source_are_escaped_before_colour(tmp_path):
    text = _one(tmp_path, "x = 1; /* \x1b[2J\u202e */\n", 1)
    assert "\x1b[2J" not in text and "\\x1b[2J" in text and "\\u202e" in text
    (tmp_path / "u.c").write_text("x = 1; /* \x1b[2J */\n")
    f = Finding("RC001", "leak", Location("u.c", 1, 1), "f", "m\x1b]0;pwned\x07")
    coloured = render("text", RunResult(findings=[f], root=str(tmp_path)), color=True)
    # The only escape sequences are our own SGR codes.
    import re
    assert set(re.findall(r"\x1b\[[0-9;]*m", coloured)) <= {"\x1b[0m", "\x1b[1m", "\x1b[1;31m", "\x1b[1;32m"}
    assert coloured.count("\x1b") == len(re.findall(r"\x1b\[[0-9;]*m", coloured))


def test_colour_marks_location_severity_and_caret(tmp_path):
    (tmp_path / "u.c").write_text("x = T_new();\n")
    f = Finding("RC001", "leak", Location("u.c", 1, 5), "f", "lost", [Step(Location("u.c", 1, 5), "here")])
    text = render("text", RunResult(findings=[f], root=str(tmp_path)), color=True)
    assert text == ("\x1b[1mu.c:1:5:\x1b[0m \x1b[1;31merror:\x1b[0m \x1b[1mlost\x1b[0m [RC001 leak]\n"
                    "    1 | x = T_new();\n"
                    "      |     \x1b[1;32m^\x1b[0m\n"
                    "\x1b[1mu.c:1:5:\x1b[0m \x1b[1;36mnote:\x1b[0m here\n")
    plain = render("text", RunResult(findings=[f], root=str(tmp_path)))
    assert "\x1b" not in plain


def test_long_lines_are_cut_around_the_caret(tmp_path):
    lines = _one(tmp_path, "a" * 1000 + "X" + "b" * 1000 + "\n", 1001).splitlines()
    assert len(lines[1]) < 200 and lines[1][lines[2].index("^")] == "X"


def test_empty_result_renders_nothing_in_text():
    assert render("text", RunResult()) == ""


def test_unknown_format_names_the_choices():
    with pytest.raises(ValueError, match="unknown output format 'xml'.*text, json, sarif"):
        render("xml", RunResult())


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "json"])
def test_reports_do_not_depend_on_timing(result, fmt):
    first = render(fmt, result)
    result.seconds = 99.0
    result.timings = {"parse": 3.0}
    assert render(fmt, result) == first
