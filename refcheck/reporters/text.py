"""Compiler-style text: one `error:` line per finding, one `note:` line per step of its path.

Editors and CI log parsers already understand `file:line:col: severity: message`, so findings
become clickable without any refcheck-specific tooling.
"""

from __future__ import annotations

from refcheck.model import Location, RunResult, ToolError


def render(result: RunResult) -> str:
    lines = []
    for f in result.findings:
        lines.append(f"{_where(f.location)}: error: {f.message} [{f.rule} {f.name}]")
        lines.extend(f"{_where(step.location)}: note: {step.message}" for step in f.path)
    lines.extend(_error_line(e) for e in result.errors)
    return "".join(line + "\n" for line in lines)


def _where(loc: Location) -> str:
    return f"{loc.file}:{loc.line}:{loc.column}"


def _error_line(e: ToolError) -> str:
    severity = "warning" if e.severity == "warning" else "error"
    if e.line > 0:
        where = f"{e.file}:{e.line}:{max(e.column, 1)}"
    else:
        where = e.file
    return f"{where}: {severity}: {e.message} [tool]"
