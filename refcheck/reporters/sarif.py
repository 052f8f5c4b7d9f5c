"""SARIF 2.1.0, for GitHub code scanning, GitLab, and IDE viewers.

Everything in the log is a function of the findings and the sources: no timestamps, no timing,
no absolute paths other than the root's base URI, so that the same findings give the same bytes
and code scanning sees no churn between runs.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import quote

from refcheck import __version__
from refcheck.findings import Finding, Location, RunResult, ToolError
from refcheck.findings.fingerprint import KEY, fingerprints
from refcheck.findings.source import SourceCache, standin
from refcheck.rules import RULES, Rule

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"


def render(result: RunResult) -> str:
    sources = SourceCache(result.root)
    rule_index = {code: i for i, code in enumerate(RULES)}
    prints = fingerprints(result.findings, sources)
    columns = Utf16Columns(result.root)
    run = {
        "tool": {"driver": _driver()},
        "invocations": [_invocation(result.errors, columns)],
        "originalUriBaseIds": {SRCROOT: {"uri": _root_uri(result.root)}},
        # libclang's columns are 1-based UTF-8 byte offsets; every column written here is
        # converted to UTF-16 code units (what GitHub and VS Code count), see Utf16Columns.
        "columnKind": "utf16CodeUnits",
        "results": [_result(f, rule_index, fp, columns)
                    for f, fp in zip(result.findings, prints)],
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _driver() -> dict:
    from refcheck.support.links import information_uri

    driver = {"name": "refcheck", "version": __version__, "semanticVersion": __version__}
    if information_uri():  # optional in SARIF; never a made-up address
        driver["informationUri"] = information_uri()
    driver["rules"] = [_rule(r) for r in RULES.values()]
    return driver


def _rule(r: Rule) -> dict:
    doc = r.doc
    out = {
        "id": r.code,
        "name": _pascal(r.name),
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": _section(doc, "What it finds") or r.summary},
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["reference-counting", "correctness"], "precision": "high"},
    }
    if r.help_uri:
        out["helpUri"] = r.help_uri
    return out


def _pascal(name: str) -> str:
    # SARIF §3.49.7 asks for an identifier-like name; "double-release" -> "DoubleRelease".
    return "".join(part.capitalize() for part in re.split(r"[-_\s]+", name) if part)


def _section(doc: str, title: str) -> str:
    """The first paragraph of a `## title` section of a rule doc."""
    match = re.search(rf"^## {re.escape(title)}\s*\n+(.+?)(?:\n\s*\n|\n#|\Z)", doc, re.S | re.M)
    return " ".join(match.group(1).split()) if match else ""


def _result(f: Finding, rule_index: dict[str, int], fingerprint: str,
            columns: Utf16Columns) -> dict:
    out: dict = {
        "ruleId": f.rule,
        "ruleIndex": rule_index.get(f.rule, -1),
        "level": "error",
        "message": {"text": f.message},
        "locations": [{
            "physicalLocation": _physical(f.location, columns),
            "logicalLocations": [{"name": f.function, "kind": "function"}],
        }],
        "partialFingerprints": {KEY: fingerprint},
    }
    if f.path:
        out["codeFlows"] = [{"threadFlows": [{"locations": [
            {"location": {"physicalLocation": _physical(s.location, columns),
                          "message": {"text": s.message}},
             "executionOrder": i}
            for i, s in enumerate(f.path, 1)
        ]}]}]
    if f.origin is not None:
        out["relatedLocations"] = [{"id": 1, "physicalLocation": _physical(f.origin, columns),
                                    "message": {"text": "acquired here"}}]
    if len(f.instantiations) > 1:
        out["properties"] = {"instantiations": list(f.instantiations)}
    return out


def _physical(loc: Location, columns: Utf16Columns) -> dict:
    region: dict = {"startLine": max(loc.line, 1)}
    if loc.column > 0:
        region["startColumn"] = columns.convert(loc.file, loc.line, loc.column)
    return {"artifactLocation": _artifact(loc.file), "region": region}


class Utf16Columns:
    """libclang's 1-based UTF-8 byte columns as 1-based UTF-16 code-unit columns.

    The bytes before the column are decoded (an invalid byte becomes one U+FFFD, as a viewer
    shows it) and counted in UTF-16 units: "é" is two bytes but one unit, "😀" four bytes but
    two units. Where the file cannot be read any more (a result from the cache, the file since
    deleted) the byte column is kept: it is exact for the ASCII prefix most lines have.
    """

    def __init__(self, root: str) -> None:
        self.root = root
        self._lines: dict[str, list[bytes] | None] = {}

    def _raw(self, file: str) -> list[bytes] | None:
        if file not in self._lines:
            data = standin(os.path.join(self.root, file))
            if data is not None:
                self._lines[file] = data.split(b"\n")
                return self._lines[file]
            try:
                with open(os.path.join(self.root, file), "rb") as f:
                    self._lines[file] = f.read().split(b"\n")
            except OSError:
                self._lines[file] = None
        return self._lines[file]

    def convert(self, file: str, line: int, column: int) -> int:
        lines = self._raw(file)
        if lines is None or not 1 <= line <= len(lines):
            return column
        prefix = lines[line - 1][:column - 1]
        if prefix.isascii():
            return column
        units = len(prefix.decode("utf-8", errors="replace").encode("utf-16-le")) // 2
        return units + 1 + max(0, column - 1 - len(prefix))


def _artifact(path: str) -> dict:
    if os.path.isabs(path):
        # Outside the root (a system header, say): no base to be relative to.
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path.replace(os.sep, "/"), errors="surrogateescape"), "uriBaseId": SRCROOT}


def _root_uri(root: str) -> str:
    uri = Path(root).resolve().as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _invocation(errors: list[ToolError], columns: Utf16Columns) -> dict:
    notifications = []
    for e in errors:
        note: dict = {
            "level": "warning" if e.severity == "warning" else "error",
            "message": {"text": e.message},
        }
        if e.hint:
            # SARIF has no fix field for notifications; the hint goes where viewers show text.
            note["message"]["text"] += f" (hint: {e.hint})"
            note["properties"] = {"hint": e.hint}
        if e.file:
            loc: dict = {"artifactLocation": _artifact(e.file)}
            if e.line > 0:
                loc["region"] = {"startLine": e.line, **(
                    {"startColumn": columns.convert(e.file, e.line, e.column)}
                    if e.column > 0 else {})}
            note["locations"] = [{"physicalLocation": loc}]
        notifications.append(note)
    invocation: dict = {
        "executionSuccessful": not any(e.severity != "warning" for e in errors),
    }
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return invocation
