import json
import re
from dataclasses import replace

from refcheck.findings import Location, ToolError
from refcheck.reporters import render
from refcheck.findings.fingerprint import fingerprints
from refcheck.findings.source import SourceCache


def test_json_has_the_exact_shape(result):
    out = render("json", result)
    doc = json.loads(out)
    prints = [f.pop("fingerprint") for f in doc["findings"]]
    assert all(re.fullmatch(r"[0-9a-f]{32}:1", p) for p in prints)
    assert doc == {
        "version": 2,
        "findings": [
            {
                "rule": "RC001", "name": "leak",
                "file": "src/generic/THTensorMath.c", "line": 8, "column": 5,
                "function": "THFloatTensor_addSquared",
                "message": "`tc` (acquired by THFloatTensor_newContiguous at line 6) is not "
                           "released on this path",
                "path": [
                    {"file": "src/generic/THTensorMath.c", "line": 6, "column": 23,
                     "message": "`tc` acquired by THFloatTensor_newContiguous"},
                    {"file": "src/generic/THTensorMath.c", "line": 7, "column": 3,
                     "message": "taking the true branch"},
                    {"file": "src/generic/THTensorMath.c", "line": 8, "column": 5,
                     "message": "`tc` is lost here"},
                ],
                "instantiations": ["THDoubleTensor_addSquared", "THFloatTensor_addSquared"],
            },
            {
                "rule": "RC003", "name": "use-after-release",
                "file": "src/generic/THTensorMath.c", "line": 11, "column": 13,
                "function": "THFloatTensor_addSquared",
                "message": "`tc` <100%, a:b> is used after it was released",
                "path": [
                    {"file": "src/generic/THTensorMath.c", "line": 6, "column": 23,
                     "message": "`tc` acquired by THFloatTensor_newContiguous"},
                    {"file": "src/generic/THTensorMath.c", "line": 10, "column": 3,
                     "message": "`tc` released here"},
                    {"file": "src/generic/THTensorMath.c", "line": 11, "column": 13,
                     "message": "used here: <b>tc->size</b> & more"},
                ],
                "instantiations": ["THFloatTensor_addSquared"],
            },
        ],
        "errors": [
            {"file": "src/broken.c", "line": 3, "column": 14, "severity": "error",
             "message": "expected ';' after expression", "hint": ""},
            {"file": "src/huge.c", "line": 0, "column": 0, "severity": "warning",
             "message": "gave up after 50000 states\nin THFoo_bar", "hint": ""},
        ],
        "stats": {"files": 3, "functions": 7, "seconds": 1.235},
    }


def test_json_key_order_and_layout_are_fixed(result):
    out = render("json", result)
    assert out.startswith('{\n  "version": 2,\n  "findings": [\n    {\n      "rule": "RC001",\n'
                          '      "name": "leak",\n      "file": ')
    assert out.endswith('  "stats": {\n    "files": 3,\n    "functions": 7,\n'
                        '    "seconds": 1.235\n  }\n}\n')
    assert list(json.loads(out)["findings"][0]) == [
        "rule", "name", "file", "line", "column", "function", "message", "path", "instantiations",
        "fingerprint"]
    assert list(json.loads(out)["errors"][0]) == ["file", "line", "column", "severity", "message", "hint"]


def test_json_fingerprints_are_sarifs_and_survive_a_line_shift(result, tmp_path):
    doc = json.loads(render("json", result))
    expected = fingerprints(result.findings, SourceCache(result.root))
    assert [f["fingerprint"] for f in doc["findings"]] == expected
    sarif = json.loads(render("sarif", result))["runs"][0]["results"]
    assert [list(r["partialFingerprints"].values())[0] for r in sarif] == expected
    # Two lines added above the function: same defects, same fingerprints.
    source = tmp_path / result.findings[0].location.file
    source.write_text("\n\n" + source.read_text())
    moved = [replace(f, location=_down(f.location, 2), origin=_down(f.origin, 2),
                     path=[replace(s, location=_down(s.location, 2)) for s in f.path])
             for f in result.findings]
    shifted = json.loads(render("json", replace(result, findings=moved)))
    assert [f["fingerprint"] for f in shifted["findings"]] == expected


def _down(loc: Location, n: int) -> Location:
    return replace(loc, line=loc.line + n)


def test_json_error_hint_is_always_there_and_empty_when_none_is_known(result):
    # A fixed shape: scripts read e["hint"] without asking whether it is there.
    assert all(e["hint"] == "" for e in json.loads(render("json", result))["errors"])
    hinted = replace(result, errors=[ToolError("a.c", "no such file", hint="add -I")])
    assert json.loads(render("json", hinted))["errors"][0]["hint"] == "add -I"


def test_fingerprints_hash_the_text_the_check_carried_as_the_source_would_give_it(c_unit, tmp_path):
    # The check reads each finding's statements from the bytes it parsed; hashed, they give what
    # reading the file would, and they still do once the file has changed on disk.
    findings = c_unit.check_text("typedef struct T T;\nT *T_new(void);\nvoid use(T *);\n"
                                 "void f(int c) {\n  T *t =   T_new(); /* made */\n  if (c)\n    return;\n"
                                 "  use(t);\n}\n").findings
    assert findings and all(f.statements is not None and f.extent is not None for f in findings)
    assert findings[0].statements.origin == "T_new();"  # from the call on, comment and spaces dropped
    carried = fingerprints(findings, SourceCache(str(tmp_path)))
    assert carried == fingerprints([replace(f, statements=None) for f in findings], SourceCache(str(tmp_path)))
    (tmp_path / "u.c").write_text("/* rewritten since */\n")
    assert fingerprints(findings, SourceCache(str(tmp_path))) == carried


def test_statements_are_read_on_clangs_lines_past_a_form_feed(c_unit, tmp_path):
    # GNU-style C separates pages with ^L on a line of its own: clang counts it as one line, and
    # so must the text a finding's statements and fingerprint come from (str.splitlines split it).
    source = ("typedef struct T T;\nT *T_new(void);\nvoid use(T *);\n\x0c\n"
              "void f(int c) {\n  T *t = T_new();\n  if (c)\n    return;\n  use(t);\n}\n")
    findings = c_unit.check_text(source).findings
    assert findings and findings[0].statements.origin == "T_new();"
    assert SourceCache(str(tmp_path)).line("u.c", findings[0].location.line) == "    return;"
    carried = fingerprints(findings, SourceCache(str(tmp_path)))
    assert carried == fingerprints([replace(f, statements=None) for f in findings], SourceCache(str(tmp_path)))
