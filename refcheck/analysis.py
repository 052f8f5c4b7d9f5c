"""Checking the Golden Rule on every path of one function's CFG.

The analysis walks the graph with explicit abstract states (a worklist over (node, state) pairs,
each state seen once per node), so that facts that hold on one path only, such as "t is NULL here"
or "this branch was taken earlier", are never merged away. A state says which variables point to
which tracked objects, how many owned references we hold to each, whether each was released,
consumed or is known NULL, and the outcome of earlier side-effect-free conditions. Loops reach a
fixed point because states are finite; the number of states per function is bounded, and a function
that hits the bound is reported as not fully checked.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field, replace

from refcheck import ir
from refcheck.cfg import FunctionCFG
from refcheck.conventions import Conventions
from refcheck.model import Finding, Location, Step
from refcheck.rules import RULES

MAYBE, NULL, NONNULL = 0, 1, 2
MAX_OWNED = 3
MAX_GENERATIONS = 4
MAX_PATH_STEPS = 40
# Distinct sets of branch facts explored apart per ownership configuration and node before they
# are joined (precision where it is cheap, a bound where facts multiply).
FACT_VARIANTS = 16


@dataclass(frozen=True, order=True)
class Obj:
    owned: int  # owned references this function holds
    gone: str  # "", "released", "consumed": what happened to the last owned reference
    null: int  # MAYBE, NULL, NONNULL
    origin: str  # "acquire", "param", "field", "retain"
    site: Location  # where it was acquired (or first retained, for a borrowed object)
    name: str  # the acquiring callee, the parameter or the loaded expression
    node: int  # the CFG node of the site, where reported paths start
    # Where the last reference was released: for messages only, so not part of the state's
    # identity (else every arm of an else-if chain that frees would make a new state at each join).
    released_at: Location | None = field(default=None, compare=False)
    deps: frozenset = frozenset()  # for loaded objects: the variables the loaded expression uses
    link: str = ""  # for a realloc result that may fail: the old block, released once this is non-NULL
    # References stored into memory without one being owned (`self->storage = storage;`): a later
    # retain of the object pays for the stored copy instead of giving us an owned reference.
    debt: int = 0


def same_key(cond: ir.SameObject) -> str:
    return "same:" + "|".join(sorted((cond.a, cond.b)))


class Bound(Exception):
    pass


class State:
    __slots__ = ("env", "objs", "facts")

    def __init__(self, env: dict, objs: dict, facts: dict):
        self.env = env
        self.objs = objs
        self.facts = facts

    def copy(self) -> "State":
        return State(dict(self.env), dict(self.objs), dict(self.facts))

    def key(self) -> tuple:
        return (tuple(sorted(self.env.items())), tuple(sorted(self.objs.items())),
                tuple(sorted(self.facts.items())))

    def core(self) -> tuple:
        """What ownership depends on: states equal here are explored once, their facts joined."""
        return (tuple(sorted(self.env.items())), tuple(sorted(self.objs.items())))

    def holders(self, oid: str) -> list[str]:
        return [v for v, o in self.env.items() if o == oid]


@dataclass
class Result:
    findings: list[Finding]
    states: int
    incomplete: str = ""  # why the function was not fully checked


class Analyzer:
    def __init__(self, cfg: FunctionCFG, conv: Conventions, max_states: int = 50_000,
                 seconds: float = 10.0):
        self.cfg = cfg
        self.g = cfg.graph
        self.conv = conv
        self.max_states = max_states
        self.deadline = time.monotonic() + seconds
        # THAlloc and THRealloc return owned memory by definition, like any new* function.
        self.is_new = conv.matches("acquire", cfg.name) or conv.matches("reallocate", cfg.name)
        # The implementations of release/consume/retain manipulate the count they are handed:
        # whether they "own" their parameter depends on the count, so we do not track parameters there.
        self.primitive = any(conv.matches(k, cfg.name) for k in ("release", "consume", "retain"))
        self.findings: dict[tuple, Finding] = {}
        self.incomplete = ""
        self.fact_vars: dict[str, frozenset] = {}
        counts: dict[str, int] = {}
        for n in self.g.nodes:
            cond = self.g.nodes[n]["data"].cond
            if isinstance(cond, ir.Fact):
                counts[cond.key] = counts.get(cond.key, 0) + 1
                self.fact_vars[cond.key] = cond.vars
            elif isinstance(cond, ir.SameObject):
                key = same_key(cond)
                counts[key] = counts.get(key, 0) + 1
                self.fact_vars[key] = frozenset((cond.a, cond.b))
        # Only conditions tested at two places can correlate; remembering others only splits states.
        self.correlated = {k for k, c in counts.items() if c > 1}
        # Integer variables whose constant values decide conditions (`own = 1; ... if (own)`).
        self.const_vars: set[str] = set()
        for n in self.g.nodes:
            d = self.g.nodes[n]["data"]
            if isinstance(d.cond, ir.Fact) and d.cond.simple:
                self.const_vars.add(d.cond.simple[0])
            if d.kind == "switch" and d.value:
                self.const_vars.add(d.value)

    # -- driver ---------------------------------------------------------------------------------
    def run(self) -> Result:
        init = State({}, {}, {})
        for var, is_ptr in self.cfg.params:
            if var is None or not is_ptr or self.primitive:
                continue
            oid = f"p:{var}"
            init.env[var] = oid
            init.objs[oid] = Obj(0, "", MAYBE, "param", self.cfg.loc,
                                 self.cfg.names.get(var, var), self.cfg.entry)
        # Per node: ownership core -> the fact sets explored with it. A state whose facts include
        # one of them is covered. Up to FACT_VARIANTS sets are kept apart, exactly (facts can be
        # related: `if (c0) ... else if (c1) return;` makes c1 imply c0); past that, the states
        # are joined into one with the facts common to all, so the count is bounded by the
        # ownership configurations. Facts only shrink by joins: a fixed point.
        visited: dict[int, dict] = {}
        work = deque([(self.cfg.entry, init, None)])
        visited[self.cfg.entry] = {init.core(): [dict(init.facts)]}
        states = 0
        while work:
            states += 1
            if states > self.max_states:
                self.incomplete = f"more than {self.max_states} states"
                break
            if states % 512 == 0 and time.monotonic() > self.deadline:
                self.incomplete = "time limit reached"
                break
            node, st, trace = work.popleft()
            try:
                for succ, st2, label in self.step(node, st, trace):
                    t2 = (succ, label, trace) if label else (succ, None, trace)
                    seen = visited.setdefault(succ, {})
                    variants = seen.setdefault(st2.core(), [])
                    facts = st2.facts.items()
                    if any(v.items() <= facts for v in variants):
                        continue
                    if len(variants) >= FACT_VARIANTS:
                        common = dict(st2.facts)
                        for v in variants:
                            common = {k: x for k, x in common.items() if v.get(k) == x}
                        st2.facts = common
                        variants[:] = [dict(common)]
                    else:
                        variants.append(dict(st2.facts))
                    work.append((succ, st2, t2))
            except Bound as e:
                self.incomplete = str(e)
                break
        out = sorted(self.findings.values(), key=Finding.sort_key)
        return Result(out, states, self.incomplete)

    def step(self, node: int, st: State, trace):
        data = self.g.nodes[node]["data"]
        st = st.copy()
        here = (node, None, trace)
        for i, op in enumerate(data.ops):
            self.apply(st, op, node, i, here)
        kind = data.kind
        if kind == "return":
            self.on_return(st, data.value, data.loc, here)
            return []
        if kind == "exit":
            self.on_exit(st, data.loc, here, "not released before the end of the function")
            return []
        if kind == "error":
            if self.conv.errors == "unwind":
                self.on_exit(st, data.loc, here, f"not released before {data.text} unwinds")
            return []
        if kind == "stop":
            return []
        out = []
        cases = self.case_values(node) if kind == "switch" else frozenset()
        for succ in self.g.successors(node):
            edge = self.g.edges[node, succ]
            b = edge.get("branch")
            if kind == "branch" and b is not None:
                st2 = self.assume(st, data.cond, b)
                if st2 is None:
                    continue
                for op in data.post:
                    self.apply(st2, op, node, -1, here)
                shown = edge.get("shown", b)
                label = ("true" if shown else "false", data.loc, data.text)
                out.append((succ, st2, label))
            elif kind == "switch":
                st2 = self.assume_case(st, data.value, edge, cases)
                if st2 is not None:
                    out.append((succ, st2, ("case", data.loc, edge.get("label", ""))))
            else:
                out.append((succ, st.copy(), None))
        return out

    # -- transfer -------------------------------------------------------------------------------
    def apply(self, st: State, op, node: int, index: int, trace) -> None:
        t = type(op)
        if t is ir.Acquire:
            self.acquire(st, op.dst, op.loc, op.callee, node, index)
        elif t is ir.Assign:
            new = st.env.get(op.src) if op.src is not None else None
            if op.null:  # a known NULL, so that later tests of the variable are decided
                new = f"z:{op.dst}"
                st.objs[new] = Obj(0, "", NULL, "null", op.loc, "NULL", node)
            self.bind(st, op.dst, new, op.loc, trace, overwrite=not op.dst.startswith("$"))
        elif t is ir.Kill:
            self.bind(st, op.var, None, op.loc, trace, overwrite=False)
        elif t is ir.Use:
            oid = st.env.get(op.var)
            if oid is not None:
                o = st.objs[oid]
                if o.owned == 0 and o.gone and o.null != NULL:
                    self.report("RC003", op.loc, st, oid, trace, "used here")
        elif t is ir.Release:
            for oid in dict.fromkeys(st.env.get(v) for v in op.vars):
                if oid is not None:
                    self.release(st, oid, op, trace)
        elif t is ir.Retain:
            oid = st.env.get(op.var)
            if oid is not None:
                o = st.objs[oid]
                if o.owned == 0 and o.gone and o.null != NULL:
                    self.report("RC003", op.loc, st, oid, trace, "retained here after release")
                o = st.objs[oid]
                if o.debt:  # this retain is the stored copy's reference, not ours
                    st.objs[oid] = replace(o, debt=0)
                    return
                site = o.site if o.origin == "acquire" or o.owned else op.loc
                node_ = o.node if o.origin == "acquire" or o.owned else node
                st.objs[oid] = replace(o, owned=min(MAX_OWNED, o.owned + 1), gone="", site=site, node=node_,
                                       origin=o.origin if o.origin == "acquire" else "retain")
        elif t is ir.Load:
            stored = st.facts.get("@" + op.key) if op.key else None
            if stored is not None and stored in st.objs:
                self.bind(st, op.dst, stored, op.loc, trace, overwrite=False)
                return
            oid = f"f:{op.key}" if op.key else self.fresh(st, f"l{node}.{index}")
            if oid not in st.objs:
                st.objs[oid] = Obj(0, "", MAYBE, "field", op.loc, op.what, node, deps=op.deps)
            self.bind(st, op.dst, oid, op.loc, trace, overwrite=False)
        elif t is ir.Store:
            oid = st.env.get(op.var) if op.var is not None else None
            if oid is not None:
                o = st.objs[oid]
                if o.owned:
                    st.objs[oid] = replace(o, owned=o.owned - 1)
                else:
                    st.objs[oid] = replace(o, debt=1)
            if op.target:
                before = st.facts.get("@" + op.target)
                if before is not None and before != oid and before in st.objs and st.objs[before].debt:
                    st.objs[before] = replace(st.objs[before], debt=0)  # its stored copy is gone
                self.forget(st, f"f:{op.target}")
                # Until the location or its address changes, loading it gives back what was stored.
                if oid is not None:
                    st.facts["@" + op.target] = oid
                    self.fact_vars["@" + op.target] = op.deps
                else:
                    st.facts.pop("@" + op.target, None)
        elif t is ir.Escape:
            oid = st.env.pop(op.var, None)
            self.invalidate(st, op.var)
            if oid is not None:
                o = st.objs[oid]
                st.objs[oid] = replace(o, owned=0, gone="")
                self.collect(st, oid)
        elif t is ir.Realloc:
            src = st.env.get(op.src) if op.src is not None else None
            if src is not None and not op.may_fail:
                self.drop_ref(st, src, op.loc)
            self.acquire(st, op.dst, op.loc, op.callee, node, index)
            if src is not None and op.may_fail:
                dst = st.env[op.dst]
                st.objs[dst] = replace(st.objs[dst], link=src)
        elif t is ir.Touch:
            self.invalidate(st, op.var)
        elif t is ir.Const:
            if op.var in self.const_vars:
                st.facts["=" + op.var] = op.value

    def drop_ref(self, st: State, oid: str, loc: Location) -> None:
        o = st.objs[oid]
        st.objs[oid] = replace(o, owned=max(0, o.owned - 1), gone="released" if o.owned <= 1 else "",
                               released_at=loc)

    def forget(self, st: State, oid: str) -> None:
        """A loaded location changed: later loads of the same text are a different object."""
        o = st.objs.get(oid)
        if o is None:
            return
        holders = st.holders(oid)
        if not holders and o.owned == 0:
            del st.objs[oid]
            return
        new = self.fresh(st, "g" + oid[1:])
        st.objs[new] = st.objs.pop(oid)
        for v in holders:
            st.env[v] = new

    def fresh(self, st: State, base: str) -> str:
        for k in range(MAX_GENERATIONS):
            oid = f"{base}#{k}"
            if oid not in st.objs:
                return oid
        raise Bound(f"more than {MAX_GENERATIONS} live objects from one site (in a loop)")

    def acquire(self, st: State, dst: str, loc: Location, callee: str, node: int, index: int) -> None:
        oid = self.fresh(st, f"a{node}.{index}")
        st.objs[oid] = Obj(1, "", MAYBE, "acquire", loc, callee, node)
        st.env[dst] = oid

    def bind(self, st: State, var: str, new: str | None, loc: Location, trace, overwrite: bool) -> None:
        old = st.env.get(var)
        if new is None:
            st.env.pop(var, None)
        else:
            st.env[var] = new
        if not var.startswith("$"):
            self.invalidate(st, var)
        if old is not None and old != new:
            self.lost(st, old, loc, trace, "RC007" if overwrite else "RC001",
                      "overwritten here" if overwrite else "the result is not kept",
                      var if overwrite else None)

    def lost(self, st: State, oid: str, loc: Location, trace, rule: str, note: str,
             var: str | None = None) -> None:
        if st.holders(oid):
            return
        o = st.objs[oid]
        if oid.startswith("f:") and o.owned > 0:
            return  # retained, and still reachable by loading the same expression again
        if o.owned > 0 and o.null != NULL:
            self.report(rule, loc, st, oid, trace, note, var)
        del st.objs[oid]

    def collect(self, st: State, oid: str) -> None:
        if not st.holders(oid) and st.objs[oid].owned == 0:
            del st.objs[oid]

    def invalidate(self, st: State, var: str) -> None:
        for oid in [k for k, o in st.objs.items() if o.deps and var in o.deps and k.startswith("f:")]:
            self.forget(st, oid)
        if st.facts:
            for key in [k for k in st.facts if var in self.fact_vars.get(k, ()) or k[1:] == var]:
                del st.facts[key]

    def release(self, st: State, oid: str, op: ir.Release, trace) -> None:
        o = st.objs[oid]
        if o.null == NULL:
            return
        if o.owned > 0:
            owned = o.owned - 1
            # A retained parameter or field is still alive afterwards: someone else holds it.
            gone = ("consumed" if op.consume else "released") if owned == 0 and o.origin == "acquire" else ""
            st.objs[oid] = replace(o, owned=owned, gone=gone, released_at=op.loc)
            return
        what = "consumed" if op.consume else "released"
        if o.gone == "consumed":
            self.report("RC008", op.loc, st, oid, trace, f"{what} here after it was consumed")
        elif o.gone:
            self.report("RC002", op.loc, st, oid, trace, f"{what} again here")
            if op.consume:  # reported, but it still takes the object over
                st.objs[oid] = replace(o, gone="consumed", released_at=op.loc)
        elif o.origin in ("param", "acquire", "retain"):
            self.report("RC006", op.loc, st, oid, trace, f"{what} here without an owned reference")
            # Whoever did own it may now be holding freed memory: later uses are uses after release.
            st.objs[oid] = replace(o, gone="consumed" if op.consume else "released", released_at=op.loc)

    def on_return(self, st: State, value: str | None, loc: Location, trace) -> None:
        oid = st.env.get(value) if value is not None else None
        if oid is not None:
            o = st.objs[oid]
            if o.null != NULL:
                if o.owned > 0:
                    if not self.is_new:
                        self.report("RC004", loc, st, oid, trace, "returned here")
                    st.objs[oid] = replace(o, owned=o.owned - 1)
                elif o.gone:
                    self.report("RC003", loc, st, oid, trace, "returned here after release")
                elif self.is_new and o.origin in ("param", "field", "retain"):
                    self.report("RC005", loc, st, oid, trace, "returned here without retain")
        self.on_exit(st, loc, trace, "not released before this return")

    def on_exit(self, st: State, loc: Location, trace, note: str) -> None:
        for oid, o in sorted(st.objs.items()):
            if o.owned > 0 and o.null != NULL:
                self.report("RC001", loc, st, oid, trace, note)

    def case_values(self, node: int) -> frozenset:
        return frozenset(e["case"] for _, _, e in self.g.out_edges(node, data=True) if e.get("case") is not None)

    def assume_case(self, st: State, var: str | None, edge: dict, cases: frozenset) -> State | None:
        """The edge of a switch over `var`: a case fixes its value, default excludes all cases."""
        if var is None or var not in self.const_vars:
            return st.copy()
        known = st.facts.get("=" + var)
        excluded = st.facts.get("!" + var, frozenset())
        value = edge.get("case")
        st2 = st.copy()
        if value is not None:
            if (known is not None and known != value) or value in excluded:
                return None
            st2.facts["=" + var] = value
            st2.facts.pop("!" + var, None)
        else:  # default, or no case matched
            if known is not None and known in cases:
                return None
            if known is None:
                st2.facts["!" + var] = excluded | cases
        return st2

    def assume_simple(self, st: State, simple: tuple, taken: bool):
        """True/False when constants decide `var OP k`; None when they do not."""
        var, op, k = simple
        known = st.facts.get("=" + var)
        if known is None:
            excluded = st.facts.get("!" + var, frozenset())
            if op == "==" and k in excluded:
                return taken is False
            if op == "!=" and k in excluded:
                return taken is True
            return None
        holds = {"==": known == k, "!=": known != k, "<": known < k, ">": known > k,
                 "<=": known <= k, ">=": known >= k}[op]
        return holds == taken

    def assume(self, st: State, cond, taken: bool) -> State | None:
        if isinstance(cond, ir.NullTest):
            oid = st.env.get(cond.var)
            if oid is None:
                return st.copy()
            o = st.objs[oid]
            if taken:
                if o.null == NULL:
                    return None
                st2 = st.copy()
                st2.objs[oid] = replace(o, null=NONNULL, link="")
                if o.link and o.link in st2.objs:  # realloc succeeded: the old block is gone
                    self.drop_ref(st2, o.link, o.site)
                return st2
            if o.null == NONNULL:
                return None
            st2 = st.copy()
            st2.objs[oid] = replace(o, null=NULL, owned=0, gone="", link="")
            return st2
        if isinstance(cond, ir.SameObject):
            a, b = st.env.get(cond.a), st.env.get(cond.b)
            if a is not None and a == b:  # one object: equal, whatever else we do not know
                return st.copy() if taken else None
            for this, other in ((a, cond.b), (b, cond.a)):
                if this is not None and st.objs[this].null == NULL:  # `t != n` with n NULL
                    return self.assume(st, ir.NullTest(other), not taken)
            key = same_key(cond)
            if key in self.correlated:
                known = st.facts.get(key)
                if known is not None:
                    return st.copy() if known == taken else None
                st2 = st.copy()
                st2.facts[key] = taken
                return st2
            return st.copy()
        if isinstance(cond, ir.Fact) and cond.simple and cond.simple[0] in self.const_vars:
            decided = self.assume_simple(st, cond.simple, taken)
            if decided is False:
                return None
            if decided is True:
                return st.copy()
        if isinstance(cond, ir.Fact) and cond.key in self.correlated:
            known = st.facts.get(cond.key)
            if known is not None:
                return st.copy() if known == taken else None
            st2 = st.copy()
            st2.facts[cond.key] = taken
            return st2
        return st.copy()

    # -- findings -------------------------------------------------------------------------------
    def report(self, rule: str, loc: Location, st: State, oid: str, trace, note: str,
               var: str | None = None) -> None:
        o = st.objs[oid]
        key = (rule, loc, o.site)
        if key in self.findings:
            return
        holders = [var] if var else [v for v in st.holders(oid) if not v.startswith("$")]
        names = self.cfg.names
        if holders:
            what = f"'{names.get(holders[0], holders[0])}'"
        elif o.origin == "acquire":
            what = f"the result of {o.name}"
        else:
            what = f"'{o.name}'"
        origin = {
            "acquire": f"(acquired by {o.name} at line {o.site.line})",
            "param": "(a parameter)",
            "field": f"(loaded from '{o.name}')",
            "retain": f"(retained at line {o.site.line})",
        }[o.origin]
        r = RULES[rule]
        message = r.message.format(what=what, origin=origin)
        path = self.path(o, trace)
        if o.released_at is not None and rule in ("RC002", "RC003", "RC008"):
            path.append(Step(o.released_at, "released here" if o.gone != "consumed" else "consumed here"))
        path.append(Step(loc, note))
        self.findings[key] = Finding(rule, r.name, loc, self.cfg.name, message, path, [], o.site)

    def path(self, o: Obj, trace) -> list[Step]:
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
        start = {
            "acquire": f"acquired here by {o.name}",
            "param": f"'{o.name}' is a parameter (borrowed)",
            "field": f"loaded from '{o.name}' (borrowed)",
            "retain": "retained here",
        }[o.origin]
        return [Step(o.site, start)] + steps


def analyze(cfg: FunctionCFG, conv: Conventions, max_states: int = 50_000, seconds: float = 10.0) -> Result:
    return Analyzer(cfg, conv, max_states, seconds).run()
