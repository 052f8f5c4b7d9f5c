"""One unit's definitions checked one by one (findings, errors, counts, the summaries each check
used), and the paths made relative to the project's root."""

from __future__ import annotations

import os
import time
from dataclasses import replace

from refcheck.conventions import Conventions
from refcheck.conventions.summary import DEFAULT
from refcheck.driver import shards
from refcheck.driver.repeats import Check, Repeats, repeat
from refcheck.driver.shards import How
from refcheck.findings import Finding, Location, StatementText, ToolError, UnitResult
from refcheck.support.gcpause import paused_collector


def relative(file: str, root: str) -> str:
    if not file:
        return file
    absroot = os.path.abspath(root)
    absfile = os.path.abspath(file)
    if absfile == absroot or absfile.startswith(absroot.rstrip(os.sep) + os.sep):
        return os.path.relpath(absfile, absroot)
    return absfile


def still_stored(tu, used) -> bool:
    """`vtables.still_stored`: the slots a cached check called through hold the same functions."""
    from refcheck.frontend.vtables import still_stored

    return still_stored(tu, used)


class UnitCheck:
    """The findings, errors and counts of one unit's definitions, as they are checked, and the
    summaries each definition's check used (to check it again when one changes). `settings` is
    the run's `engine.Settings` (not imported: the engine imports this module)."""

    def __init__(self, settings, conv: Conventions, parsed, result: UnitResult, key_seconds: float,
                 summaries, names: list[str]):
        self.settings, self.conv, self.parsed, self.result = settings, conv, parsed, result
        from refcheck.frontend.comments import SourceLines

        self.lines = SourceLines(parsed.tu)
        self.findings: list[Finding] = []
        self.counts = {"skipped": 0, "shared": 0, "analysed": 0, "proved": 0, "cached": 0}
        self.cfg_time = key_seconds  # the instance keys: the frontend's work, in place of builds
        self.summaries, self.names = summaries, names
        self.used_at: dict[int, tuple] = {}  # definition -> (name, digest) of the summaries it used
        self.spans: dict[int, tuple] = {}  # definition -> what its check added (findings, errors, ...)
        self.own: dict[int, object] = {}  # definition -> the summary it inferred
        self.how: dict[int, object] = {}  # definition -> shards.How (only a shard's records need it)
        self.seconds: dict[int, float] = {}  # definition -> CPU seconds its last check took
        # The fresh checks, for the later rounds (and in phase 2, phase 1's) to repeat.
        self.repeats = Repeats(settings.earlier, names)
        # Analyses an earlier unit of this process made of the same graphs (headers, twins).
        from refcheck.reuse.across import Across

        self.across = Across(parsed.tu.spelling, conv, (settings.max_states, settings.function_seconds),
                             settings.share)
        # The second round re-checks stale definitions: no cache hit or instance result (they
        # were made with the stale summaries too).
        self.second = False

    def definition(self, index: int, plan, table) -> None:
        """Check definition `index` (and the lambdas inside it): from the per-function cache, an
        identical instance's outcome, or its own graph."""
        began = time.thread_time()  # this thread's CPU: the definition's cost, whatever the load
        earlier = None
        try:
            earlier = self._definition(index, plan, table, began)
        finally:
            self.seconds[index] = earlier.seconds if earlier is not None else time.thread_time() - began

    def _definition(self, index: int, plan, table, began: float):
        """Checks definition `index`; returns the earlier check it repeated, if one was taken."""
        top = self.parsed.functions[index]
        key = table.keys[index] if table is not None else None
        earlier = self.repeats.find(index, self.summaries.known) if self.second or self.repeats.adopted else None
        if earlier is not None:
            repeat(self, index, earlier)
            self.how[index] = How.CHECKED
            self._put(table, key, index)
            return earlier
        hit = table.get(key) if table is not None and not self.second else None
        if hit is not None and not still_stored(self.parsed.tu, hit.used):
            hit = None  # a function-pointer slot it called through holds other functions now
        if hit is not None:
            # Taken as it is: a summary it used that this unit's table contradicts at the end
            # makes it stale, like an analysed function's (`stale`).
            table.keep(key)
            table.asked_by_hits.update(n for n, _ in hit.used)
            self.result.functions += hit.functions
            self.result.errors.extend(hit.errors)
            self.findings.extend(hit.findings)
            self.counts["cached"] += hit.functions
            self.used_at[index] = hit.used
            self.spans[index] = (hit.findings, hit.errors, hit.functions, (("cached", hit.functions),))
            self.how[index] = How.CACHED
            self._learn(index, hit.summary)
            return None
        marks = (len(self.findings), len(self.result.errors), self.result.functions, dict(self.counts))
        known = plan.known(index) if not self.second else None
        self.summaries.asked, self.summaries.marks_read = set(), set()
        own = DEFAULT
        self.how[index] = How.CHECKED if known is None else How.SHARED
        if known is not None:
            self.result.functions += 1
            self.summaries.asked = set(known.asked)
            if known.result is None:
                self.counts["skipped"] += 1
            else:
                self.counts["shared"] += 1
                own = known.result.summary
                self.emit(known.result, top, top)
        else:
            with paused_collector():
                own = self.build_and_analyse(index, top, plan)
        # The records the check asked as it saw them (its own name's before `_learn`): only a
        # check of its own, not an instance's outcome, is a function of them (`repeats`).
        seen = tuple((n, self.summaries.known.get(n)) for n in self.summaries.asked) if known is None else None
        self._learn(index, own)
        self.used_at[index] = self.summaries.used(self.summaries.asked - {self.names[index]})
        counts = self.counts
        self.spans[index] = (tuple(self.findings[marks[0]:]), tuple(self.result.errors[marks[1]:]),
                             self.result.functions - marks[2],
                             tuple((k, counts[k] - marks[3][k]) for k in ("skipped", "shared", "analysed", "proved")
                                   if counts[k] != marks[3][k]))
        if seen is not None:
            self.repeats.note(index, Check(seen, self.spans[index], own, self.used_at[index],
                                           time.thread_time() - began, frozenset(self.summaries.marks_read)))
        self._put(table, key, index)
        return None

    def _put(self, table, key, index: int) -> None:
        if table is not None:
            from refcheck.caches.fncache import Outcome

            table.put(key, Outcome(*self.spans[index], self.own[index], self.used_at[index]))

    def build_and_analyse(self, index: int, top, plan):
        """Builds and analyses the definition and its lambdas; returns the definition's summary."""
        from refcheck.analysis import analyze
        from refcheck.frontend.builder import build_cfg, build_cfg_if_relevant

        settings, conv = self.settings, self.conv
        own = DEFAULT
        queue = [top]  # the function, then the lambdas inside it
        while queue:
            fn = queue.pop(0)
            self.result.functions += 1
            a = time.perf_counter()
            try:
                cfg = build_cfg_if_relevant(fn, conv)
                # With `share` off every graph is built and analysed, to compare: one the default
                # skips (nothing in it has an ownership role) gives no summary there either.
                relevant = cfg is not None
                if not settings.share and cfg is None:
                    cfg = build_cfg(fn, conv)
            except RecursionError:
                self.result.errors.append(function_error(fn, settings, "nested too deeply to build its graph"))
                continue
            self.cfg_time += time.perf_counter() - a
            if cfg is None:  # nothing in it can produce a finding
                self.counts["skipped"] += 1
                if fn is top:
                    plan.skipped(index, frozenset(self.summaries.asked))
                continue
            queue[:0] = cfg.lambdas
            res, shared = plan.analyse(cfg, lambda g: self.across.analyse(
                g, lambda h: analyze(h, conv, settings.max_states, settings.function_seconds), plan.keyed(g)))
            shared = shared or self.across.took
            self.counts["shared" if shared else "analysed"] += 1
            if res.proved and not shared:  # analysed by the first pass alone (`analysis.prepass`)
                self.counts["proved"] += 1
            if fn is top:
                plan.analysed(index, cfg, res, frozenset(self.summaries.asked))
                own = res.summary if relevant else DEFAULT
            self.emit(res, fn, top)
            # The graph dies before the collection at the block's end, which would otherwise
            # keep it for older collections to rescan.
            cfg = None
        return own

    def record(self, index: int):
        """Definition `index`'s check, for the parent's merge of a unit's shards."""
        from refcheck.driver.shards import Record
        from refcheck.frontend.clangutil import externally_visible

        findings, errors, functions, counts = self.spans[index]
        return Record(self.names[index], externally_visible(self.parsed.functions[index]), self.places[index],
                      self.how[index],
                      self.own[index], self.used_at[index], tuple(findings), tuple(errors), functions, counts,
                      self.seconds.get(index, 0.0))

    def _learn(self, index: int, summary) -> None:
        """A definition checked: its inferred summary is known to the functions checked after it.
        One that says nothing hides another unit's function of the same name (a `static` one)."""
        self.own[index] = summary
        if summary.says_something:
            self.summaries.known[self.names[index]] = summary
        else:
            self.summaries.known.pop(self.names[index], None)

    def stale(self, skip=frozenset()) -> list[int]:
        """The definitions whose check used a summary the unit's final table contradicts, their
        findings, errors and counts taken back (they are checked again); `skip`: those taken
        back already and not checked since (`cycles`' users waiting for the members)."""
        stale = [i for i, used in self.used_at.items()
                 if i not in skip and self.summaries.used(n for n, _ in used) != used]
        self.take_back(stale)
        return stale

    def adopt(self, index: int, record, table) -> None:
        """Definition `index`'s check as another process of this parse made it (fixsplit.py): its
        outcome, summary and cache entry here, as if checked here."""
        self.spans[index] = (record.findings, record.errors, record.functions, record.counts)
        self.used_at[index], self.how[index], self.seconds[index] = record.used, record.how, record.seconds
        self.summaries.ever.update(n for n, _ in record.used)
        self._learn(index, record.summary)
        self._put(table, table.keys[index] if table is not None else None, index)

    def take_back(self, indices) -> None:
        """Takes back what the checks of these definitions added (they are checked again)."""
        drop_f, drop_e = set(), set()
        for i in indices:
            got, errors, functions, by = self.spans.pop(i)
            drop_f.update(map(id, got))
            drop_e.update(map(id, errors))
            self.result.functions -= functions
            for k, n in by:
                self.counts[k] -= n
        if drop_f or drop_e:
            self.findings[:] = [f for f in self.findings if id(f) not in drop_f]
            self.result.errors[:] = [e for e in self.result.errors if id(e) not in drop_e]

    def snapshot(self) -> tuple:
        """What the checks so far left, for `restore` (refcheck.driver.cycles)."""
        return (list(self.findings), list(self.result.errors), self.result.functions, dict(self.counts),
                dict(self.spans), dict(self.used_at), dict(self.own), dict(self.how),
                dict(self.summaries.known))

    def restore(self, saved: tuple) -> None:
        findings, errors, self.result.functions, self.counts, self.spans, self.used_at, self.own, self.how, \
            known = saved
        self.findings[:] = findings
        self.result.errors[:] = errors
        self.summaries.known.clear()
        self.summaries.known.update(known)

    def emit(self, res, fn, top) -> None:
        if res.incomplete:
            self.result.errors.append(function_error(fn, self.settings, f"not fully checked: {res.incomplete}"))
        if not res.findings:
            return
        from refcheck.frontend.comments import extent_of

        extent = extent_of(top)
        if extent is not None:
            extent = replace(extent, file=relative(extent.file, self.settings.root))
        for f in res.findings:
            if self.parsed.partial:
                f = replace(f, message=f.message + " (checked on a partial parse)")
            # What the reporters and baselines read of the source, from the bytes parsed.
            text = StatementText(self.lines.statement(f.location), self.lines.statement(f.origin))
            self.findings.append(relativized(replace(f, statements=text, extent=extent), self.settings.root))


def function_error(fn, settings, why: str) -> ToolError:
    loc = fn.location
    file = relative(loc.file.name, settings.root) if loc.file else ""
    return ToolError(file, f"function '{fn.spelling}' {why}", loc.line, loc.column)


def location_under(loc: Location, root: str, memo: dict | None = None) -> Location:
    if memo is None:
        return Location(relative(loc.file, root), loc.line, loc.column)
    rel = memo.get(loc.file)
    if rel is None:
        rel = memo[loc.file] = relative(loc.file, root)
    return Location(rel, loc.line, loc.column)


def relativized(f: Finding, root: str) -> Finding:
    # A path's steps lie in one or two files: each made relative once (two path computations
    # per step were 8k on THTensor.c's 147 unwind findings).
    memo: dict = {}
    return replace(f, location=location_under(f.location, root, memo),
                   origin=None if f.origin is None else location_under(f.origin, root, memo),
                   path=tuple(replace(s, location=location_under(s.location, root, memo)) for s in f.path))
