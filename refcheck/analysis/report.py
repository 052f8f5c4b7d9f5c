"""Events to findings: the rules decide which events they report; this module words them.

The path of a finding (acquisition, branches taken, release, the event) is narrated here from
the exploration's trace, never in the transfer functions.
"""

from __future__ import annotations

from refcheck.cfg import FunctionCFG
from refcheck.events import Event, Gone, Origin
from refcheck.model import Finding, Step

MAX_PATH_STEPS = 40

_ORIGIN = {
    Origin.ACQUIRE: lambda o: f"(acquired by {o.name} at line {o.site.line})",
    Origin.PARAM: lambda o: "(a parameter)",
    Origin.FIELD: lambda o: f"(loaded from '{o.name}')",
    Origin.RETAIN: lambda o: f"(retained at line {o.site.line})",
    Origin.RESULT: lambda o: f"(returned by {o.name}, borrowed)",
}
_START = {
    Origin.ACQUIRE: lambda o: f"acquired here by {o.name}",
    Origin.PARAM: lambda o: f"'{o.name}' is a parameter (borrowed)",
    Origin.FIELD: lambda o: f"loaded from '{o.name}' (borrowed)",
    Origin.RETAIN: lambda o: "retained here",
    Origin.RESULT: lambda o: f"returned here by {o.name}, which gives no reference to the caller",
}


class Reporter:
    """Collects one finding per (rule, primary location, acquisition site)."""

    def __init__(self, cfg: FunctionCFG, rules):
        self.cfg = cfg
        self.rules = list(rules)
        self.findings: dict[tuple, Finding] = {}

    def add(self, event: Event, trace) -> None:
        for rule in self.rules:
            if rule.reports(event):
                self.finding(rule, event, trace)

    def finding(self, rule, ev: Event, trace) -> None:
        o = ev.obj
        key = (rule.code, ev.loc, o.site)
        if key in self.findings:
            return
        names = self.cfg.names
        if ev.holder is not None:
            what = f"'{names.get(ev.holder, ev.holder)}'"
        elif o.origin is Origin.ACQUIRE:
            what = f"the result of {o.name}"
        else:
            what = f"'{o.name}'"
        message = rule.message.format(what=what, origin=_ORIGIN[o.origin](o))
        path = self.path(o, trace)
        if o.released_at is not None and rule.shows_release:
            path.append(Step(o.released_at, "consumed here" if o.gone is Gone.CONSUMED else "released here"))
        path.append(Step(ev.loc, rule.note(ev)))
        self.findings[key] = Finding(rule.code, rule.name, ev.loc, self.cfg.name, message, path, [], o.site)

    def path(self, o, trace) -> list[Step]:
        steps: list[Step] = []
        t = trace
        while t is not None:
            node, label, prev = t
            if node == o.node:
                break
            if label is not None:
                kind, loc, text = label
                if kind == "case":
                    steps.append(Step(loc, f"entering {text}" if text else "entering a case"))
                else:
                    steps.append(Step(loc, f"taking the {kind} branch" + (f" ({text})" if text else "")))
            t = prev
        steps.reverse()
        if len(steps) > MAX_PATH_STEPS:
            steps = steps[-MAX_PATH_STEPS:]
        return [Step(o.site, _START[o.origin](o))] + steps

    def result(self) -> list[Finding]:
        return sorted(self.findings.values(), key=Finding.sort_key)
