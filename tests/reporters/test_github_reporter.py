from dataclasses import replace
from refcheck.reporters import render
from refcheck.reporters.github import escape_data, escape_property


def test_escaping_follows_the_actions_toolkit():
    assert escape_data("50% done\r\nnext: a,b") == "50%25 done%0D%0Anext: a,b"
    assert escape_property("C:\\x,y%\n") == "C%3A\\x%2Cy%25%0A"


def test_findings_become_annotations_with_the_path_in_the_body(result):
    lines = render("github", result).splitlines()
    assert lines[0] == (
        "::error file=src/generic/THTensorMath.c,line=8,col=5,title=RC001 leak::"
        "`tc` (acquired by THFloatTensor_newContiguous at line 6) is not released on this path"
        "%0A1. src/generic/THTensorMath.c:6: `tc` acquired by THFloatTensor_newContiguous"
        "%0A2. src/generic/THTensorMath.c:7: taking the true branch"
        "%0A3. src/generic/THTensorMath.c:8: `tc` is lost here")
    assert lines[1].startswith(
        "::error file=src/generic/THTensorMath.c,line=11,col=13,title=RC003 use-after-release::"
        "`tc` <100%25, a:b> is used after it was released%0A1. ")
    assert lines[2] == ("::error file=src/broken.c,line=3,col=14,title=refcheck tool error::"
                        "expected ';' after expression")
    assert lines[3] == ("::warning file=src/huge.c,title=refcheck tool error::"
                        "gave up after 50000 states%0Ain THFoo_bar")
    assert len(lines) == 4


def test_properties_with_commas_and_colons_are_escaped(result):
    result.findings[0] = replace(result.findings[0], location=result.findings[0].location.__class__("a,b:c.c", 1, 1))
    first = render("github", result).splitlines()[0]
    assert first.startswith("::error file=a%2Cb%3Ac.c,line=1,col=1,title=RC001 leak::")
