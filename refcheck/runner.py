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

from refcheck import baseline as baselines
from refcheck import presets
from refcheck.cache import Cache, FileHasher, unit_key
from refcheck.fncache import UNWRITABLE_TABLE
from refcheck.frontend.compdb import CompileDatabase
from refcheck.config import Config, ConfigError, Resolver
from refcheck.model import Finding, RunResult, ToolError, UnitResult, merge_findings
from refcheck.progress import Progress
from refcheck.sources import discover, excluded, relative
from refcheck.reporters.source import SourceCache
from refcheck.suppressions import Suppressions


@dataclass
class Request:
    paths: list[str]
    config: Config
    database: CompileDatabase | None = None
    jobs: int = 1
    use_cache: bool = True
    baseline: str | None = None
    write_baseline: str | None = None
    report_unused_suppressions: bool = False
    progress: bool = False
    # Finds each file's own configuration; None: `config` for every file.
    resolver: Resolver | None = None

    def config_for(self, path: str) -> Config:
        """The configuration governing one file (absolute path)."""
        return self.config if self.resolver is None else self.resolver.for_file(path)


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


def units_for(request: Request) -> tuple[list[str], list[ToolError]]:
    """The units to check, and per-file errors for database entries that do not exist."""
    cfg = request.config
    db = request.database
    skip = (cfg.cache_dir,)
    if request.paths or db is None:
        paths = request.paths or ["."]
        problems: list[tuple[str, str, str]] = []
        units = discover(paths, cfg.extensions, cfg.exclude, cfg.root, skip, problems)
        # A nested configuration's own `exclude` (its globs relative to its own directory).
        units = [u for u in units if request.config_for(u) is cfg
                 or not excluded(u, request.config_for(u).root, request.config_for(u).exclude)]
        bad = [p for p in problems if p[2] == "error"]
        if not units and bad:  # nothing to check at all: a usage error, as for one bad path
            given, message, _ = bad[0]
            raise ConfigError(f"{given}: {message}")
        return units, [ToolError(given, message, severity=severity)
                       for given, message, severity in problems]
    units, errors = [], []
    exts = tuple(e.lower() for e in cfg.extensions)
    for path in sorted(db.units):
        if not path.lower().endswith(exts):
            continue  # headers some generators list, and anything that is not ours to parse
        own = request.config_for(path)
        if excluded(path, cfg.root, cfg.exclude) or excluded(path, own.root, own.exclude):
            continue
        if os.path.isfile(path):
            units.append(path)
        else:
            errors.append(ToolError(relative(path, cfg.root),
                                    f"listed in {relative(db.path, cfg.root)} but not found"))
    return units, errors


def args_for(path: str, request: Request) -> list[str]:
    """The database's arguments for units it knows (plus the extra clang args), else the
    command line and configuration ones."""
    cfg = request.config_for(path)
    if request.database is not None:
        known = request.database.args_for(path)
        if known is not None:
            return known + cfg.clang_args
    return cfg.fallback_args()


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
    cache = Cache(cfg.cache_dir if request.use_cache else None, since_ns=time.time_ns(),
                  root=cfg.root)
    report = Report(RunResult(root=cfg.root))
    units, results = _analyze(units, request, cache, report)
    ordered = _units_not_included(units, results)
    for r in ordered:
        errors.extend(r.errors)
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
    suppressions = Suppressions(sources)
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


def _analyze(units: list[str], request: Request, cache: Cache,
             report: Report) -> tuple[list[str], list[UnitResult]]:
    """A result per unit, from the cache or the workers; units skipped as included by another
    are left out of both lists."""
    cfg = request.config
    root = cfg.root
    hasher = FileHasher(cfg.max_file_size << 20)
    conv = cfg.conventions

    def settings_fp(c: Config) -> str:
        return repr((c.conventions.fingerprint(), root, c.max_states, c.function_seconds))

    run_fp = settings_fp(cfg)
    results: dict[int, UnitResult] = {}
    todo: list[tuple[int, str, str, list[str]]] = []
    keys: dict[int, str] = {}
    for i, path in enumerate(units):
        display = relative(path, root)
        problem = _precheck(path, hasher.read(path), display, hasher)
        if problem is not None:
            results[i] = UnitResult(file=display, errors=[problem])
            continue
        args = args_for(path, request)
        own = request.config_for(path)
        keys[i] = unit_key(path, args, run_fp if own is cfg else settings_fp(own))
        cached = cache.load(keys[i], hasher)
        if cached is not None:
            results[i] = cached
        else:
            todo.append((i, path, display, args))

    timings = report.result.timings
    timings.update({"parse": 0.0, "cfg": 0.0, "analysis": 0.0})
    # Units another unit includes are dropped from the results (see _units_not_included); once
    # a finished unit is known to include one, it need not be analyzed at all. Shallow paths go
    # first because includers (TH/THTensor.c) sit above what they include (TH/generic/*.c).
    included = _included_by((units[i], r) for i, r in results.items())
    todo.sort(key=lambda t: (t[1].count(os.sep), t[0]))
    if todo:
        # Imported here: a run served from the cache needs no multiprocessing.
        from refcheck import pool

        # The workers keep per-function results under the same directory (refcheck/fncache.py),
        # while the unit cache is usable at all (not --no-cache, a key, no symlinked directory).
        functions = cache.directory if cache.entries is not None else None
        jobs = [pool.Job(*t, options=_options_for(request, t[1], pool, functions), key=keys[t[0]])
                for t in todo]
        memory = (cfg.max_memory << 20) if cfg.max_memory else pool.default_memory(request.jobs)
        options = pool.Options(conv, root, cfg.max_states, cfg.function_seconds, memory, functions)
        progress = Progress(len(jobs), request.progress, workers=request.jobs)

        def skip(job) -> bool:
            # The pool asks until it gets True, then drops the job: one skip() per job.
            if job.path in included:
                progress.skip()
                return True
            return False

        outcomes = pool.run(jobs, options, request.jobs, cfg.timeout, skip=skip)
        try:
            for outcome in outcomes:
                job, result = outcome.job, outcome.result
                # Cache keys and suppression scans need the includes as absolute paths.
                result.includes = [os.path.join(root, p) for p in result.includes]
                results[job.index] = result
                included |= _included_by([(job.path, result)])
                report.analyzed += 1
                for stage, seconds in result.timings.items():
                    timings[stage] = timings.get(stage, 0.0) + seconds
                for what, n in result.counts.items():
                    report.counts[what] = report.counts.get(what, 0) + n
                for note in result.notes:  # once per run, not per unit
                    if f"warning: {note}" not in report.notes:
                        report.notes.append(f"warning: {note}")
                if outcome.cacheable:
                    cache.store(keys[job.index], job.path, result, hasher, outcome.hashes)
                progress.advance(job.display)
        finally:
            # Stops the workers now, also when Ctrl-C lands here rather than inside the pool.
            outcomes.close()
            progress.close()
    # A skipped unit stands for nothing of its own: its code is in its includer's results.
    kept = sorted(results)
    return [units[i] for i in kept], [results[i] for i in kept]


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


def _options_for(request: Request, path: str, pool, functions: str | None):
    """Worker options for a unit under a nested configuration; None for the run's own."""
    own = request.config_for(path)
    if own is request.config:
        return None
    run = request.config
    memory = (run.max_memory << 20) if run.max_memory else pool.default_memory(request.jobs)
    return pool.Options(own.conventions, run.root, own.max_states, own.function_seconds, memory,
                        functions)


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
    names = {relative(u, root) for u in units}
    for r in results:
        names.update(relative(os.path.normpath(p), root) for p in r.includes)
    return sorted(n for n in names if not os.path.isabs(n))


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def warn(message: str) -> None:
    print(f"refcheck: {message}", file=sys.stderr)
