"""The worklist: every (node, state) pair reachable from the entry, each explored once.

States are never merged on ownership, so facts that hold on one path only ("t is NULL here",
"this branch was taken earlier") survive. States that own the same things in the same variables
differ only in branch facts: up to FACT_VARIANTS fact sets are kept apart per node, exactly (facts
can be related: `if (c0) ... else if (c1) return;` makes c1 imply c0); a state whose facts include
a set already explored is covered; past that, they are joined into one with the facts common to
all. Facts only shrink by joins, so loops reach a fixed point; the number of states per function
is bounded, and a function that hits the bound is reported as not fully checked.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, replace

from refcheck.analysis.condlive import droppable_keys
from refcheck.analysis.liveness import Pruner, PruneTables
from refcheck.analysis.nulljoin import NullJoins
from refcheck.analysis.report import Reporter
from refcheck.analysis.slicing import relevant_branches, untracked_values
from refcheck.analysis.state import Bound, fresh_cids
from refcheck.analysis.summarize import Summarizer
from refcheck.analysis.symmetry import PILE, renumbered_core
from refcheck.analysis.transfer import Transfer
from refcheck.ir.cfg import FunctionCFG
from refcheck.conventions import Conventions
from refcheck.support.gcpause import paused_collector
from refcheck.findings import Finding
from refcheck.conventions.summary import DEFAULT, Summary, with_freed_holder_result, with_maybe_given

FACT_VARIANTS = 16
# Past this share of the bound, a function's states are merged as property simulation does
# (ESP): a state whose ownership core a node has already seen is joined at once with what was
# seen (facts intersected), instead of kept apart up to FACT_VARIANTS times. Joining only drops
# facts, so it adds paths and loses none; it makes THNN's BatchNormalization_backward finish.
JOIN_SHARE = 4


@dataclass
class Result:
    findings: list[Finding]
    states: int
    incomplete: str = ""  # why the function was not fully checked
    # What the function does to its caller's references (`summarize`); DEFAULT when not fully checked.
    summary: Summary = DEFAULT
    # Proved by the first pass (`prepass`): checked without exploring, no finding, DEFAULT.
    proved: bool = False


def explore(cfg: FunctionCFG, conv: Conventions, rules, max_states: int = 50_000, seconds: float = 10.0,
            observe=None, contract: bool = True, prune: bool = True, mirror: bool = True,
            untrack: bool = True, quiet: bool = True, tail: frozenset = frozenset()) -> Result:
    """`observe(node, state)`, when given, sees every state explored at every node (`--states`);
    `contract`: make the conditions of branches that cannot matter opaque first (`slicing`);
    `prune`: forget dead variables' unowned objects and facts at each node (`liveness`);
    `mirror`: skip the visited map where it would repeat a predecessor's (`_mirrors`; off only
    to compare); `untrack`: leave the pointers that take no part in ownership untracked
    (`slicing.untracked_values`; off only to compare); `quiet`: skip the nullness forgetting
    on the edges where it has nothing to do (`nullness.quiet_edges`; off only to compare);
    `tail`: nodes where no state is explored: the first pass showed nothing is reported there
    and knows the summary (`prepass.unwinding_only`)."""
    # States form no cycles and are freed by reference counting (refcheck.support.gcpause): 40% of
    # exploring on torch7's THTensor.c was the collector rescanning the unit's parse and graphs.
    with paused_collector():
        rules = tuple(rules)
        regions: dict = {}
        relevant = relevant_branches(cfg, regions) if contract else None
        tables = _Tables(relevant, untracked_values(cfg, relevant, regions) if untrack else frozenset())
        args = (max_states, seconds, observe, tables, prune, mirror, quiet, tail)
        result, stolen, pruned = _explore(cfg, conv, rules, *args)
        if stolen:
            # The function steals these (conventions.infer_steals): explored again owning them
            # from its entry, so that releasing them is no RC006 and a path keeping one is a leak.
            # The pruner's tables are the graph's, made by the first exploration.
            first = result.summary
            result, _, _ = _explore(cfg, conv, rules, *args, stolen=stolen, pruned=pruned)
            if not result.incomplete:  # the first's reading of a steal on one result (`maybe_given`)
                indices = frozenset(i for i, (var, _) in enumerate(cfg.params) if var in stolen)
                summary = with_freed_holder_result(first, with_maybe_given(first, result.summary), indices)
                result = replace(result, summary=summary)
        return result


@dataclass(frozen=True)
class _Tables:
    """What both explorations of a function (without and with the stolen parameters) share:
    they depend on the graph alone."""
    relevant: set | None  # `slicing.relevant_branches`, None: not contracted
    untracked: frozenset


def _mirrors(cfg, tr: Transfer, pruner) -> dict[int, int]:
    """Node -> its only predecessor, where that predecessor passes every state on unchanged
    (`Transfer.passes_unchanged`: no ops, no condition the state decides or that is remembered)
    and (when pruning) the same variables are live at both, so that the pruner, which already
    ran on entering the predecessor, has nothing more to forget. Every state reaching such a node
    is then one that the predecessor's visited map admitted, arriving in the same order;
    checking it against the node's own map would repeat the predecessor's decisions exactly
    (empty blocks, the counter tests of TH_TENSOR_APPLY's loops)."""
    out: dict[int, int] = {}
    live = pruner.live if pruner is not None else None
    for node, edges in tr.out.items():
        if not edges or not tr.passes_unchanged(node):
            continue
        for succ, _ in edges:
            if succ == node or cfg.graph.in_degree(succ) != 1:
                continue
            if live is not None and (live.env.bits[node] != live.env.bits[succ]
                                     or live.facts.bits[node] != live.facts.bits[succ] or live.died(node, succ)
                                     or live.consts.bits[node] != live.consts.bits[succ]
                                     or (pruner.null is not None and pruner.null.bits[node] != pruner.null.bits[succ])
                                     or (pruner.conds is not None and pruner.conds.live[node] != pruner.conds.live[succ])):
                continue
            out[succ] = node
    return out


def machine_state(st, machines: tuple) -> tuple:
    """The known values of a state machine's state variables, kept apart as ownership is: ESP's
    property state. Joined into the facts they share, a machine stepping its state by arithmetic
    (`ir.Shift`) lost it once 16 fact sets met at its loop's head, and every case was open again
    (totem-pl-parser's xml_parser_get_node_internal). Finite: a stepped value is kept only where
    the variable is compared with it (`Transfer.op_shift`)."""
    consts = st.facts.consts
    return tuple(consts.get(v) for v in machines)


def _explore(cfg, conv, rules, max_states, seconds, observe, tables: _Tables, prune, mirror, quiet, tail,
             stolen: frozenset = frozenset(), pruned: PruneTables | None = None
             ) -> tuple[Result, frozenset, PruneTables | None]:
    """The function's result, the parameters it steals where a second exploration owning
    them is due (none when `stolen` is given already: they were), and the pruner's tables
    (`pruned`: an earlier exploration's of the same graph). The worklist loop stays inline, the
    join of fact variants included: a call per state or per successor costs on every function."""
    deadline = time.monotonic() + seconds
    fresh_cids()  # the keys of the objects this exploration makes (`Obj.cid`)
    relevant = tables.relevant
    tr = Transfer(cfg, conv, relevant, tables.untracked, stolen)
    reporter = Reporter(cfg, rules)
    tr.summarizer = summarizer = _summarizer(cfg, conv, tr, stolen)
    # A flag parameter's tests are read at the returns, after the parameter's last use
    # (`flagresults`): the pruner does not forget them where it dies.
    cond_vars = {k: v for k, v in tr.cond_vars.items() if k not in tr.flag_tests} if tr.flag_tests else tr.cond_vars
    pruner = Pruner(cfg, cond_vars, tr.pair_keys, relevant, quiet, pruned, tr.fated, droppable_keys(tr)) if prune else None
    if pruner is not None:
        tr.live = pruner.live
    init = tr.initial()
    if pruner is not None:
        pruner(cfg.entry, init)
    mirrors = _mirrors(cfg, tr, pruner) if mirror else {}
    machines = tr.machine_vars()  # a state machine's state is never joined away (`machine_state`)
    # Where the state admitted is never changed by its own step: its facts are the variant kept.
    shares = tr.stepped_on_copies()
    # Per node: ownership core -> the fact sets explored with it.
    visited: dict[int, dict] = {cfg.entry: {init.core(): [init.facts.copy()]}}
    work = deque([(cfg.entry, init, None)])
    states = 0
    incomplete = ""
    events: list = []
    variants_kept = FACT_VARIANTS
    join_after = max_states // JOIN_SHARE
    loose = None
    while work:
        states += 1
        if states == join_after:
            variants_kept = 1
            loose = NullJoins()
        if states > max_states:
            incomplete = f"more than {max_states} states"
            break
        if states % 512 == 0 and time.monotonic() > deadline:
            incomplete = "time limit reached"
            break
        node, st, trace = work.popleft()
        if observe is not None:
            observe(node, st)
        try:
            succs = tr.step(node, st, events)
        except Bound as e:
            incomplete = str(e)
            succs = None
        if events:
            here = (node, None, trace)
            for ev in events:
                reporter.add(ev, here)
                summarizer.at_event(ev)
            events.clear()
        if succs is None:
            break
        for succ, st2, label in succs:
            if tail and succ in tail:
                continue
            if mirrors.get(succ) == node:
                # What arrives here left `node` unchanged, in the order `node` took it in, so
                # this node's visited map would mirror `node`'s, joins included (see _mirrors).
                if pruner is not None and node in pruner.rejoined:
                    pruner.rejoined.add(succ)  # the join's state passes here unforgotten
                work.append((succ, st2, (succ, label, trace)))
                continue
            if pruner is not None:
                pruner(succ, st2, node)
            seen = visited.setdefault(succ, {})
            extra = machine_state(st2, machines) if machines else None
            # Up to the numbering of stale views where the node's cores pile up (`symmetry`).
            renumbered = renumbered_core(st2) if len(seen) > PILE and tr.stale_made else None
            core = renumbered or st2.core()
            exact = core if not machines else (core, extra)
            key = None
            if loose is not None and len(seen) > PILE and renumbered is None:
                # Past the join share, where a node's cores pile up: what the exact core explored
                # covers is dropped as before; the rest is keyed with the nullness of what it owns
                # joined (`nulljoin`).
                if any(v.within(st2.facts) for v in seen.get(exact, ())):
                    continue
                key, covered = loose.admit(succ, st2, extra)
                if key is not None:
                    variants = seen.setdefault(key, [])
            if key is None:
                variants = seen.setdefault(exact, [])
                covered = True
            facts = st2.facts
            if covered and any(v.within(facts) for v in variants):
                continue
            if len(variants) >= variants_kept:
                common = facts
                for v in variants:
                    common = common.meet(v)
                if pruner is not None and len(common.stored) < len(facts.stored):
                    pruner.rejoined.add(succ)  # an object pinned by the dropped fact may go next
                st2.facts = common
                variants[:] = [common if succ in shares else common.copy()]
            else:
                variants.append(facts if succ in shares else facts.copy())
            work.append((succ, st2, (succ, label, trace)))
    result, again = _outcome(conv, tr, reporter, summarizer, states, incomplete, stolen)
    return result, again, (pruner.tables if pruner is not None else None)


def _summarizer(cfg, conv, tr: Transfer, stolen: frozenset) -> Summarizer:
    """The summarizer of one exploration, told what the transfer found of the graph."""
    summarizer = Summarizer(cfg, conv.errors == "unwind" and conv.may_raise_summaries, stolen,
                            counts=conv.infer_steals, setters=conv.infer_setters,
                            lends=conv.infer_steals,
                            floating=tr.floating if conv.floating else None,
                            releaser=conv.matches("release", cfg.name),
                            unkept=conv.infer_steals and not tr.primitive)
    summarizer.flag_targets = tr.flag_targets
    summarizer.argument_tests = tr.argument_tests
    summarizer.flag_tests = tr.flag_tests
    summarizer.unread = tr.unread
    summarizer.null_result = lambda name: conv.matches("null_results", name or "")
    summarizer.documented = frozenset(conv.documented_takes.get(cfg.name, ()))
    return summarizer


def _outcome(conv, tr: Transfer, reporter: Reporter, summarizer: Summarizer, states: int, incomplete: str,
             stolen: frozenset) -> tuple[Result, frozenset]:
    """An exploration's result and the parameters it steals where a second one is due (`_explore`)."""
    # A count helper's retain is its caller's, its twin's release the caller's too (`settles`).
    findings = reporter.result() if incomplete else [f for f in reporter.result() if not summarizer.settles(f)]
    result = Result(findings, states, incomplete, DEFAULT if incomplete else summarizer.summary())
    again = summarizer.stolen() if conv.infer_steals and not incomplete and not stolen and not tr.primitive else frozenset()
    return result, again
