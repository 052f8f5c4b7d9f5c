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
from refcheck.model import Finding, Location, RunResult, ToolError
from refcheck.reporters.fingerprint import KEY, fingerprints
from refcheck.reporters.source import SourceCache
from refcheck.rules import RULES, Rule

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/refcheck/refcheck"
SRCROOT = "%SRCROOT%"


def render(result: RunResult) -> str:
    sources = SourceCache(result.root)
    rule_index = {code: i for i, code in enumerate(RULES)}
    prints = fingerprints(result.findings, sources)
    run = {
        "tool": {"driver": _driver()},
        "invocations": [_invocation(result.errors)],
        "originalUriBaseIds": {SRCROOT: {"uri": _root_uri(result.root)}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(f, rule_index, fp) for f, fp in zip(result.findings, prints)],
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _driver() -> dict:
    return {
        "name": "refcheck",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": INFORMATION_URI,
        "rules": [_rule(r) for r in RULES.values()],
    }


def _rule(r: Rule) -> dict:
    doc = r.doc
    return {
        "id": r.code,
        "name": _pascal(r.name),
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": _section(doc, "What it finds") or r.summary},
        "help": {"text": doc, "markdown": doc},
        "helpUri": r.help_uri,
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["reference-counting", "correctness"], "precision": "high"},
    }


def _pascal(name: str) -> str:
    # SARIF §3.49.7 asks for an identifier-like name; "double-release" -> "DoubleRelease".
    return "".join(part.capitalize() for part in re.split(r"[-_\s]+", name) if part)


def _section(doc: str, title: str) -> str:
    """The first paragraph of a `## title` section of a rule doc."""
    match = re.search(rf"^## {re.escape(title)}\s*\n+(.+?)(?:\n\s*\n|\n#|\Z)", doc, re.S | re.M)
    return " ".join(match.group(1).split()) if match else ""


def _result(f: Finding, rule_index: dict[str, int], fingerprint: str) -> dict:
    out: dict = {
        "ruleId": f.rule,
        "ruleIndex": rule_index.get(f.rule, -1),
        "level": "error",
        "message": {"text": f.message},
        "locations": [{
            "physicalLocation": _physical(f.location),
            "logicalLocations": [{"name": f.function, "kind": "function"}],
        }],
        "partialFingerprints": {KEY: fingerprint},
    }
    if f.path:
        out["codeFlows"] = [{"threadFlows": [{"locations": [
            {"location": {"physicalLocation": _physical(s.location),
                          "message": {"text": s.message}},
             "executionOrder": i}
            for i, s in enumerate(f.path, 1)
        ]}]}]
    if f.origin is not None:
        out["relatedLocations"] = [{"id": 1, "physicalLocation": _physical(f.origin),
                                    "message": {"text": "acquired here"}}]
    if len(f.instantiations) > 1:
        out["properties"] = {"instantiations": list(f.instantiations)}
    return out


def _physical(loc: Location) -> dict:
    region: dict = {"startLine": max(loc.line, 1)}
    if loc.column > 0:
        region["startColumn"] = loc.column
    return {"artifactLocation": _artifact(loc.file), "region": region}


def _artifact(path: str) -> dict:
    if os.path.isabs(path):
        # Outside the root (a system header, say): no base to be relative to.
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path.replace(os.sep, "/")), "uriBaseId": SRCROOT}


def _root_uri(root: str) -> str:
    uri = Path(root).resolve().as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _invocation(errors: list[ToolError]) -> dict:
    notifications = []
    for e in errors:
        note: dict = {
            "level": "warning" if e.severity == "warning" else "error",
            "message": {"text": e.message},
        }
        if e.file:
            loc: dict = {"artifactLocation": _artifact(e.file)}
            if e.line > 0:
                loc["region"] = {"startLine": e.line, **({"startColumn": e.column}
                                                         if e.column > 0 else {})}
            note["locations"] = [{"physicalLocation": loc}]
        notifications.append(note)
    invocation: dict = {
        "executionSuccessful": not any(e.severity != "warning" for e in errors),
    }
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return invocation
