"""Events to findings: the rules decide which events they report; this module words them.

The path of a finding (acquisition, branches taken, release, the event) is narrated here from
the exploration's trace, never in the transfer functions.
"""

from __future__ import annotations

from dataclasses import replace

from refcheck import ir
from refcheck.ir.cfg import FunctionCFG
from refcheck.rules.events import Event, Gone, Origin, Via
from refcheck.findings import Finding, Step

MAX_PATH_STEPS = 40

_ORIGIN = {
    Origin.ACQUIRE: lambda o: f"(acquired by {o.name} at line {o.site.line})",
    Origin.PARAM: lambda o: "(a parameter)",
    Origin.FIELD: lambda o: f"(loaded from '{o.name}')",
    Origin.RETAIN: lambda o: f"(retained at line {o.site.line})",
    Origin.RESULT: lambda o: f"(returned by {o.name}, borrowed)",
    Origin.HELD: lambda o: "(holding a reference stored by an earlier call)",
}
_START = {
    Origin.ACQUIRE: lambda o: f"acquired here by {o.name}",
    Origin.PARAM: lambda o: f"'{o.name}' is a parameter (borrowed)",
    Origin.FIELD: lambda o: f"loaded from '{o.name}' (borrowed)",
    Origin.RETAIN: lambda o: "retained here",
    Origin.RESULT: lambda o: f"returned here by {o.name}, which gives no reference to the caller",
    Origin.HELD: lambda o: f"'{o.name}' may hold a reference an earlier call stored, never read here",
}


class Reporter:
    """Collects one finding per (rule, primary location, acquisition site)."""

    def __init__(self, cfg: FunctionCFG, rules):
        self.cfg = cfg
        self.rules = list(rules)
        self.findings: dict[tuple, Finding] = {}
        self.refs: dict[tuple, str] = {}  # finding key -> its reference and origin, for merging
        self._cleanups: dict | None = None  # exit -> the variables a cleanup attribute releases there

    def cleanup_key(self, rule, ev: Event) -> tuple | None:
        """The key of a release event that is a cleanup attribute's release of its holder: one per
        variable, not per exit (every exit of the scope runs the release, one defect)."""
        if ev.via not in (Via.RELEASE, Via.CONSUME) or ev.holder is None:
            return None
        if self._cleanups is None:
            self._cleanups = {}
            for _, d in self.cfg.graph.nodes(data="data"):
                for op in (*d.ops, *d.post):
                    if type(op) is ir.Release and op.cleanup:
                        self._cleanups.setdefault(op.loc, set()).update(op.vars)
        if ev.holder not in self._cleanups.get(ev.loc, ()):
            return None
        return (rule.code, ev.holder, ev.obj.site)

    def add(self, event: Event, trace) -> None:
        for rule in self.rules:
            if rule.reports(event):
                self.finding(rule, event, trace)

    def finding(self, rule, ev: Event, trace) -> None:
        o = ev.obj
        if rule.per_release and o.released_at is not None:
            place = ("released", o.released_at)
        else:
            place = (ev.loc.file, ev.loc.line) if rule.per_line else ev.loc
        key = self.cleanup_key(rule, ev) or (rule.code, place, o.site)
        known = self.findings.get(key)
        # Reported at the first exit in the source, whichever path the exploration took first.
        if known is not None and known.location <= ev.loc:
            return
        what = self.what(o, trace, ev.holder)
        origin = _ORIGIN[o.origin](o)
        message = rule.message.format(what=what, origin=origin)
        self.refs[key] = f"{what} {origin}"
        path = self.path(o, trace, ev.holder)
        if o.released_at is not None and rule.shows_release:
            path.append(Step(o.released_at, "consumed here" if o.gone is Gone.CONSUMED else "released here"))
        path.append(Step(ev.loc, rule.note(ev)))
        self.findings[key] = Finding(rule.code, rule.name, ev.loc, self.cfg.name, message, path, [], o.site)

    def what(self, o, trace, holder: str | None) -> str:
        """The reference as the user wrote it: the variable holding it at the event; where that is
        a macro's own local (`g_clear_pointer (&data, ...)`'s `_ptr`), the last of the user's
        variables that held it on the way (`data`), else the call that made it."""
        if holder is not None and holder in self.cfg.hidden:
            holder = self._shown(o, trace)
        if holder is not None:
            return f"'{self.cfg.names.get(holder, holder)}'"
        if o.origin is Origin.ACQUIRE:
            return f"the result of {o.name}"
        return f"'{o.name}'"

    def _shown(self, o, trace) -> str | None:
        """The last variable of the user's own that the object was held in from its origin along
        the path (`_follow`'s copies, in order), None where only a macro's locals held it."""
        hidden = self.cfg.hidden
        named = lambda v: v not in hidden and not v.startswith("$")  # noqa: E731 (temporaries: `$3`)
        # Only what the origin's ops wrote (`dst`), not every variable they read (`var`: the
        # call's own argument, `g_file_get_path (file)`'s file): the ops of one macro's expansion
        # share its location, so several named ones there are not all holders, and none is taken.
        holders = {v for v, _ in self.cfg.params if self.cfg.names.get(v, v) == o.name} \
            if o.origin is Origin.PARAM else set()
        holders |= {op.dst for op in self.cfg.graph.nodes[o.node]["data"].ops
                    if op.loc == o.site and getattr(op, "dst", None)}
        seeds = [v for v in holders if named(v)]
        shown = seeds[0] if len(seeds) == 1 else None
        data = self.cfg.graph.nodes
        for node in (o.node, *(n for n, _ in self._hops(o, trace))):
            for v in _follow(data[node]["data"].ops, holders, counts=False):
                if named(v):
                    shown = v
        return shown

    @staticmethod
    def _hops(o, trace) -> list:
        """(node, edge label) of each step of the trace from the object's origin to the event."""
        hops = []
        t = trace
        while t is not None:
            node, label, prev = t
            if node == o.node:
                break
            hops.append((node, label))
            t = prev
        hops.reverse()
        return hops

    def path(self, o, trace, holder: str | None = None) -> list[Step]:
        """The acquisition, then each branch and case taken from there to the event; a branch
        whose condition mentions no variable that held the object does not bear on it."""
        hops = self._hops(o, trace)
        data = self.cfg.graph.nodes
        holders = self._seeds(o, holder)
        _follow(data[o.node]["data"].ops, holders)
        steps: list[Step] = []
        before = o.node
        for node, label in hops:
            if label is not None:
                kind, loc, text = label
                branch = data[before]["data"]
                bears = _bears(branch.value if kind == "case" else branch.cond, holders)
                if kind == "case":
                    steps.append(Step(loc, f"entering {text}" if text else "entering a case", bears))
                else:
                    steps.append(Step(loc, f"taking the {kind} branch" + (f" ({text})" if text else ""),
                                      bears))
            _follow(data[node]["data"].ops, holders)
            before = node
        if len(steps) > MAX_PATH_STEPS:
            steps = steps[-MAX_PATH_STEPS:]
        return [Step(o.site, _START[o.origin](o))] + steps

    def _seeds(self, o, holder: str | None) -> set[str]:
        """The variables that hold the object where it enters the path."""
        seeds = {holder} if holder is not None else set()
        if o.origin is Origin.PARAM:
            seeds |= {v for v, _ in self.cfg.params if self.cfg.names.get(v, v) == o.name}
        for op in self.cfg.graph.nodes[o.node]["data"].ops:
            if op.loc == o.site:
                seeds |= {v for v in (getattr(op, "dst", None), getattr(op, "var", None)) if v}
        return seeds

    def result(self) -> list[Finding]:
        out: dict[tuple, Finding] = {}
        merged: dict[tuple, list[str]] = {}
        for key, f in sorted(self.findings.items(), key=lambda kv: (kv[1].sort_key(), kv[1].origin)):
            rule = next((r for r in self.rules if r.code == f.rule), None)
            place = (f.rule, f.location) if rule is not None and rule.merged else key
            if place in out:
                merged[place].append(self.refs[key])
                continue
            out[place], merged[place] = f, [self.refs[key]]
        for place, refs in merged.items():
            if len(refs) > 1:
                rule = next(r for r in self.rules if r.code == out[place].rule)
                out[place] = replace(out[place], message=rule.merged.format(
                    refs=", ".join(refs[:-1]) + " and " + refs[-1]))
        return sorted(out.values(), key=Finding.sort_key)


def _follow(ops, holders: set[str], counts: bool = True) -> list[str]:
    """Adds to `holders` the variables a node's ops copy the object into (`r = t`), and (with
    `counts`) the counts taken of it (`n = nElement(t)`, which size tests compare); returns the
    copies' variables, in order."""
    copies = []
    for op in ops:
        if isinstance(op, (ir.Assign, ir.Realloc)) and op.src in holders:
            holders.add(op.dst)
            copies.append(op.dst)
        elif counts and isinstance(op, ir.Count) and op.tensor in holders:
            holders.add(op.var)
    return copies


def _bears(cond, holders: set[str]) -> bool:
    """Whether a branch's condition (or a switch's value) mentions a variable that held the
    object. A condition the frontend could not analyse (calls with side effects: ir.Opaque)
    names no variables, so it is kept: dropping it could hide the step that matters."""
    if isinstance(cond, str):
        return cond in holders
    if isinstance(cond, ir.SizeTest):
        named = {cond.a, cond.b} | (set(cond.fallback.vars) if cond.fallback else set())
    elif isinstance(cond, ir.NullTest):
        named = {cond.var}
    elif isinstance(cond, ir.Fact):
        named = set(cond.vars)
    elif isinstance(cond, ir.SameObject):
        named = {cond.a, cond.b}
    else:
        return True
    return not named.isdisjoint(holders)
