"""One translation unit in, one UnitResult out: frontend -> CFG -> analysis -> findings."""

from __future__ import annotations

import os
import sys
import threading
import traceback
import time
from dataclasses import dataclass, field, replace

from refcheck.conventions import Conventions
from refcheck.support.gcpause import frozen_heap
from refcheck.conventions.summary import exported
from refcheck.driver import chains, cycles, fntables, leading, preloading, shards, splitting, stealing
from refcheck.driver.unitcheck import UnitCheck, location_under, relative
from refcheck.findings import ToolError, UnitResult, merge_findings


# Deeply nested code recurses in the CFG builder; a big thread stack makes a high limit safe.
STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 60_000


@dataclass
class Settings:
    conventions: Conventions = field(default_factory=Conventions)
    # Arguments for clang (-I, -D, -U, -std=, -x ...), as the CLI or a compile database gives them.
    clang_args: list[str] = field(default_factory=list)
    # Paths in results are made relative to this directory when they lie under it.
    root: str = "."
    # Per-function bounds: states explored and seconds spent before giving up on it.
    max_states: int = 50_000
    function_seconds: float = 10.0
    # Check only these functions (by name) when set: the mutation harness re-checks one function.
    only_functions: frozenset | None = None
    # Analyse once per class of graphs identical after renaming (the type instantiations of a
    # generic function) and skip bodies that cannot produce a finding. Off only to compare.
    share: bool = True
    # The cache directory for per-function results (refcheck/caches/fncache.py) and the unit's
    # settings key (cache.unit_key); None: every function is checked.
    function_cache: str | None = None
    unit_key: str = ""
    # Summaries inferred from the bodies of other units' functions (phase 1 of the run), by name.
    summaries: dict = field(default_factory=dict)
    # A part of a unit checked in shards (driver/shards.py): a Shard (round 1 over its share of
    # the definitions) or a Fixup (the whole-unit order replayed); None: the whole unit.
    shard: object = None
    # A shared parse's lead: the worker's side of the pool's slots (forking.Lender); else None.
    lender: object = None
    # A shared parse's lead running its unit's fixup: the same Lender, so that the second round
    # may fork one helper into a slot the pool lends (driver/fixsplit.py); else None.
    helper: object = None
    # Phase 2 (a unit checked again with the run's table): the checks its phase 1 made
    # (`repeats.Earlier`), repeated where every record one asked is unchanged; else None.
    earlier: object = None


def check_unit(path: str, settings: Settings):
    """Check every function defined in (or included by) one unit (a shards.Part for a shard or
    fixup job, unless it failed). Never raises for bad input."""
    global _job_cpu
    _job_cpu = time.process_time()
    box: list = []

    def work():
        try:
            box.append(_check(path, settings))
        except BaseException as e:  # noqa: BLE001 - reported as a tool error below
            box.append(e)

    old_limit = sys.getrecursionlimit()
    old_stack = threading.stack_size()
    try:
        threading.stack_size(STACK_BYTES)
        sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
        t = threading.Thread(target=work, name="refcheck-unit")
        t.start()
        t.join()
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(old_limit)
    result = box[0] if box else RuntimeError("no result")
    if isinstance(result, KeyboardInterrupt):
        raise result
    if isinstance(result, BaseException):
        if os.environ.get("REFCHECK_DEBUG"):
            # The one-line tool error names no frame; a developer reproducing it wants them.
            traceback.print_exception(result, file=sys.stderr)
        rel = relative(os.path.abspath(path), settings.root)
        return UnitResult(rel, errors=[ToolError(rel, f"internal error: {type(result).__name__}: {result}")])
    return result


# The worker's CPU clock when its current job began (a shared parse's lead weighs its own share).
_job_cpu = 0.0
# (path, clang args, unit key) and the parse of this worker's last shard job.
_held: tuple | None = None


def _parse(path: str, settings: Settings):
    """The unit's parse. A shard's stays in its worker for the unit's fixup job, which the parent
    sends to the worker of the last shard (pool.Job.worker); any other job lets it go first."""
    from refcheck.frontend.unit import parse

    global _held
    same = (path, tuple(settings.clang_args), settings.unit_key)
    held, _held = _held, None
    if isinstance(settings.shard, shards.Fixup) and held is not None and held[0] == same:
        return held[1]
    held = None
    parsed = parse(path, settings.clang_args, detailed=not fntables.rechecking(path, settings),
                   system_headers=settings.conventions.system_headers)
    if isinstance(settings.shard, shards.Shard):
        _held = (same, parsed)
    return parsed


@dataclass
class _Prepared:
    """A parsed unit and its fixed work (counted types, slot roles, may-raise, the function table,
    comments), done once: a shared parse's children inherit it."""

    settings: Settings
    rel: str
    parsed: object
    result: UnitResult
    conv: object
    summaries: object
    places: list
    names: list
    table: object
    selected: list
    parse_seconds: float
    instances: object = None


def _check(path: str, settings: Settings) -> UnitResult:
    global _job_cpu
    from refcheck.frontend.unit import FrontendError

    rel = relative(path, settings.root)
    result = UnitResult(rel)
    t0 = time.perf_counter()
    try:
        parsed = _parse(path, settings)
    except FrontendError as e:
        result.errors.append(ToolError(rel, str(e)))
        return result
    t1 = time.perf_counter()
    if settings.lender is not None and settings.lender.early:
        # Parsed while the units ahead of it were checked: their summaries, once all are in. Its
        # head (`split`) is its CPU from here: the parse overlapped the other workers' units.
        settings = leading.with_table(settings)
        _job_cpu = time.process_time()
    preloading.parsed()
    import refcheck.reuse.plan  # noqa: F401 - the wait for the preload's imports, below
    # The wait for those imports (once per worker, AFTER_PARSE) is no stage's, as it was when they
    # came before the parse: a small unit's analysis would otherwise show a worker's start-up.
    began = time.perf_counter()
    prep = _prepare(path, settings, rel, parsed, result, t1 - t0)
    shard = settings.shard
    if shard is None:
        return _run(prep, prep.selected, None, began)
    if isinstance(shard, shards.Shard) and shard.shared and shard.number == 0 and settings.lender is not None:
        return leading.lead(prep, shard, settings.lender, began, _job_cpu, _run,
                            lambda s: _prepare(path, s, rel, parsed, UnitResult(rel), 0.0))
    return _run(prep, splitting.share(prep, shard)[shard.number] if isinstance(shard, shards.Shard) else [], shard,
                began)


def _prepare(path: str, settings: Settings, rel: str, parsed, result: UnitResult, parse_seconds: float):
    """The unit's fixed work after its parse (see _Prepared)."""
    from refcheck.frontend.clangutil import location, qualified_name

    result.includes = [relative(f, settings.root) for f in parsed.includes]
    result.errors.extend(_with_hint(e, settings) for e in parsed.errors)
    conv = settings.conventions
    from refcheck.frontend.handles import CountedTypes
    conv = conv.for_unit(unit_counted=CountedTypes(parsed.top, conv))  # which pointers are handles, when asked
    from refcheck.frontend.slots import prime
    prime(parsed, conv)  # the slot roles of its tables, from the top-level cursors listed once
    if conv.errors == "unwind" and conv.may_raise_summaries:  # raised in a callee, unwinds past its caller
        from refcheck.frontend.raises import may_raise_functions
        conv = conv.for_unit(unit_may_raise=may_raise_functions(parsed.functions, conv))
    plain = [qualified_name(fn) for fn in parsed.functions]
    # C++ overloads the unit defines keep their inferred records apart (`frontend.overloads`).
    from refcheck.frontend.overloads import overloaded, record_names

    overloads = overloaded(parsed.functions, plain)
    names = record_names(parsed.functions, plain, overloads) if overloads else plain
    if overloads:
        conv = conv.for_unit(unit_overloads=overloads)
    # Summaries inferred from the bodies (`analysis.summarize`): the other units' (phase 1 of the
    # run), then this unit's own as each is analysed; callers use them where names say nothing.
    # The run's table never answers for a name the unit defines: in phase 2 it holds the unit's
    # own records from its last check, and a caller defined before its callee (or a cycle's
    # member) would start from them instead of from nothing, so the unit's result would depend
    # on whether it was checked before or after the units it calls (libsecret's on_init_base).
    from refcheck.conventions.summary import SummaryTable

    defined = set(names) | set(plain)
    summaries = SummaryTable({n: s for n, s in settings.summaries.items() if n not in defined})
    conv = conv.for_unit(inferred=summaries)
    # Where each definition is (as findings name it), for instantiation classes and cache keys.
    places = [location(fn) for fn in parsed.functions]
    table = fntables.open_table(path, parsed, places, settings, conv, set(result.includes))
    selected = [i for i, fn in enumerate(parsed.functions)
                if settings.only_functions is None or fn.spelling in settings.only_functions]
    _carry_comments(parsed, result, settings.root)
    return _Prepared(settings, rel, parsed, result, conv, summaries, places, names, table, selected, parse_seconds)


def _plan(prep: _Prepared, selected: list[int], stolen: bool = False):
    """The reuse plan of `selected`, and (for a group taken from another shard, `stolen`) the
    names its instance keys asked for. A stolen group is keyed wherever two of its definitions
    could share: the walk the keys need is made (`instances`), a build a key saves is ~20 ms."""
    from refcheck.reuse.plan import INSTANCE_KEYS_FROM, Plan

    table, summaries = prep.table, prep.summaries

    def made():
        return Plan(prep.parsed, prep.places, prep.conv, selected,
                    lambda i: table is not None and table.has(table.keys[i]), prep.settings.share, prep.instances,
                    1 if stolen and prep.instances is not None else INSTANCE_KEYS_FROM)

    if not stolen:
        return made(), frozenset()
    ever, summaries.ever = summaries.ever, set()
    try:
        plan = made()
        return plan, frozenset(summaries.ever)
    finally:
        summaries.ever |= ever


def _run(prep: _Prepared, selected: list[int], shard, began: float, claims=None):
    """Checks `selected` of the prepared unit: the whole unit's UnitResult (shard None), else a
    shards.Part. `began`: when this process's work after the parse began (the analysis time).
    `claims`: a shared parse's shard takes the others' groups when done with its own (stealing)."""
    settings, parsed, result, summaries, table = prep.settings, prep.parsed, prep.result, prep.summaries, prep.table
    plan = _plan(prep, selected)[0]
    planned = frozenset(summaries.ever)  # the instance keys' asks
    unit = UnitCheck(settings, prep.conv, parsed, result, plan.key_seconds, summaries, prep.names)
    unit.places = prep.places
    unit_errors = len(result.errors)
    # What the unit holds from here on (its parse, the instance keys) outlives every function's
    # work: the collections after each function need not scan it again.
    with frozen_heap():
        if claims is None:
            records, taken = _definitions(unit, plan, table, selected, shard), (0, 0.0)
        else:
            records, asked, taken = stealing.shard(prep, unit, plan, claims, shard.number, _plan)
            planned |= asked
    defined = set(prep.names)
    asked_by_hits = table.asked_by_hits if table is not None else set()
    result.imported = summaries.used(n for n in summaries.ever | asked_by_hits if n not in defined)
    result.timings = {"parse": prep.parse_seconds, "cfg": unit.cfg_time,
                      "analysis": (time.perf_counter() - began) - unit.cfg_time}
    slots = _slot_exports(parsed.tu, prep.conv)
    if shard is not None:  # a shard's stores are the whole unit's: shards.merged keeps them
        result.exports = slots
        return replace(_part(result, unit_errors, table, records, parsed.partial, planned), stolen=taken)
    from refcheck.frontend.clangutil import externally_visible

    result.exports = {n: s for fn, n in zip(parsed.functions, prep.names)
                      if n in summaries.known and externally_visible(fn)
                      and (s := exported(summaries.known[n])).says_something}
    result.exports.update(slots)
    if table is not None:
        fntables.save(table, result)
    if result.imported:  # the run may check it again (phase 2): these checks may repeat
        result.checks = unit.repeats.earlier(prep.names)
    result.findings = merge_findings(unit.findings)
    result.counts.update({k: n for k, n in unit.counts.items() if n or k != "cached"})
    if parsed.partial and result.functions:
        # The first error's fix is the partial parse's fix too.
        hint = next((e.hint for e in result.errors if e.hint), "")
        result.errors.append(ToolError(prep.rel, f"{result.functions} function(s) checked on a partial parse; "
                                                 "findings may be incomplete", severity="warning", hint=hint))
    return result


def _definitions(unit: "UnitCheck", plan, table, selected: list[int], shard) -> dict:
    """Checks the definitions: all for a whole unit, a shard's share (round 1 only: the parent
    replays the order), or a fixup's; returns a part's records (none for a whole unit)."""
    if shard is not None and not isinstance(shard, shards.Shard):
        unit.summaries.ever.update(shard.planned)
        return splitting.fixup(unit, plan, table, shard.records, unit.settings.helper)
    # In source order (C defines helpers before their callers, mostly); a function whose check
    # used a summary that changed later in the unit (a helper defined after it, recursion) is
    # checked again at the end, with the unit's table then, until none is (driver.chains).
    for index in selected:
        unit.definition(index, plan, table)
    if shard is not None:
        return {i: unit.record(i) for i in selected}
    unit.second = True
    plan.rechecking()
    for index in unit.stale():
        unit.definition(index, plan, table)
    chains.settle(unit, plan, table)
    cycles.settle(unit, plan, table)
    return {}


def _part(result: UnitResult, unit_errors: int, table, records: dict, partial: bool, planned: frozenset):
    """A shard or fixup job's shards.Part: the unit-level result (its parse's diagnostics, not
    the definitions'), the records, and the per-function cache entries (the parent merges the
    parts and writes the unit's table once)."""
    del result.errors[unit_errors:]
    result.functions = 0
    if table is not None and table.rejected:
        fntables.save(table, result, write=False)
    return shards.Part(result, records, dict(table._new) if table is not None else {}, partial, planned)


def _slot_exports(tu, conv) -> dict:
    """`vtables.exports`: the records of the function-pointer slots the unit stores into."""
    from refcheck.frontend.vtables import exports

    return exports(tu, conv)


def _carry_comments(parsed, result: UnitResult, root: str) -> None:
    """The unit's suppression comments, and the extents of the definitions in their files (an
    `ignore-function` covers one), root-relative, for the run's suppression filter."""
    from refcheck.frontend.comments import definition_extents, refcheck_comments

    comments = refcheck_comments(parsed)
    files = {c.location.file for c in comments}
    result.comments = tuple(replace(c, location=location_under(c.location, root)) for c in comments)
    result.definitions = tuple(replace(e, file=relative(e.file, root))
                               for e in definition_extents(parsed, files))


def _with_hint(e: ToolError, settings: Settings) -> ToolError:
    """A parse diagnostic, root-relative, with the flag most likely to fix it."""
    from refcheck.workspace import hints

    hint = e.hint or hints.for_diagnostic(e.message, settings.clang_args, settings.root)
    return ToolError(relative(e.file, settings.root), e.message, e.line, e.column, e.severity, hint)
