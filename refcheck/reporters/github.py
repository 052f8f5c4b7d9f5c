"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

Escaping follows the Actions toolkit (`@actions/core` command.ts): `%`, CR and LF in the message;
additionally `:` and `,` in property values, which would otherwise end the property.
"""

from __future__ import annotations

from refcheck.findings import RunResult, ToolError


def render(result: RunResult) -> str:
    lines = []
    for f in result.findings:
        props = {"file": f.location.file, "line": f.location.line, "col": f.location.column,
                 "title": f"{f.rule} {f.name}"}
        # The annotation shows only its own line, so the path goes into the message body.
        body = [f.message] + [
            f"{i}. {s.location.file}:{s.location.line}: {s.message}"
            for i, s in enumerate(f.path, 1)
        ]
        lines.append(_command("error", props, "\n".join(body)))
    lines.extend(_tool_error(e) for e in result.errors)
    return "".join(line + "\n" for line in lines)


def _tool_error(e: ToolError) -> str:
    props: dict[str, object] = {"file": e.file}
    if e.line > 0:
        props["line"] = e.line
        if e.column > 0:
            props["col"] = e.column
    props["title"] = "refcheck tool error"
    text = e.message + (f" (hint: {e.hint})" if e.hint else "")
    return _command("warning" if e.severity == "warning" else "error", props, text)


def _command(kind: str, props: dict[str, object], message: str) -> str:
    joined = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items())
    return f"::{kind} {joined}::{escape_data(message)}"


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")
