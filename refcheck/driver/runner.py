"""One `refcheck check` run: units and their arguments, the cache, the worker pool, and the
filters applied to what comes back (rule selection, suppressions, baseline).

The parent process never imports the engine (and so never loads libclang): a fully cached run
costs only reading and hashing files.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace

from refcheck.conventions import presets
from refcheck.conventions.summary import agreed
from refcheck.filters import baseline as baselines
from refcheck.caches.cache import Cache, FileHasher, unit_key
from refcheck.caches.fncache import UNWRITABLE_TABLE
from refcheck.workspace.config import Config
from refcheck.findings import Finding, Location, RunResult, ToolError, UnitResult, merge_findings
from refcheck.driver import shards
from refcheck.driver.ordering import callees_first
from refcheck.driver.progress import Progress
from refcheck.driver.units import Request, Stdin, adapted_args, args_for, in_database, outside_database, units_for  # noqa: F401
from refcheck.workspace.sources import relative
from refcheck.findings.source import SourceCache
from refcheck.support import safeio
from refcheck.support.gcpause import paused_collector
from refcheck.filters.suppressions import Suppressions


@dataclass
class Report:
    result: RunResult
    cache_hits: int = 0
    # Units given to the engine this run (cache misses, or all with --no-cache).
    analyzed: int = 0
    # Functions of the analysed units by how they were checked (engine's UnitResult.counts).
    counts: dict[str, int] = field(default_factory=dict)
    suppressed: int = 0
    baselined: int = 0
    # Baseline entries (for files this run checked) that no finding matches any more.
    baseline_fixed: int = 0
    # Messages for stderr that are not part of the result (cache trouble, baseline written).
    notes: list[str] = field(default_factory=list)
    # With verbose: why each unit was analysed rather than served from the cache, per unit.
    explanations: list[str] = field(default_factory=list)


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _precheck(path: str, data: bytes | None, display: str, hasher: FileHasher) -> ToolError | None:
    """Files libclang would only choke on (or block on: FIFOs, devices), found from the bytes
    already read for hashing."""
    if data is None:
        return ToolError(display, "not checked: " + hasher.problems.get(path, "cannot read file"))
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return ToolError(display, "not checked: the file name is not valid UTF-8, which libclang "
                                  "cannot open; rename the file")
    if b"\0" in data:
        return ToolError(display, "not checked: binary file (contains NUL bytes), not C source")
    return None


def run(request: Request) -> Report:
    started = time.monotonic()
    cfg = request.config
    # A bad baseline is a usage error: say so before spending minutes on the analysis.
    entries = (baselines.load_entries(request.baseline)
               if request.baseline and not request.write_baseline else None)
    units, errors = units_for(request)
    if cfg.preset == "glib" and cfg.gtk_doc:
        # The project's own gtk-doc annotations, from every unit: a caller in one unit sees
        # only the header's declaration of a function another unit defines and documents.
        # Imported here: only a GLib run reads gtk-doc (and its XML records).
        from refcheck.conventions import callbacktypes, gtkdoc

        cfg.conventions = gtkdoc.annotated(cfg.conventions, units)
        cfg.conventions = callbacktypes.annotated(cfg.conventions, units, cfg.root)
    cache = Cache(cfg.cache_dir if request.use_cache else None, since_ns=time.time_ns(),
                  root=cfg.root)
    report = Report(RunResult(root=cfg.root))
    with _Workers() as workers:
        units, results = _analyze(units, request, cache, report, workers)
    if request.stdin is not None:
        units, results = _as_named(units, results, request.stdin, cfg.root)
    ordered = _units_not_included(units, results)
    outside = {relative(u, cfg.root) for u in units if request.database is not None
               and not in_database(u, request)}
    for r in ordered:
        errors.extend(outside_database(r, request) if r.file in outside else r.errors)
    report.result.files = len(ordered)
    report.result.functions = sum(r.functions for r in ordered)
    report.cache_hits = cache.hits
    if cache.disabled:
        report.notes.append(f"warning: {cache.disabled}")
    if cache.rejected:
        report.notes.append(f"warning: ignored {cache.rejected} cache "
                            f"entr{'y' if cache.rejected == 1 else 'ies'} not written by this "
                            f"user's refcheck (forged, foreign or damaged); checked again")
    if cache.write_error:
        # One warning for an unwritable cache, not one more for the per-function tables in it.
        report.notes = [n for n in report.notes if not n.startswith(f"warning: {UNWRITABLE_TABLE}")]
        report.notes.append(f"warning: {cache.write_error}; continuing without caching")

    hint = presets.suggestion([(r.includes, len(r.findings)) for r in ordered
                               if request.config_for(os.path.join(cfg.root, r.file)).preset == "th"])
    if hint is not None:  # one line, not a silent switch: the user chooses the preset
        report.notes.append(hint)

    findings = merge_findings([f for r in ordered for f in r.findings])
    selection = cfg.selection()
    findings = _select(findings, request, selection)
    sources = SourceCache(cfg.root)
    suppressions = Suppressions((c for r in ordered for c in r.comments),
                                (e for r in ordered for e in r.definitions))
    before = len(findings)
    findings = suppressions.filter(findings)
    report.suppressed = before - len(findings)
    files_read = _files_read(ordered, units, cfg.root)
    errors.extend(suppressions.problems(files_read))
    if request.report_unused_suppressions:
        errors.extend(suppressions.unused(files_read, selection.selected))

    if request.write_baseline:
        baselines.write(request.write_baseline, findings, sources)
        report.notes.append(f"wrote {len(findings)} finding(s) to baseline {request.write_baseline}")
        report.baselined = len(findings)
        findings = []
    elif entries is not None:
        before = len(findings)
        accepted = Counter(fp for fp, _ in entries)
        report.baseline_fixed = baselines.fixed_entries(
            findings, entries, sources, set(files_read))
        findings = baselines.new_findings(findings, accepted, sources)
        report.baselined = before - len(findings)

    report.result.findings = findings
    report.result.errors = sorted(set(errors))
    report.result.seconds = time.monotonic() - started
    return report


class _Workers:
    """The run's worker processes, kept from phase 1 through phase 2's rounds (`pool.Held`),
    made when first needed: a run served from the cache imports no multiprocessing."""

    def __init__(self) -> None:
        self._held = None

    def held(self):
        if self._held is None:
            from refcheck.driver import pool

            self._held = pool.Held()
        return self._held

    def __enter__(self) -> "_Workers":
        return self

    def __exit__(self, *exc) -> None:
        if self._held is not None:
            self._held.close()


def _analyze(units: list[str], request: Request, cache: Cache,
             report: Report, workers: _Workers) -> tuple[list[str], list[UnitResult]]:
    """A result per unit, from the cache or the workers; units skipped as included by another
    are left out of both lists."""
    cfg = request.config
    root = cfg.root
    hasher = FileHasher(cfg.max_file_size << 20)
    results, todo, keys, parts = _look_up(units, request, cache, hasher, report)
    report.result.timings.update({"parse": 0.0, "cfg": 0.0, "analysis": 0.0})
    # Units another unit includes are dropped from the results (see _units_not_included); once
    # a finished unit is known to include one, it need not be analyzed at all. Shallow paths go
    # first because includers (TH/THTensor.c) sit above what they include (TH/generic/*.c).
    included = _included_by((units[i], r) for i, r in results.items())
    storing = _Storing(cache, keys, parts, hasher, request.verbose)
    todo.sort(key=lambda t: (t[1].count(os.sep), t[0]))
    if len(todo) > 1:  # callees' units first: fewer units parsed again in phase 2
        todo = [todo[k] for k in callees_first([t[1] for t in todo], lambda p: _text(p, hasher.max_bytes))]
    if todo:
        # Imported here: a run served from the cache needs no multiprocessing.
        with paused_collector():
            from refcheck.driver import pool

        jobs, options, functions = _jobs(todo, request, cache, keys)
        progress = Progress(jobs, request.progress, workers=request.jobs,
                            finished=[(units[i], r.includes) for i, r in results.items()],
                            previous=cache.previous_seconds)
        queue = shards.queue(jobs, request.jobs, root, cache.previous_seconds, _measured(cache))
        assembly = shards.Assembly(queue, options, functions)

        def skip(job) -> bool:
            # The pool asks until it gets True, then drops the job: one skip() per job. A shard
            # of a unit whose first shard started runs whatever: its unit waits for it.
            if job.path in included and job.index not in assembly.started:
                progress.skip(job)
                return True
            return False

        # What the units checked so far export goes with each unit started after them.
        exported = exported_table(results.values())
        outcomes = pool.run(queue, options, request.jobs, cfg.timeout, skip=skip, summaries=exported,
                            started=assembly.starter(progress), held=workers.held())
        _collect(outcomes, results, included, report, storing, progress, root, exported=exported,
                 assembly=assembly)
    # Phase 2: the units whose checks asked for another unit's function whose summary they did
    # not have (or had another of) are checked again with the run's table. A unit checked again
    # may export a different summary that a third unit used (a chain across units: libxmlb's
    # xb_content_type_guess -> xb_builder_source_ctx_get_content_type -> its callers), so the
    # rounds go on until the table agrees with every unit's use of it, at most PHASE2_ROUNDS.
    for _ in range(PHASE2_ROUNDS):
        if not _check_again(units, results, included, request, cache, storing, report, workers):
            break
    for result in results.values():
        result.checks = None  # phase 2 is over: nothing repeats them any more
    # A skipped unit stands for nothing of its own: its code is in its includer's results.
    kept = sorted(results)
    return [units[i] for i in kept], [results[i] for i in kept]


# Rounds of phase 2 (units checked again with the run's summary table): a chain of helpers
# across units settles in as many rounds as it has units, minus one.
PHASE2_ROUNDS = 4


def _check_again(units, results, included, request: Request, cache: Cache, storing: _Storing,
                 report: Report, workers: _Workers) -> bool:
    """One round of phase 2: the units whose imports disagree with the run's table, checked
    again with it. False when there were none."""
    cfg = request.config
    root = cfg.root
    table = exported_table(results.values())
    again = [t for t in ((i, units[i], relative(units[i], root), args_for(units[i], request)) for i in sorted(results))
             if units[t[0]] not in included and results[t[0]].imported
             and not _agrees(results[t[0]].imported, table, request.config_for(units[t[0]]).conventions)]
    if not again:
        return False
    from refcheck.driver import pool

    jobs, options, functions = _jobs(again, request, cache, storing.keys, table)
    for job in jobs:  # what phase 1 (or the last round) checked, to repeat (driver.repeats)
        job.earlier, results[job.index].checks = results[job.index].checks, None
        job.summaries = table  # a held worker's own options have phase 1's (none)
    # A round over units already counted: its own display, no ETA from the first.
    progress = Progress(jobs, request.progress, workers=request.jobs)
    queue = shards.queue(jobs, request.jobs, root, cache.previous_seconds, _measured(cache))
    assembly = shards.Assembly(queue, options, functions)
    outcomes = pool.run(queue, options, request.jobs, cfg.timeout, started=assembly.starter(progress),
                        held=workers.held())
    _collect(outcomes, results, included, report, storing, progress, root, again=True, assembly=assembly)
    return True


def _text(path: str, max_bytes: int) -> bytes | None:
    try:
        return safeio.read_regular(path, max_bytes)
    except safeio.UnreadableFile:
        return None


def _measured(cache: Cache):
    """A unit's definitions' costs from its last sharded run (caches/costs.py); none without a
    usable cache."""
    from refcheck.caches.costs import read_costs

    directory = cache.directory if cache.entries is not None else None
    return lambda path: read_costs(directory, path)


def _look_up(units: list[str], request: Request, cache: Cache, hasher: FileHasher, report: Report):
    """Each unit's key, and its result where the cache or a precheck has one: (results, the
    units to analyse, keys, what each key is made of, to explain the next miss)."""
    cfg, root = request.config, request.config.root

    def settings_fp(c: Config) -> str:
        return repr((c.conventions.fingerprint(), root, c.max_states, c.function_seconds))

    run_fp = settings_fp(cfg)
    results: dict[int, UnitResult] = {}
    todo: list[tuple[int, str, str, list[str]]] = []
    keys: dict[int, str] = {}
    parts: dict[int, dict] = {}
    adaptations: Counter = Counter()
    for i, path in enumerate(units):
        display = relative(path, root)
        problem = _precheck(path, hasher.read(path), display, hasher)
        if problem is not None:
            results[i] = UnitResult(file=display, errors=[problem])
            continue
        adapted = adapted_args(path, request)
        args = list(adapted.args)
        adaptations.update(adapted.notes)
        own = request.config_for(path)
        parts[i] = {"args": args, "settings": run_fp if own is cfg else settings_fp(own)}
        # The key hashes refcheck's own sources (`tool_fingerprint`, ~11 ms): only a usable cache
        # reads it (unit entries, the per-function tables), so a --no-cache run makes none.
        keys[i] = unit_key(path, args, parts[i]["settings"]) if cache.entries is not None else ""
        cached = cache.load(keys[i], hasher)
        if cached is not None:
            results[i] = cached
        else:
            todo.append((i, path, display, args))
            if request.verbose and cache.entries is not None:
                report.explanations.append(f"{display}: analysed: {cache.explain(path, keys[i], parts[i])}")
    # Once per run, however many units: what was changed in their flags so clang can parse them.
    for note, n in sorted(adaptations.items()):
        report.notes.append(f"note: {note} ({_count(n, 'unit')})")
    return results, todo, keys, parts


def _account(report: Report, result: UnitResult, again: bool = False) -> None:
    """One analysed unit's stage times, counts and notes, added to the run's (a unit checked
    again with the run's summaries adds its time, not a second unit)."""
    report.analyzed += 0 if again else 1
    timings = report.result.timings
    for stage, seconds in result.timings.items():
        timings[stage] = timings.get(stage, 0.0) + seconds
    for what, n in result.counts.items():
        report.counts[what] = report.counts.get(what, 0) + n
    for note in result.notes:  # once per run, not per unit
        if f"warning: {note}" not in report.notes:
            report.notes.append(f"warning: {note}")


def exported_table(results) -> dict:
    """The summaries the units export, by name; a name two units summarise differently (two
    programs linked apart, a mock beside the real function) gets what its records agree on
    (`summary.agreed`), left out where that is nothing (nothing sure to say)."""
    table: dict = {}
    for r in results:
        for name, s in r.exports.items():
            table[name] = agreed(table[name], s) if name in table else s
    return {n: s for n, s in table.items() if s.says_something}


def _agrees(imported: tuple, table: dict, conv) -> bool:
    """Whether every name a unit's check asked is answered alike by the run's table: the record
    it saw, or, where it saw none, a record that changes nothing the conventions answer for the
    name (a pattern's acquirer whose body keeps none of its arguments)."""
    for n, h in imported:
        now = table[n].digest() if n in table else "-"
        if now != h and not (h == "-" and not conv.refines(n, table[n])):
            return False
    return True


@dataclass(frozen=True)
class _Storing:
    """Where finished units go: the unit cache, with what each key is made of (for -v)."""

    cache: Cache
    keys: dict
    parts: dict
    hasher: FileHasher
    verbose: bool

    def store(self, outcome, report: Report) -> None:
        job = outcome.job
        why = self.cache.store(self.keys[job.index], job.path, outcome.result, self.hasher, outcome.hashes)
        self.cache.remember(job.path, self.keys[job.index], self.parts[job.index], why)
        if why and self.verbose and f"{job.display}: analysed: {why}" not in report.explanations:
            report.explanations.append(f"{job.display}: {why}")


def _collect(outcomes, results, included, report, storing: _Storing, progress, root, again=False,
             exported: dict | None = None, assembly=None) -> None:
    """Takes the workers' results in (a sharded unit's once its parts are merged), caches them,
    and adds up timings and counts; `exported` gets each result's exported summaries."""
    try:
        for outcome in outcomes:
            outcome = assembly.take(outcome) if assembly is not None else outcome
            if outcome is None:
                continue
            job, result = outcome.job, outcome.result
            # Cache keys and suppression scans need the includes as absolute paths.
            result.includes = [os.path.join(root, p) for p in result.includes]
            results[job.index] = result
            if exported is not None:
                exported.update(result.exports)
            included |= _included_by([(job.path, result)])
            _account(report, result, again)
            if outcome.cacheable:
                storing.store(outcome, report)
            progress.advance(job, result.includes)
    finally:
        # Stops the workers now, also when Ctrl-C lands here rather than inside the pool.
        outcomes.close()
        progress.close()


def _select(findings: list[Finding], request: Request, run_selection) -> list[Finding]:
    """Rule selection by the configuration of each finding's file; a nested configuration's
    per-path-ignores globs are relative to its own directory."""
    root = request.config.root
    selections = {id(request.config): run_selection}
    kept = []
    for f in findings:
        path = os.path.normpath(os.path.join(root, f.location.file))
        own = request.config_for(path)
        if own is request.config:
            if run_selection.allows(f):
                kept.append(f)
            continue
        sel = selections.get(id(own))
        if sel is None:
            sel = selections[id(own)] = own.selection()
        local = replace(f, location=replace(f.location, file=relative(path, own.root)))
        if sel.allows(local):
            kept.append(f)
    return kept


def _jobs(todo: list, request: Request, cache: Cache, keys: dict, summaries: dict | None = None):
    """The pool's jobs for these units, the options they share and the per-function cache
    directory (phase 2's rounds add the run's summary table)."""
    from refcheck.driver import pool

    # The workers keep per-function results under the same directory (refcheck/caches/fncache.py),
    # while the unit cache is usable at all (not --no-cache, a key, no symlinked directory).
    functions = cache.directory if cache.entries is not None else None
    options = _worker_options(request, request.config, functions, summaries)
    jobs = [pool.Job(*t, options=_options_for(request, t[1], functions, summaries), key=keys[t[0]])
            for t in todo]
    return jobs, options, functions


def _worker_options(request: Request, config: Config, functions: str | None, summaries: dict | None):
    """What the workers need under `config` (the run's or a nested one), the run's memory bound."""
    from refcheck.driver import limits, pool

    run = request.config
    memory = (run.max_memory << 20) if run.max_memory else limits.default_memory(request.jobs)
    return pool.Options(config.conventions, run.root, config.max_states, config.function_seconds, memory,
                        functions, summaries)


def _options_for(request: Request, path: str, functions: str | None, summaries: dict | None = None):
    """Worker options for a unit under a nested configuration; None for the run's own."""
    own = request.config_for(path)
    return None if own is request.config else _worker_options(request, own, functions, summaries)


def _as_named(units: list[str], results: list[UnitResult], stdin: Stdin,
              root: str) -> tuple[list[str], list[UnitResult]]:
    """Results of stdin's temporary copy, under the name it stands for."""
    temp_shown, name_shown = relative(stdin.temp, root), relative(stdin.name, root)

    def loc(where):
        return replace(where, file=name_shown) if where and where.file == temp_shown else where

    def text(message: str) -> str:
        return message.replace(stdin.temp, name_shown)  # clang's own messages quote the path

    def extent(e):
        return replace(e, file=name_shown) if e is not None and e.file == temp_shown else e

    out = []
    for r in results:
        findings = [replace(f, location=loc(f.location), origin=loc(f.origin),
                            message=text(f.message), extent=extent(f.extent),
                            path=[replace(s, location=loc(s.location)) for s in f.path])
                    for f in r.findings]
        errors = [replace(e, file=name_shown if e.file == temp_shown else e.file,
                          message=text(e.message)) for e in r.errors]
        includes = [stdin.name if p == stdin.temp else p for p in r.includes]
        comments = tuple(replace(c, location=loc(c.location)) for c in r.comments)
        definitions = tuple(extent(e) for e in r.definitions)
        out.append(replace(r, file=loc(Location(r.file, 0, 0)).file, findings=findings,
                           errors=errors, includes=includes, comments=comments, definitions=definitions))
    return [stdin.name if u == stdin.temp else u for u in units], out


def _included_by(pairs) -> set[str]:
    """The files that these (unit, result) pairs include, other than the units themselves."""
    out: set[str] = set()
    for unit, r in pairs:
        out.update(p for p in map(os.path.normpath, r.includes) if p != unit)
    return out


def _units_not_included(units: list[str], results: list[UnitResult]) -> list[UnitResult]:
    """Drops units that another unit of this run includes.

    TH's generic/*.c files (and unity-build parts) end in .c but are only meaningful included
    after a THGenerate*.h has defined their macros; checked alone they are a heap of parse
    errors, and their code is checked anyway through the unit that includes them.
    """
    included = _included_by(zip(units, results))
    return [r for unit, r in zip(units, results) if unit not in included]


def _files_read(results: list[UnitResult], units: list[str], root: str) -> list[str]:
    """Root-relative names of every project file the run read: where suppressions can live."""
    # Every unit includes the same system headers: each distinct path is made relative once
    # (5,812 includes, 0.08 s, on geocode-glib's 18 units; issue 32, glib24).
    paths = set(units)
    for r in results:
        paths.update(r.includes)
    names = {relative(os.path.normpath(p), root) for p in paths}
    return sorted(n for n in names if not os.path.isabs(n))


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def warn(message: str) -> None:
    print(f"refcheck: {message}", file=sys.stderr)
