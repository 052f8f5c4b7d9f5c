"""The machine-readable report: a fixed shape (version 2) that scripts and tests rely on.

Version 2 added each finding's `fingerprint` (the one SARIF's partialFingerprints carry, so a
script can match findings between runs as code scanning does) and each error's `line`,
`column` and `severity` (and `hint`, when the tool error has one).
"""

from __future__ import annotations

import json

from refcheck.findings import Location, RunResult, ToolError
from refcheck.findings.fingerprint import fingerprints
from refcheck.findings.source import SourceCache

VERSION = 2


def render(result: RunResult) -> str:
    prints = fingerprints(result.findings, SourceCache(result.root))
    doc = {
        "version": VERSION,
        "findings": [
            {
                "rule": f.rule,
                "name": f.name,
                **_location(f.location),
                "function": f.function,
                "message": f.message,
                "path": [{**_location(s.location), "message": s.message} for s in f.path],
                "instantiations": list(f.instantiations),
                "fingerprint": fp,
            }
            for f, fp in zip(result.findings, prints)
        ],
        "errors": [_error(e) for e in result.errors],
        "stats": {
            "files": result.files,
            "functions": result.functions,
            "seconds": round(result.seconds, 3),
        },
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _location(loc: Location) -> dict:
    return {"file": loc.file, "line": loc.line, "column": loc.column}


def _error(e: ToolError) -> dict:
    # line 0: the error is about the whole file (not found, crashed, timed out).
    # hint: the one flag or configuration line most likely to fix it ("" when none is known).
    return {"file": e.file, "line": e.line, "column": e.column, "severity": e.severity,
            "message": e.message, "hint": e.hint}
