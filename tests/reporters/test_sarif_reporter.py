import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from refcheck.findings import Location
from refcheck.reporters import render
from refcheck.rules import RULES

from sample_result import FILE, SOURCE, make_result

SCHEMA = json.loads((Path(__file__).parent.parent / "data" / "sarif-schema-2.1.0.json")
                    .read_text("utf-8"))


def validate(log: dict) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(log)


def test_the_vendored_schema_rejects_a_broken_log():
    # Guards the guard: a schema that accepted anything would make the tests below vacuous.
    with pytest.raises(jsonschema.ValidationError):
        validate({"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": []}]})


def test_sarif_is_valid_against_the_official_schema(result):
    validate(json.loads(render("sarif", result)))


def test_an_empty_run_is_valid_and_successful(tmp_path):
    from refcheck.findings import RunResult
    log = json.loads(render("sarif", RunResult(root=str(tmp_path))))
    validate(log)
    run = log["runs"][0]
    assert run["results"] == []
    assert run["invocations"] == [{"executionSuccessful": True}]


def test_driver_lists_every_rule_with_its_doc(result):
    driver = json.loads(render("sarif", result))["runs"][0]["tool"]["driver"]
    assert driver["name"] == "refcheck"
    from refcheck.support import links
    # Only the address pyproject's [project.urls] declares, never a made-up one.
    assert driver.get("informationUri") == links.information_uri()
    assert [r["id"] for r in driver["rules"]] == list(RULES)
    leak = driver["rules"][0]
    assert leak["name"] == "Leak"
    assert leak["shortDescription"]["text"] == RULES["RC001"].summary
    assert leak["fullDescription"]["text"].startswith("An owned reference")
    assert leak["help"]["markdown"] == RULES["RC001"].doc
    assert leak.get("helpUri") == links.rule_doc_uri("RC001")


def test_results_carry_location_path_and_fingerprint(result, tmp_path):
    run = json.loads(render("sarif", result))["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    first = run["results"][0]
    assert first["ruleId"] == "RC001"
    assert first["ruleIndex"] == 0
    assert first["level"] == "error"
    assert run["results"][1]["ruleIndex"] == 2
    phys = first["locations"][0]["physicalLocation"]
    assert phys == {"artifactLocation": {"uri": FILE, "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": 8, "startColumn": 5}}
    steps = first["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [(s["location"]["physicalLocation"]["region"]["startLine"],
             s["location"]["message"]["text"]) for s in steps] == [
        (6, "`tc` acquired by THFloatTensor_newContiguous"),
        (7, "taking the true branch"),
        (8, "`tc` is lost here")]
    assert first["properties"]["instantiations"] == [
        "THDoubleTensor_addSquared", "THFloatTensor_addSquared"]
    assert set(first["partialFingerprints"]) == {"refcheckFingerprint/v1"}


def test_tool_errors_become_notifications(result):
    invocation = json.loads(render("sarif", result))["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    notes = invocation["toolExecutionNotifications"]
    assert [(n["level"], n["message"]["text"]) for n in notes] == [
        ("error", "expected ';' after expression"),
        ("warning", "gave up after 50000 states\nin THFoo_bar")]
    assert notes[0]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3, "startColumn": 14}
    assert "region" not in notes[1]["locations"][0]["physicalLocation"]


def test_no_timing_leaks_into_the_log(result):
    text = render("sarif", result)
    assert "1.23" not in text and "startTimeUtc" not in text and "endTimeUtc" not in text


def fingerprints(root) -> list[str]:
    run = json.loads(render("sarif", make_result(str(root))))["runs"][0]
    return [r["partialFingerprints"]["refcheckFingerprint/v1"] for r in run["results"]]



def write(root: Path, text: str) -> None:
    path = root / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def shifted_fingerprints(root: Path, by: int) -> list[str]:
    res = make_result(str(root))
    res.findings = [replace(f, location=Location(f.location.file, f.location.line + by, f.location.column),
                            origin=Location(f.origin.file, f.origin.line + by, f.origin.column))
                    for f in res.findings]
    run = json.loads(render("sarif", res))["runs"][0]
    return [r["partialFingerprints"]["refcheckFingerprint/v1"] for r in run["results"]]


def test_fingerprints_survive_a_line_shift_but_not_a_changed_statement(tmp_path):
    write(tmp_path, SOURCE)
    before = shifted_fingerprints(tmp_path, 0)
    assert len(set(before)) == 2
    write(tmp_path, "/* a new\n   licence header */\n\n" + SOURCE)
    assert shifted_fingerprints(tmp_path, 3) == before
    write(tmp_path, SOURCE.replace("    return;", "    return   ; // refcheck: ignore[RC003]"))
    assert shifted_fingerprints(tmp_path, 0) == before
    write(tmp_path, SOURCE.replace("newContiguous(t)", "newClone(t)"))
    after = shifted_fingerprints(tmp_path, 0)
    assert after[0] != before[0] and after[1] != before[1]


def test_fingerprints_fall_back_when_the_source_is_gone(tmp_path):
    gone = shifted_fingerprints(tmp_path, 0)
    assert gone == shifted_fingerprints(tmp_path, 40)
    write(tmp_path, SOURCE)
    assert shifted_fingerprints(tmp_path, 0) != gone


def test_identical_statements_get_distinct_fingerprints(result):
    twin = result.findings[0]
    from dataclasses import replace
    result.findings.insert(1, replace(twin, location=Location(FILE, 8, 5)))
    run = json.loads(render("sarif", result))["runs"][0]
    prints = [r["partialFingerprints"]["refcheckFingerprint/v1"] for r in run["results"]]
    assert prints[0].rsplit(":", 1)[0] == prints[1].rsplit(":", 1)[0]
    assert prints[0] != prints[1]


def test_columns_are_utf16_code_units_as_declared(tmp_path):
    """libclang reports 1-based UTF-8 byte columns; the log declares and writes UTF-16 units."""
    from refcheck.findings import Finding, RunResult, Step, ToolError

    # "é" is 2 bytes / 1 unit, "😀" 4 bytes / 2 units: `t` is byte column 20, unit column 17.
    line = 'a("é😀"); /* */ t = T_new();'
    byte_col = line.encode("utf-8").index(b"t = ") + 1
    assert byte_col == 20
    (tmp_path / "u.c").write_text(line + "\n", encoding="utf-8")
    here = Location("u.c", 1, byte_col)
    result = RunResult(
        findings=[Finding("RC001", "leak", here, "f", "m", [Step(here, "acquired")], origin=here)],
        errors=[ToolError("u.c", "w", 1, byte_col, "warning"),
                ToolError("gone.c", "file no longer there", 2, 9)],
        root=str(tmp_path))
    log = json.loads(render("sarif", result))
    validate(log)
    run = log["runs"][0]
    assert run["columnKind"] == "utf16CodeUnits"
    expected = len(line[:line.index("t = ")].encode("utf-16-le")) // 2 + 1
    assert expected == 17
    res = run["results"][0]
    assert res["locations"][0]["physicalLocation"]["region"]["startColumn"] == expected
    assert res["relatedLocations"][0]["physicalLocation"]["region"]["startColumn"] == expected
    flow = res["codeFlows"][0]["threadFlows"][0]["locations"][0]["location"]
    assert flow["physicalLocation"]["region"]["startColumn"] == expected
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert notes[0]["locations"][0]["physicalLocation"]["region"]["startColumn"] == expected
    # An unreadable file keeps libclang's column (exact for an ASCII prefix).
    assert notes[1]["locations"][0]["physicalLocation"]["region"]["startColumn"] == 9


def test_rule_help_has_text_and_markdown(result):
    rules = json.loads(render("sarif", result))["runs"][0]["tool"]["driver"]["rules"]
    for rule in rules:
        assert rule["help"]["markdown"] == RULES[rule["id"]].doc
        assert rule["help"]["text"].strip()
