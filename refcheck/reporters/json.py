"""The machine-readable report: a fixed shape (version 1) that scripts and tests rely on."""

from __future__ import annotations

import json

from refcheck.findings import Location, RunResult

VERSION = 1


def render(result: RunResult) -> str:
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
            }
            for f in result.findings
        ],
        "errors": [{"file": e.file, "message": e.message, "hint": e.hint} for e in result.errors],
        "stats": {
            "files": result.files,
            "functions": result.functions,
            "seconds": round(result.seconds, 3),
        },
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _location(loc: Location) -> dict:
    return {"file": loc.file, "line": loc.line, "column": loc.column}
