"""`refcheck cfg`: a function's graph as text or Graphviz DOT, as the analysis sees it."""

from __future__ import annotations

from refcheck import ir
from refcheck.analysis.view import state_table
from refcheck.ir.cfg import FunctionCFG
from refcheck.rules import RULES


class UnitNotParsed(Exception):
    """clang stopped on a fatal error: any graph would be of a unit it never read to the end."""

    def __init__(self, errors):
        super().__init__(errors)
        self.errors = errors


def render(path: str, function: str, fmt: str, settings, states: bool = False, errors: list | None = None) -> str:
    """Raises LookupError when no definition of `function` is in the unit, UnitNotParsed when the
    parse stopped on a fatal error; the errors of a partial parse are appended to `errors`."""
    from refcheck.frontend.builder import build_cfg
    from refcheck.frontend.unit import parse

    parsed = parse(path, settings.clang_args)
    if parsed.fatal:
        raise UnitNotParsed(parsed.errors)
    if errors is not None:
        errors.extend(parsed.errors)
    matches = [fn for fn in parsed.functions if fn.spelling == function]
    if not matches:
        names = sorted({fn.spelling for fn in parsed.functions})
        hint = f"; functions here: {', '.join(names[:20])}" + (" ..." if len(names) > 20 else "") if names else ""
        raise LookupError(f"no definition of '{function}' in {path}{hint}")
    from dataclasses import replace

    from refcheck.frontend.handles import counted_types
    conv = replace(settings.conventions, unit_counted=counted_types(parsed.top, settings.conventions))
    out = []
    for fn in matches:
        cfg = build_cfg(fn, conv)
        table = None
        if states:
            table, result = state_table(cfg, conv, RULES.values(), settings.max_states,
                                        settings.function_seconds)
            if result.incomplete:
                table[-1] = [f"not fully checked: {result.incomplete}"]
        out.append(to_dot(cfg, table) if fmt == "dot" else to_text(cfg, table))
    return "\n".join(out)


def _node_lines(cfg: FunctionCFG, n: int, table: dict | None = None) -> list[str]:
    d = cfg.graph.nodes[n]["data"]
    head = d.kind
    if d.loc is not None and d.kind != "block":
        head += f" (line {d.loc.line})"
    if d.text and d.kind in ("block", "error", "stop"):
        head += f" {d.text}"
    lines = [head]
    lines += [ir.describe(op, cfg.names) for op in d.ops]
    if d.kind == "branch":
        cond = d.cond
        if isinstance(cond, ir.SameObject):
            lines.append(f"if {cfg.names.get(cond.a, cond.a)} == {cfg.names.get(cond.b, cond.b)}  ({d.text})")
        elif isinstance(cond, ir.NullTest):
            lines.append(f"if {cfg.names.get(cond.var, cond.var)} != NULL  ({d.text})")
        else:
            lines.append(f"if {d.text}" + ("  [correlated]" if isinstance(cond, ir.Fact) else ""))
        lines += [ir.describe(op, cfg.names) for op in d.post]
    if d.kind == "return":
        lines.append(f"return {cfg.names.get(d.value, d.value) if d.value else ''}".rstrip())
    if table is not None:
        # The states reaching the node, before its ops run.
        seen = table.get(n, [])
        lines += [f"state {s}" for s in seen] if seen else ["state: unreachable"]
    return lines


def _edge_label(cfg: FunctionCFG, a: int, b: int) -> str:
    e = cfg.graph.edges[a, b]
    if e.get("branch") is True:
        return "true"
    if e.get("branch") is False:
        return "false"
    return e.get("label", "")


def to_text(cfg: FunctionCFG, table: dict | None = None) -> str:
    g = cfg.graph
    out = [f"function {cfg.name} ({cfg.loc.file}:{cfg.loc.line}): {g.number_of_nodes()} nodes, "
           f"{g.number_of_edges()} edges"]
    if table is not None and -1 in table:
        out.append(f"  {table[-1][0]}")
    for n in sorted(g.nodes):
        lines = _node_lines(cfg, n, table)
        out.append(f"  [{n}] {lines[0]}")
        out += [f"        {line}" for line in lines[1:]]
        succ = []
        for s in sorted(g.successors(n)):
            label = _edge_label(cfg, n, s)
            succ.append(f"{s} ({label})" if label else str(s))
        if succ:
            out.append(f"        -> {', '.join(succ)}")
    return "\n".join(out) + "\n"


def _dot_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def to_dot(cfg: FunctionCFG, table: dict | None = None) -> str:
    g = cfg.graph
    out = [f'digraph "{_dot_escape(cfg.name)}" {{', '  node [shape=box, fontname="monospace"];']
    for n in sorted(g.nodes):
        label = "\\l".join(_dot_escape(x) for x in _node_lines(cfg, n, table)) + "\\l"
        kind = g.nodes[n]["data"].kind
        shape = {"branch": "diamond", "switch": "diamond", "entry": "oval", "exit": "oval"}.get(kind, "box")
        out.append(f'  n{n} [label="{label}", shape={shape}];')
    for a, b in sorted(g.edges):
        label = _edge_label(cfg, a, b)
        out.append(f'  n{a} -> n{b}' + (f' [label="{_dot_escape(label)}"]' if label else "") + ";")
    out.append("}")
    return "\n".join(out) + "\n"
