from refcheck.model import RunResult
from refcheck.reporters import FORMATS, render

import pytest


def test_text_is_compiler_style(result):
    assert render("text", result) == (
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
