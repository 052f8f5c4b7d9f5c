"""One translation unit in, one UnitResult out: frontend -> CFG -> analysis -> findings."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from refcheck.conventions import Conventions
from refcheck.gcpause import frozen_heap, paused_collector
from refcheck.model import Finding, Location, Step, ToolError, UnitResult, merge_findings


def _same(s: str) -> str:
    return s

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
    # The cache directory for per-function results (refcheck/fncache.py) and the unit's
    # settings key (cache.unit_key); None: every function is checked.
    function_cache: str | None = None
    unit_key: str = ""


def check_unit(path: str, settings: Settings) -> UnitResult:
    """Check every function defined in (or included by) one unit. Never raises for bad input."""
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
        rel = _relative(os.path.abspath(path), settings.root)
        return UnitResult(rel, errors=[ToolError(rel, f"internal error: {type(result).__name__}: {result}")])
    return result


def _relative(file: str, root: str) -> str:
    if not file:
        return file
    absroot = os.path.abspath(root)
    absfile = os.path.abspath(file)
    if absfile == absroot or absfile.startswith(absroot.rstrip(os.sep) + os.sep):
        return os.path.relpath(absfile, absroot)
    return absfile


# What a unit's check imports once its parse is done: networkx alone takes longer to import than
# 10% of torch7's THTensor.c parse, which is the whole of a re-check served by the per-function
# cache. A worker imports them in the background while its first parse runs (libclang's parse
# releases the GIL), the ones every check needs first.
AFTER_PARSE = ("refcheck.renaming", "refcheck.analysis", "refcheck.frontend.builder", "refcheck.fncache",
               "refcheck.frontend.instances")
# Set when a parse ends: from then on the check imports what it needs itself, and a background
# import would only compete with it for the interpreter (a small unit's parse ends long before
# the imports do).
_PARSED = threading.Event()


def preload() -> None:
    """Imports AFTER_PARSE until a parse ends (a worker's background thread). Never raises: a
    module that fails to import here fails again, and is reported, where the check imports it."""
    import importlib

    for name in AFTER_PARSE:
        if _PARSED.is_set():
            return
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - see the docstring
            return


def _check(path: str, settings: Settings) -> UnitResult:
    from refcheck.frontend.unit import FrontendError, parse

    rel = _relative(path, settings.root)
    result = UnitResult(rel)
    t0 = time.perf_counter()
    try:
        parsed = parse(path, settings.clang_args, detailed=not _recheck(path, settings),
                       system_headers=settings.conventions.system_headers)
    except FrontendError as e:
        result.errors.append(ToolError(rel, str(e)))
        return result
    t1 = time.perf_counter()
    _PARSED.set()
    from refcheck.analysis import analyze
    from refcheck.frontend.builder import build_cfg, build_cfg_if_relevant
    from refcheck.frontend.clangutil import location
    from refcheck.renaming import class_key, renamed_result, renamer

    # The wait for those imports (once per worker, AFTER_PARSE) is no stage's, as it was when they
    # came before the parse: a small unit's analysis would otherwise show a worker's start-up.
    t1b = time.perf_counter()

    result.includes = [_relative(f, settings.root) for f in parsed.includes]
    result.errors.extend(ToolError(_relative(e.file, settings.root), e.message, e.line, e.column, e.severity)
                         for e in parsed.errors)
    findings: list[Finding] = []
    cfg_time = 0.0
    conv = settings.conventions
    if conv.errors == "unwind" and conv.may_raise_summaries:  # raised in a callee, unwinds past its caller
        from dataclasses import replace

        from refcheck.frontend.raises import may_raise_functions
        conv = replace(conv, unit_may_raise=may_raise_functions(parsed.functions, conv))
    # Where each definition is (as findings name it), for instantiation classes and cache keys.
    places = [location(fn) for fn in parsed.functions]
    table = _function_table(path, parsed, places, settings, conv)
    # class key -> (the representative's result, its tokens); see refcheck.renaming. Keys hold
    # the definition's location, so only functions defined at the same place (the instantiations
    # of one generic body) can share one: the others are not worth the key. A function served
    # from the per-function cache takes no part: the first one analysed represents its class.
    classes: dict = {}
    sites = Counter(place for fn, place in zip(parsed.functions, places)
                    if settings.only_functions is None or fn.spelling in settings.only_functions)
    counts = {"skipped": 0, "shared": 0, "analysed": 0, "cached": 0}
    # Instantiations recognised before building (refcheck.frontend.instances): instance key ->
    # (the first one's result, None when it was skipped; its names).
    instances = None
    instance_keys: dict[int, tuple | None] = {}
    # Places where every definition left to build has one instance key: at most one graph is
    # built there, so no class key can find it a partner (class keys hold the place).
    alone: set = set()
    left = _left_to_share(parsed, places, sites, table, settings) if settings.share else []
    if _instances_pay(parsed, places, left):
        from refcheck.frontend.instances import Instances
        a = time.perf_counter()
        instances = Instances(parsed, conv)
        groups: dict = {}
        for index in left:
            place = places[index]
            got = instance_keys[index] = instances.key(parsed.functions[index], place)
            groups.setdefault(place, set()).add(got[0] if got is not None else index)
        alone = {place for place, keys in groups.items() if len(keys) == 1}
        cfg_time += time.perf_counter() - a  # the frontend's work, in place of builds
    prebuilt: dict = {}

    def emit(res, fn) -> None:
        if res.incomplete:
            result.errors.append(_fn_error(fn, settings, f"not fully checked: {res.incomplete}"))
        for f in res.findings:
            if parsed.partial:
                f.message += " (checked on a partial parse)"
            _relativize(f, settings.root)
            findings.append(f)

    # What the unit holds from here on (its parse, the instance keys) outlives every function's
    # work: the collections after each function need not scan it again.
    with frozen_heap():
        for index, top in enumerate(parsed.functions):
            if settings.only_functions is not None and top.spelling not in settings.only_functions:
                continue
            key = table.keys[index] if table is not None else None
            hit = table.get(key) if table is not None else None
            if hit is not None:
                table.keep(key)
                result.functions += hit.functions
                result.errors.extend(hit.errors)
                findings.extend(hit.findings)
                counts["cached"] += hit.functions
                continue
            marks = (len(findings), len(result.errors), result.functions, dict(counts))
            instance = instance_keys.get(index)
            known = prebuilt.get(instance[0]) if instance is not None else None
            queue = [] if known is not None else [top]  # the function, then the lambdas inside it
            if known is not None:
                result.functions += 1
                if known[0] is None:
                    counts["skipped"] += 1
                else:
                    counts["shared"] += 1
                    emit(renamed_result(known[0], renamer(known[1], instance[1])), top)
            with paused_collector():
                while queue:
                    fn = queue.pop(0)
                    result.functions += 1
                    a = time.perf_counter()
                    try:
                        cfg = build_cfg_if_relevant(fn, conv) if settings.share else build_cfg(fn, conv)
                    except RecursionError:
                        result.errors.append(_fn_error(fn, settings, "nested too deeply to build its graph"))
                        continue
                    b = time.perf_counter()
                    cfg_time += b - a
                    if cfg is None:  # nothing in it can produce a finding
                        counts["skipped"] += 1
                        if fn is top and instance is not None:
                            prebuilt[instance[0]] = (None, instance[1])
                        continue
                    queue[:0] = cfg.lambdas
                    if settings.share and sites[cfg.loc] > 1 and cfg.loc not in alone:
                        ckey, tokens = class_key(cfg, conv)
                        known_class = classes.get(ckey)
                        if known_class is None:
                            res = analyze(cfg, conv, settings.max_states, settings.function_seconds)
                            classes[ckey] = (renamed_result(res, _same), tokens)
                            counts["analysed"] += 1
                        else:
                            res = renamed_result(known_class[0], renamer(known_class[1], tokens))
                            counts["shared"] += 1
                    else:
                        res = analyze(cfg, conv, settings.max_states, settings.function_seconds)
                        counts["analysed"] += 1
                    if fn is top and instance is not None and not cfg.lambdas:
                        prebuilt[instance[0]] = (renamed_result(res, _same), instance[1])
                    emit(res, fn)
                # The graph dies before the collection at the block's end, which would otherwise
                # keep it for older collections to rescan.
                cfg = None
            if table is not None:
                from refcheck.fncache import Outcome

                table.put(key, Outcome(
                    tuple(findings[marks[0]:]), tuple(result.errors[marks[1]:]), result.functions - marks[2],
                    tuple((k, counts[k] - marks[3][k]) for k in ("skipped", "shared", "analysed")
                          if counts[k] != marks[3][k])))
    if table is not None:
        table.save()
        if table.rejected:
            result.notes.append(f"ignored the per-function cache table {table.rejected}; "
                                "its functions were checked again")
        if table.write_error:
            from refcheck.fncache import UNWRITABLE_TABLE

            result.notes.append(f"{UNWRITABLE_TABLE}{table.write_error}")
    t2 = time.perf_counter()
    result.findings = merge_findings(findings)
    result.timings = {"parse": t1 - t0, "cfg": cfg_time, "analysis": (t2 - t1b) - cfg_time}
    result.counts.update({k: n for k, n in counts.items() if n or k != "cached"})
    if parsed.partial and result.functions:
        result.errors.append(ToolError(rel, f"{result.functions} function(s) checked on a partial parse; "
                                            "findings may be incomplete", severity="warning"))
    return result


def _function_cache_on(settings: Settings) -> bool:
    """Off with --no-cache, without a usable unit key, and for the mutation harness checking
    chosen functions."""
    return settings.function_cache is not None and bool(settings.unit_key) and settings.only_functions is None


def _recheck(path: str, settings: Settings) -> bool:
    """A per-function table of this unit and settings exists: most definitions will likely come
    from it (a re-check after an edit), so the parse skips the detailed preprocessing record that
    only instance keys need (frontend/unit.DETAILED_RECORD). When an edit to a header makes them
    all miss, they are built without instance keys: slower, never different."""
    if not _function_cache_on(settings):
        return False
    from refcheck.fncache import table_path

    return os.path.isfile(table_path(settings.function_cache, path, settings.unit_key))


# Instance keys (frontend/instances.py) cost a walk over the unit's top-level cursors first (0.3 s
# on torch7's THTensor.c) and save a build per definition that shares an earlier one's key (about
# 20 ms each there): worth it from about this many definitions that could share.
INSTANCE_KEYS_FROM = 16


def _left_to_share(parsed, places: list, sites: Counter, table, settings: Settings) -> list[int]:
    """The definitions at shared places left to build: checked in this run and not served by the
    per-function cache (after an edit, only the edited body's instantiations are)."""
    return [i for i, (fn, place) in enumerate(zip(parsed.functions, places))
            if sites[place] > 1
            and (settings.only_functions is None or fn.spelling in settings.only_functions)
            and not (table is not None and table.has(table.keys[i]))]


def _instances_pay(parsed, places: list, left: list[int]) -> bool:
    """Whether enough of the definitions `left` to build could share an earlier one's key. C
    only: the keys are made for C (see frontend/instances.py)."""
    if parsed.language != "c" or not parsed.detailed:
        return False
    at = Counter(places[i] for i in left)
    return sum(n - 1 for n in at.values()) >= INSTANCE_KEYS_FROM


def _function_table(path: str, parsed, places: list, settings: Settings, conv):
    """The unit's per-function cache, or None when it is off."""
    if not _function_cache_on(settings):
        return None
    from refcheck.cache import KeyProblem, load_secret
    from refcheck.fncache import FunctionCache

    try:
        secret = load_secret()
    except KeyProblem:
        return None  # the parent says so once (its unit cache is off for the same reason)
    files = {_relative(f, settings.root) for f in parsed.includes}
    may_raise = conv.unit_may_raise if conv.errors == "unwind" and conv.may_raise_summaries else None
    return FunctionCache(settings.function_cache, settings.unit_key, path, parsed, places, files,
                         may_raise, secret)


def _fn_error(fn, settings: Settings, why: str) -> ToolError:
    loc = fn.location
    file = _relative(loc.file.name, settings.root) if loc.file else ""
    return ToolError(file, f"function '{fn.spelling}' {why}", loc.line, loc.column)


def _loc(loc: Location, root: str) -> Location:
    return Location(_relative(loc.file, root), loc.line, loc.column)


def _relativize(f: Finding, root: str) -> None:
    f.location = _loc(f.location, root)
    if f.origin is not None:
        f.origin = _loc(f.origin, root)
    f.path = [Step(_loc(s.location, root), s.message) for s in f.path]
