"""A cheap first pass (issue 30): proves a function needs no path-sensitive exploration.

`prove` answers True only where the full exploration (`explore`) would report no finding and
infer the default summary: PROVEN. Anything it does not fully understand is UNKNOWN (False), and
the function is explored as before. It is sound by construction, as an over-approximation of the
exploration's own states, restricted to what it can follow exactly:

- The function is screened first (`screening.screen`): every op, condition and node kind must be one
  whose effect on owned objects is listed below; a parameter is never released, retained, stored
  or handed back; no store, sink or return hands on a value an acquisition may have given; no
  convention that reads more of the body (a primitive's, a destructor's or a `new*` function's
  rules, a configured record taking a parameter over) applies.
  Which values a variable may hold is an alias class (assignments, loads and stores of one
  location), computed once for the function.
- Each acquisition site's object is followed on its own, flow-sensitively, as the set of
  (status, holders) it may be in at each node: not live (None), OWNED, RELEASED, or NULLED (the
  false edge of a null test of a holder: the exploration then knows it NULL, owned by nobody),
  with the variables holding it. Sets are joined at merges (path-insensitively across sites,
  exactly per site): `c = NULL; if (!contig) c = THAlloc(..); ... if (c != NULL) THFree(c);`
  ends {None, RELEASED, NULLED}, the TH_TENSOR_APPLY counters' shape. The only edges left out
  are a size test's that every explored state's size facts decide (`mustsizes`).
- Every event the exploration could emit from such states (a release of a released object, a
  use after release, an owned object losing its last holder, one owned at a return, at the
  end or at an unwinding error, a release of the wrong family) makes the answer UNKNOWN.
- The summary is the default when no return hands a value back, no parameter's fate changes,
  and the exploration reaches a returning end or no error and no stop: where this pass reaches
  an error or a stop, a return is shown reachable by the exploration's own transfer along one
  path (`_returns`), whose facts are a superset of any explored state's (joins, the pruner and
  the contraction only drop facts, so they only add edges). Where steals are inferred (the
  cpython and glib presets), every pointer parameter must also be seen escaping on such a
  path, else the summary would call it unkept.

`first_pass` is the hook `analyze` calls. REFCHECK_PREPASS=0 turns the pass off (the oracle);
REFCHECK_PREPASS_WHY=FILE appends a JSON line per analysis (why it was not proved, what its
exploration cost: `tools/prepass_why.py` tabulates them);
REFCHECK_PREPASS_CHECK runs both on every proved function and records a disagreement (a finding,
another summary, or the exploration giving up) in `DISAGREEMENTS`, raising `Disagreement` when
set to 1, else appending a JSON line per proved function to the file it names.
"""

from __future__ import annotations

import enum
import heapq
import json
import os
import time
from collections import deque
from types import SimpleNamespace

from refcheck import ir
from refcheck.ir.digraph import out_edges
from refcheck.analysis import mustsizes
from refcheck.analysis.endings import Endings
from refcheck.analysis.screening import INERT, Plan, Unknown, screen
from refcheck.analysis.explore import Result
from refcheck.analysis.nullness import null_told_parameters
from refcheck.analysis.observer import PathObserver
from refcheck.analysis.state import Bound
from refcheck.analysis.transfer import Transfer
from refcheck.conventions.summary import DEFAULT

# Read once, here: the switch and the check mode.
ENABLED = os.environ.get("REFCHECK_PREPASS", "1") != "0"
CHECK = os.environ.get("REFCHECK_PREPASS_CHECK", "")
# A JSON line per analysis: what kept it from being proved, and what its exploration cost.
WHY = os.environ.get("REFCHECK_PREPASS_WHY", "")
DISAGREEMENTS: list[str] = []


class Disagreement(AssertionError):
    """The pass said PROVEN where the exploration found a finding or another summary."""


class Status(enum.IntEnum):
    OWNED = 0
    RELEASED = 1
    NULLED = 2  # known NULL on this path (a null test's false edge): owned by nobody, inert


def prove(cfg, conv) -> bool:
    """True: the exploration would report no finding and infer DEFAULT (see the module's text)."""
    return not why_unknown(cfg, conv)


def why_unknown(cfg, conv, unwinding: bool = True) -> str:
    """What keeps the function from being proved ("" where it is proved); `unwinding=False`: what
    keeps it from being proved but for the owned objects an unwinding error end loses."""
    return _answer(cfg, conv, unwinding)[0]


def _answer(cfg, conv, unwinding: bool = True) -> tuple[str, "_Flow | None"]:
    """`why_unknown`'s answer and the flow that gave it (None: the screening or the flow gave up).
    The flow is the same with or without `unwinding`: an error end is an end either way, and its
    owned objects are noted (`_Flow.leaky`), not followed; only the answer reads them."""
    try:
        flow = _Flow(cfg, conv, screen(cfg, conv))
        flow.run()
    except (Unknown, Bound) as e:
        return str(e) or type(e).__name__, None
    if unwinding and flow.leaky:
        return "an owned object at an end", flow  # `Endings.on_exit` at an unwinding error end
    return _ends_answer(cfg, conv, flow), flow


def _ends_answer(cfg, conv, flow: "_Flow") -> str:
    """What the flow's ends leave unproved (a may_raise summary, no return, an unkept parameter)."""
    if flow.reached_error and conv.errors == "unwind" and conv.may_raise_summaries:
        return "the summary would say may_raise"
    if conv.infer_steals and null_told_parameters(cfg):
        return "a non-zero result may say a parameter is NULL (Summary.null_when_nonzero)"
    # Where steals are inferred, the summary names the pointer parameters kept nowhere (unkept):
    # it is the default only where each escapes on some explored path.
    params = {v for v, is_ptr in cfg.params if v is not None and is_ptr} if conv.infer_steals else set()
    if not (flow.reached_error or flow.reached_stop or params):
        return ""
    returned, escaped = _returns(cfg, conv)
    if not returned:
        return "no returning end shown reachable: it may end ERROR or EXIT"
    if params - escaped:
        return "a pointer parameter not shown to escape: the summary may call it unkept"
    return ""


# -- screening -------------------------------------------------------------------------------------
# -- the flow --------------------------------------------------------------------------------------
# Per site, the set of what its object may be at a node: None (not live) or (Status, holders).
# Past this many, the pass gives up (holders' subsets could make it exponential; a counter has 4).
MAX_CASES = 64
# The tail cut (`unwinding_only`) is made where at least 1/TAIL_SHARE of the nodes reach no leaky error end.
TAIL_SHARE = 4


class _Flow:
    """The per-site sets at every node, to a fixed point (they only grow, and are finite)."""

    def __init__(self, cfg, conv, plan: Plan):
        self.cfg, self.conv, self.plan = cfg, conv, plan
        self.data = plan.data
        self.out = out_edges(cfg.graph)
        self.unwind = conv.errors == "unwind"
        # The unwinding error ends where an acquired object may be owned: the only ones where
        # the exploration may report (`unwinding_only`).
        self.leaky: set[int] = set()
        self.family_check = SimpleNamespace(conv=conv)  # `Endings.wrong_family` reads only conv
        self.reached_return = self.reached_error = self.reached_stop = False
        self.sizes = plan.sizes

    def run(self) -> None:
        start = {s: frozenset((None,)) for s in self.plan.sites}
        seen: dict[int, dict] = {self.cfg.entry: start}
        # The size facts every explored state has at a node's entry (`mustsizes`), where the
        # function tests sizes: they only shrink, as the sets only grow; both are followed to
        # a common fixed point.
        must: dict[int, frozenset] = {self.cfg.entry: mustsizes.NONE} if self.sizes is not None else {}
        # Nodes in reverse postorder: a node waits for its predecessors outside loops (a queue in
        # arrival order stepped the APPLY bodies' nodes 386 times per function on average).
        order = self.reverse_postorder()
        work = [(order[self.cfg.entry], self.cfg.entry)]
        queued = {self.cfg.entry}
        while work:
            node = heapq.heappop(work)[1]
            queued.discard(node)
            for succ, st, facts in self.step(node, seen[node], must.get(node)):
                if not self.merge(seen, must, succ, st, facts):
                    continue
                if succ not in queued:
                    queued.add(succ)
                    heapq.heappush(work, (order[succ], succ))

    def merge(self, seen: dict, must: dict, succ: int, st: dict, facts) -> bool:
        """Join what reaches `succ`; whether anything there changed."""
        old = seen.get(succ)
        changed = False
        if facts is not None:
            was = must.get(succ)
            now = facts if was is None else was & facts
            if now != was:
                must[succ] = now
                changed = True
        if old is None:
            seen[succ] = st
            return True
        grown = {s: old[s] | xs for s, xs in st.items() if not xs <= old[s]}
        if not grown:
            return changed
        if any(len(xs) > MAX_CASES for xs in grown.values()):
            raise Unknown("too many ways to hold one object")
        seen[succ] = {**old, **grown}
        return True

    def reverse_postorder(self) -> dict[int, int]:
        """Node -> its rank in a reverse postorder from the entry (iterative depth first)."""
        post: list[int] = []
        done = {self.cfg.entry}
        stack = [(self.cfg.entry, iter(self.out[self.cfg.entry]))]
        while stack:
            node, succs = stack[-1]
            for succ, _ in succs:
                if succ not in done:
                    done.add(succ)
                    stack.append((succ, iter(self.out[succ])))
                    break
            else:
                stack.pop()
                post.append(node)
        return {n: i for i, n in enumerate(reversed(post))}

    def step(self, node: int, st: dict, facts) -> list:
        d = self.data[node]
        # Every variable that may hold an acquired object here (a superset as ops run): an op on
        # any other variable moves no acquired object, so it is skipped (most ops, most nodes).
        self.held = {v for xs in st.values() for x in xs if x is not None for v in x[1]}
        sizes = self.sizes if facts is not None else None
        for i, op in enumerate(d.ops):
            if sizes is not None:
                facts = sizes.op(facts, op, lambda v: _owned_by_site(st, v))
            st = self.op(st, op, (node, i))
        kind = d.kind
        if kind in ("return", "exit"):
            self.no_owned(st)  # `Endings.on_exit`: an owned reference at an end is lost
        elif kind == "error" and self.unwind and _any_owned(st):
            self.leaky.add(node)
        if kind in ("return", "exit"):
            self.reached_return = True
            return []
        if kind == "error":
            self.reached_error = True
            return []
        if kind == "stop":
            self.reached_stop = True
            return []
        out = []
        for succ, edge in self.out[node]:
            st2, facts2 = st, facts
            taken = edge.get("branch") if kind == "branch" else None
            if taken is not None:
                if sizes is not None and isinstance(d.cond, ir.SizeTest) and sizes.infeasible(facts, d.cond, taken):
                    continue  # no explored state takes it (`sizes.assume`)
                if taken is False and isinstance(d.cond, ir.NullTest) and d.cond.var in self.held:
                    st2 = self.nulled(st2, d.cond.var)
                for op in d.post:
                    if sizes is not None:
                        facts2 = sizes.op(facts2, op, lambda v: _owned_by_site(st2, v))
                    st2 = self.op(st2, op, None)
            out.append((succ, st2, facts2))
        return out

    # -- ops --------------------------------------------------------------------------------------
    def op(self, st: dict, op, site) -> dict:
        t = type(op)
        if t is ir.Acquire:
            # `Transfer.acquire` binds without `lost`: an owned object it replaces would stay,
            # unheld, to be lost at the end; `unbind` makes that UNKNOWN at once.
            st = self.unbind(st, op.dst)
            if st[site] != frozenset((None,)):
                raise Unknown("a site acquiring again while its object is live")
            self.held.add(op.dst)
            return {**st, site: frozenset(((Status.OWNED, frozenset((op.dst,))),))}
        if t is ir.Release:
            for v in op.vars:
                if v in self.held:
                    st = self.each(st, lambda x, site_: self.release(x, v, op, site_), with_site=True)
            return st
        if t in INERT or t is ir.Store:
            return st  # a store of no counted value and the inert ops move no acquired object
        var = op.dst if t is ir.Assign or t is ir.Load or t is ir.Shift else op.var
        if t is ir.Assign and op.src in self.held and not op.null:
            self.held.add(op.dst)
            return self.each(st, lambda x: self.assign(x, op.dst, op.src))
        if var not in self.held:
            return st
        if t is ir.Assign:
            return self.unbind(st, op.dst)
        if t is ir.Kill or t is ir.Load:
            return self.unbind(st, op.var if t is ir.Kill else op.dst)
        if t is ir.Shift:
            return self.unbind(st, op.dst)
        if t is ir.Use:
            for x in self.holding(st, op.var):
                if x[0] is Status.RELEASED:
                    raise Unknown("a use after release")
            return st
        if t is ir.Escape:
            # `&v` handed on: a sole holder's object is no longer tracked (`Transfer.op_escape`).
            return self.each(st, lambda x: _drop_holder(x, op.var, None))
        raise Unknown(f"an op not followed: {t.__name__}")

    def each(self, st: dict, f, with_site: bool = False) -> dict:
        out = {}
        for s, xs in st.items():
            out[s] = frozenset(x if x is None else f(x, s) if with_site else f(x) for x in xs)
        return out

    def holding(self, st: dict, var: str):
        return [x for xs in st.values() for x in xs if x is not None and var in x[1]]

    def assign(self, x, dst: str, src: str):
        if src in x[1]:
            return (x[0], x[1] | {dst})
        return _drop_holder(x, dst, "an owned object overwritten")

    def unbind(self, st: dict, var: str) -> dict:
        """var holds something else now: its object loses a holder (`Transfer.bind` and `lost`)."""
        return self.each(st, lambda x: _drop_holder(x, var, "an owned object lost"))

    def release(self, x, var: str, op: ir.Release, site):
        if var not in x[1] or x[0] is Status.NULLED:
            return x
        if x[0] is Status.RELEASED:
            raise Unknown("released twice")
        if Endings.wrong_family(self.family_check, self.plan.families[site], op.callee, op.record):
            raise Unknown("released by another family's releaser")
        return (Status.RELEASED, x[1])

    def nulled(self, st: dict, var: str) -> dict:
        return self.each(st, lambda x: (Status.NULLED, x[1]) if var in x[1] else x)

    def no_owned(self, st: dict) -> None:
        if _any_owned(st):
            raise Unknown("an owned object at an end")


def _any_owned(st: dict) -> bool:
    return any(x is not None and x[0] is Status.OWNED for xs in st.values() for x in xs)


def _owned_by_site(st: dict, var: str) -> bool:
    """var holds one site's object, owned, on every path the sets stand for (`mustsizes`)."""
    return any(xs and all(x is not None and x[0] is Status.OWNED and var in x[1] for x in xs) for xs in st.values())


def _drop_holder(x, var: str, why: str | None):
    """x without the holder var; None once nobody holds it (an owned one is an event: `why`)."""
    if var not in x[1]:
        return x
    holders = x[1] - {var}
    if holders:
        return (x[0], holders)
    if x[0] is Status.OWNED and why is not None:
        raise Unknown(why)
    return None


# -- a returning end, reached ----------------------------------------------------------------------
class _Ends(PathObserver):
    """Stands in for the summarizer on the one path `_returns` follows: notes a returning end."""

    def __init__(self):
        super().__init__()
        self.returned = False

    def at_return(self, node, st, value) -> None:
        self.returned = True


def _returns(cfg, conv, visits: int = 3) -> tuple[bool, set]:
    """Whether the exploration reaches a returning end, and parameters it shows escaping
    (`Summarizer.escaped`): the exploration's own transfer with every condition kept (no
    contraction, nothing untracked) along feasible paths, depth first toward the nearest end,
    each node entered at most `visits` times, to the first returning end. Every step taken is
    one of a path the exploration explores too (it keeps fewer facts, so takes more edges)."""
    tr = Transfer(cfg, conv)
    tr.summarizer = ends = _Ends()
    goal = _distances(cfg, tr)
    count: dict[int, int] = {}
    stack = [(cfg.entry, tr.initial())]
    events: list = []
    while stack:
        node, st = stack.pop()
        count[node] = count.get(node, 0) + 1
        if count[node] > visits:
            continue
        try:
            succs = tr.step(node, st, events)
        except Bound:
            return False, set()
        events.clear()
        if ends.returned:
            return True, ends.escaped
        succs = [s for s in succs if s[0] in goal]
        succs.sort(key=lambda s: -goal[s[0]])  # the nearest end popped first
        stack.extend((succ, st2) for succ, st2, _ in succs)
    return False, set()


def unwinding_only(cfg, conv, why: str, flow: "_Flow | None" = None) -> frozenset:
    """Where the only events the exploration can have are unwinding error ends losing owned
    objects (errors=unwind; `why`: the pass's answer, an owned object at an end), and the
    summary is the default: the nodes from which no leaky error end is reachable (one where
    the flow has an acquired object owned, `_Flow.leaky`), where exploring can report nothing
    and change no summary. Empty where not. The flow over-approximates every explored state,
    so an error end it never reaches owning an object is one the exploration reports nothing
    at either (the tail after the last error; the code after the last release, whose calls
    may still raise).

    The findings are the exploration's at the leaky ends, whose states the cut leaves as they
    were: no node outside the tail is reached from it (the tail is closed under successors), so
    the worklist explores the same states in the same order but for those at the tail
    (`flow`: the one that gave the answer `why`, not run twice)."""
    if why != "an owned object at an end" or conv.errors != "unwind" or conv.may_raise_summaries or conv.infer_steals:
        return frozenset()
    if flow is None:
        flow = _answer(cfg, conv)[1]
    if flow is None:
        return frozenset()
    g = cfg.graph
    reach = set(flow.leaky)
    todo = list(reach)
    while todo:
        for p in g.predecessors(todo.pop()):
            if p not in reach:
                reach.add(p)
                todo.append(p)
    tail = frozenset(n for n in g.nodes if n not in reach)
    # A short tail saves less than the witness of a return costs (about 3 ms).
    if len(tail) * TAIL_SHARE < len(g) or _ends_answer(cfg, conv, flow):
        return frozenset()
    return tail


def _distances(cfg, tr) -> dict[int, int]:
    """Edges from each node to the nearest return or exit node (those that reach none: absent)."""
    preds: dict[int, list] = {}
    for n, edges in tr.out.items():
        for succ, _ in edges:
            preds.setdefault(succ, []).append(n)
    dist = {n: 0 for n, d in tr.data.items() if d.kind in ("return", "exit")}
    work = deque(dist)
    while work:
        n = work.popleft()
        for p in preds.get(n, ()):
            if p not in dist:
                dist[p] = dist[n] + 1
                work.append(p)
    return dist


# -- the hook ----------------------------------------------------------------------------------------
def first_pass(cfg, conv, explore):
    """The function's Result: proved by the pass, or `explore()`'s (see the module's text), its
    tail cut where the pass showed it reports nothing there (`unwinding_only`)."""
    if not ENABLED:
        return explore()
    if WHY:
        return _logged(cfg, conv, explore)
    why, flow = _answer(cfg, conv)
    if CHECK and not why:
        _check(cfg, explore())
    if not why:
        return Result([], 0, summary=DEFAULT, proved=True)
    return _explored(cfg, conv, explore, why, flow)


def _explored(cfg, conv, explore, why: str, flow: "_Flow | None" = None):
    tail = unwinding_only(cfg, conv, why, flow)
    if not tail:
        return explore()
    cut = explore(tail=tail)
    result = Result(cut.findings, cut.states, cut.incomplete, DEFAULT)
    if CHECK:
        _check(cfg, explore(), result)
    return result


def _logged(cfg, conv, explore):
    """`first_pass` with REFCHECK_PREPASS_WHY: a line per analysis (`tools/prepass_why.py` sums them)."""
    start = time.process_time()
    why, flow = _answer(cfg, conv)
    line = {"function": cfg.name, "errors": conv.errors, "why": why, "pass_s": time.process_time() - start}
    if why:
        start = time.process_time()
        result = _explored(cfg, conv, explore, why, flow)
        line.update(explore_s=time.process_time() - start, states=result.states, findings=len(result.findings))
    else:
        if CHECK:
            _check(cfg, explore())
        result = Result([], 0, summary=DEFAULT, proved=True)
    with open(WHY, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
    return result


def _check(cfg, full, cut: Result | None = None) -> None:
    """Compare the full exploration with the pass's proof, or (`cut`) with the exploration
    whose tail the pass cut."""
    why = ""
    if cut is not None:
        if (full.findings, full.summary, full.incomplete) != (cut.findings, cut.summary, cut.incomplete):
            why = (f"the cut exploration differs: findings {len(full.findings)} -> {len(cut.findings)}, "
                   f"summary {full.summary == cut.summary}, gave up {full.incomplete!r} -> {cut.incomplete!r}")
    elif full.incomplete:
        # Not a different verdict, but a different report: the exploration would have said the
        # function was not fully checked, where the pass checked it.
        why = f"the exploration gave up ({full.incomplete})"
    elif full.findings:
        why = "findings: " + ", ".join(sorted(f"{f.rule}@{f.location.line}" for f in full.findings))
    elif full.summary != DEFAULT:
        why = f"summary: {full.summary}"
    if why:
        DISAGREEMENTS.append(f"{cfg.name}: {why}")
    if CHECK == "1":
        if why:
            raise Disagreement(f"first pass proved {cfg.name}, exploration says {why}")
        return
    with open(CHECK, "a", encoding="utf-8") as f:
        f.write(json.dumps({"function": cfg.name, "agree": not why, "why": why, "cut": cut is not None,
                            "incomplete": full.incomplete, "states": full.states}) + "\n")
