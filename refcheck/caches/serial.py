"""A unit's result to JSON and back, validating every value read back (the cache is input)."""

from __future__ import annotations

import math

from refcheck.conventions.summary import Source
from refcheck.conventions.records import RecordError, parse_record, record_table
from refcheck.findings import Comment, Extent, Finding, Location, StatementText, Step, ToolError, UnitResult

MAX_TEXT = 64 << 10
MAX_ITEMS = 100_000
MAX_LINE = 1 << 31

def _loc_out(loc: Location) -> dict:
    return {"file": loc.file, "line": loc.line, "column": loc.column}


def dump_result(r: UnitResult) -> dict:
    return {
        "file": r.file,
        "functions": r.functions,
        "includes": list(r.includes),
        "timings": dict(r.timings),
        "errors": [{"file": e.file, "message": e.message, "line": e.line, "column": e.column,
                    "severity": e.severity, "hint": e.hint} for e in r.errors],
        "findings": [{
            "rule": f.rule, "name": f.name, "location": _loc_out(f.location),
            "function": f.function, "message": f.message,
            "path": [{"location": _loc_out(s.location), "message": s.message,
                      **({} if s.bears else {"bears": False})} for s in f.path],
            "instantiations": list(f.instantiations),
            "origin": _loc_out(f.origin) if f.origin else None,
            "statements": None if f.statements is None else [f.statements.primary, f.statements.origin],
            "extent": None if f.extent is None else _extent_out(f.extent),
        } for f in r.findings],
        "exports": {name: record_table(s) for name, s in r.exports.items()},
        "imported": [list(u) for u in r.imported],
        "comments": [{"location": _loc_out(c.location), "text": c.text} for c in r.comments],
        "definitions": [_extent_out(e) for e in r.definitions],
    }


def _extent_out(e: Extent) -> list:
    return [e.file, e.first, e.body, e.last]


class Invalid(ValueError):
    pass


def _text(v, limit: int = MAX_TEXT) -> str:
    if not isinstance(v, str) or len(v) > limit:
        raise Invalid("expected a string")
    return v


def _count(v, hi: int = MAX_LINE) -> int:
    if type(v) is not int or not 0 <= v < hi:
        raise Invalid("expected a small non-negative integer")
    return v


def _items(v, limit: int = MAX_ITEMS) -> list:
    if not isinstance(v, list) or len(v) > limit:
        raise Invalid("expected a list")
    return v


def _obj(v) -> dict:
    if not isinstance(v, dict):
        raise Invalid("expected an object")
    return v


def load_result(d, files: set[str] | None = None) -> UnitResult:
    """Raises Invalid (a ValueError) on anything it does not expect. With `files`, every
    location must name one of them (the unit's own files as reported)."""
    d = _obj(d)

    def file(v) -> str:
        name = _text(v, 4096)
        if files is not None and name not in files:
            raise Invalid(f"location outside the unit's files: {name!r}")
        return name

    def loc(v) -> Location:
        v = _obj(v)
        return Location(file(v["file"]), _count(v["line"]), _count(v["column"]))

    def strings(v) -> list[str]:
        return [_text(x) for x in _items(v)]

    def extent(v) -> Extent:
        v = _items(v, 4)
        if len(v) != 4:
            raise Invalid("extent")
        return Extent(file(v[0]), _count(v[1]), _count(v[2]), _count(v[3]))

    timings = {}
    for k, v in _obj(d["timings"]).items():
        if type(v) not in (int, float) or not math.isfinite(v) or not 0 <= v < 1e9 or len(k) > 64:
            raise Invalid("timings")
        timings[k] = float(v)
    errors = []
    for e in _items(d["errors"]):
        e = _obj(e)
        severity = e["severity"]
        if severity not in ("error", "warning"):
            raise Invalid("severity")
        errors.append(ToolError(file(e["file"]), _text(e["message"]), _count(e["line"]),
                                _count(e["column"]), severity, _text(e.get("hint", ""))))
    findings = []
    for f in _items(d["findings"]):
        f = _obj(f)
        origin = f["origin"]
        findings.append(Finding(
            rule=_text(f["rule"], 16), name=_text(f["name"], 64), location=loc(f["location"]),
            function=_text(f["function"]), message=_text(f["message"]),
            path=[_step(_obj(s), loc) for s in _items(f["path"])],
            instantiations=strings(f["instantiations"]),
            origin=loc(origin) if origin is not None else None,
            statements=_statements(f["statements"]),
            extent=None if f["extent"] is None else extent(f["extent"])))
    try:
        exports = {_text(n): parse_record(_obj(t), n, Source.INFERRED) for n, t in _obj(d.get("exports", {})).items()}
    except RecordError as e:
        raise Invalid(str(e)) from None
    imported = tuple((_text(_items(u)[0]), _text(_items(u)[1], 64)) for u in _items(d.get("imported", [])))
    comments = tuple(Comment(loc(_obj(c)["location"]), _text(c["text"])) for c in _items(d.get("comments", [])))
    definitions = tuple(extent(e) for e in _items(d.get("definitions", [])))
    return UnitResult(file=file(d["file"]), functions=_count(d["functions"]),
                      includes=strings(d["includes"]), timings=timings, errors=errors,
                      findings=findings, exports=exports, imported=imported,
                      comments=comments, definitions=definitions)


def _statements(v) -> StatementText | None:
    if v is None:
        return None
    v = _items(v, 2)
    if len(v) != 2:
        raise Invalid("statements")
    return StatementText(*(None if x is None else _text(x) for x in v))


def _step(s: dict, loc) -> Step:
    bears = s.get("bears", True)
    if bears not in (True, False):
        raise Invalid("bears")
    return Step(loc(s["location"]), _text(s["message"]), bears)
