"""Function-level sharding: one big unit checked by several workers.

A unit goes to one worker, so a run whose work is mostly one unit (torch7's lib/TH/THTensor.c)
gains nothing from -j. When a unit's expected work is more than an even share of the run's, it
becomes K shard jobs: each parses the unit and checks only its share of the definitions (whole
places, so that a generic body's instantiations stay together and the instance plan still
analyses them once). The parent then replays the whole-unit check's order over what the shards
report: round 1 in source order, each definition seeing the summaries of the ones before it,
then the second round for stale summaries (unitcheck.UnitCheck). A definition whose check saw
other summaries than that order gives it (a callee in another shard) is checked again by one
fixup, which replays the same way with the definitions' records; the merged result is the one a
whole-unit check gives. A shared parse's lead runs the fixup itself once its children's records
are in (leading.fixed: no round trip); otherwise the parent sends it as a job.

Imported by the parent: no libclang here.
"""

from __future__ import annotations

import enum
import math
import os
import re
from dataclasses import dataclass, field, replace

from refcheck.conventions.summary import exported
from refcheck.findings import ToolError, UnitResult, merge_findings

# REFCHECK_SHARDS=0 turns sharding off (to compare, or to rule it out); =parse gives each shard
# job its own parse (as where os.fork is missing) instead of one parse the shards share.
SWITCH = "REFCHECK_SHARDS"
SEPARATE = "parse"
# A definition's estimated cost, in bytes of its extent plus a fixed part, when no measured cost
# is at hand (--no-cache, or a definition new since the last run): the first at its place is
# built, keyed and analysed; a later instantiation there is keyed and often paired by instance or
# class key, but a key walks its whole body. Least squares over the per-definition CPU of torch7's
# THTensor.c (each Record's seconds, from one job checking shard 1 of 1, plus its instance key's
# time; both --errors modes alike): first 11-12 ms +
# 0.9 us/byte, later 2.5 ms + 0.65 us/byte. The fixed part is what bytes miss: a definition
# made by a macro (LAB_IMPLEMENT_BASIC_FUNCTION) spans the 30 bytes of its invocation, and such
# places were a third of the unit's work that the bytes alone gave to one shard.
FIRST_COST = 12_000
LATER_COST = 2_700
SHARED_COST = 0.7
# The estimate's unit in CPU seconds (the fit above is in microseconds), to weigh seconds
# measured now (a shared parse's lead: `split`'s head) against estimated definitions.
ESTIMATE_SECONDS = 0.85e-6
# A split unit's lead starts at once (Shard.early) when the units ahead of it are at most this
# share of its own expected work per other worker: its parse (about a tenth of THTensor.c's
# work) then overlaps them, and it waits for their summaries only when they take longer. Bytes
# overstate a small unit against a generic-heavy one: on torch7's lib/TH the 13 units before
# THTensor.c are 24% of its bytes and 8% of its time.
EARLY_SHARE = 0.3
# The least expected work worth a second parse and worker: seconds (a previous time), else bytes
# (include_bytes).
MIN_SECONDS = 2.0
MIN_BYTES = 256 << 10
# Bytes of project files a unit reaches through its #include lines, at most this many files.
MAX_INCLUDED = 2000
_INCLUDE = re.compile(rb'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
_MACRO_INCLUDE = re.compile(rb'^\s*#\s*include\s+[A-Za-z_]\w*\s*$', re.M)


@dataclass(frozen=True)
class Shard:
    """Check only the definitions `split` gives shard `number` (0-based) of `count`."""

    number: int
    count: int
    # (identity, seconds) of the unit's definitions as the last run measured them (costs): the
    # parent reads them once and sends every shard the same, so that all split alike.
    measured: tuple = ()
    # One parse for all the unit's shards (driver/forking.py): the worker given shard 0 checks
    # the others in forked children, each in a slot the pool lends it; the jobs of shards 1..K-1
    # stand for those slots and never reach a worker of their own.
    shared: bool = False
    # A shared parse's lead that starts before the units ahead of it in the run's order: it
    # parses while the other workers check them, then waits for their summaries (pool.run).
    early: bool = False


class How(enum.Enum):
    """How round 1 got a definition's outcome: the whole-unit check takes CACHED and SHARED ones
    as they are, whatever the summaries then (unitcheck.UnitCheck.definition)."""

    CHECKED = "checked"
    CACHED = "cached"
    SHARED = "shared"


@dataclass(frozen=True)
class Record:
    """One definition's check (and its lambdas'): what it added to the unit's result, the
    summary it inferred, and (name, digest) of the summaries it used."""

    name: str
    visible: bool
    place: object  # where the definition is: a generic body's instantiations share it
    how: How
    summary: object
    used: tuple
    findings: tuple = ()
    errors: tuple = ()
    functions: int = 0
    counts: tuple = ()
    seconds: float = 0.0  # the CPU its check took (the next split's measured cost)

    def bare(self) -> "Record":
        """Without findings and errors: what a fixup job needs to replay the order."""
        return replace(self, findings=(), errors=())


@dataclass(frozen=True)
class Fixup:
    """Replay the whole-unit order over `records` (every definition's), checking again the ones
    whose summaries differ from it."""

    records: dict
    # The names the shards' instance plans asked for (before any definition's check).
    planned: frozenset = frozenset()

    @classmethod
    def over(cls, parts) -> "Fixup":
        """The fixup of a unit's shards' Parts: every definition's record (bare: the order is all
        it replays) and every name their instance plans asked for."""
        return cls({i: r.bare() for p in parts for i, r in p.records.items()},
                   frozenset().union(*(p.planned for p in parts)))


@dataclass
class Part:
    """What a shard or fixup job sends back: the unit-level result (includes, parse diagnostics,
    comments, timings, imported summaries, notes), the records of the definitions it checked,
    and its per-function cache entries (the parent writes the unit's table once)."""

    result: UnitResult
    records: dict
    entries: dict = field(default_factory=dict)
    partial: bool = False
    planned: frozenset = frozenset()
    # A shared parse's lead: its children's forking.Child (the pool makes each an Outcome).
    children: tuple = ()
    # The groups this shard took from others at the end (driver/stealing.py) and their
    # definitions' CPU seconds, for the job log.
    stolen: tuple = (0, 0.0)
    # A shared parse's lead that ran its unit's fixup itself (leading.py); None: the parent
    # decides whether one is needed and sends it as a job.
    fixed: "Fixed | None" = None


@dataclass(frozen=True)
class Fixed:
    """The fixup a shared parse's lead ran on its own parse once every shard's records were in:
    its Part (None: the records already follow the whole-unit order), its CPU seconds, and when
    it began and ended (time.monotonic), for the job log."""

    part: Part | None
    cpu: float = 0.0
    began: float = 0.0
    ended: float = 0.0
    # The helper that checked part of its second round (fixsplit.py): a forking.Child without
    # its part (its CPU and span); None: none ran.
    helper: object = None


def estimate(places: list, sizes: list[int]) -> list[float]:
    """Each definition's expected cost from its place and extent bytes (FIRST_COST...)."""
    seen: set = set()
    out = []
    for place, size in zip(places, sizes):
        out.append(LATER_COST + size * SHARED_COST if place in seen else FIRST_COST + float(size))
        seen.add(place)
    return out


def costs(places: list, names: list[str], sizes: list[int], measured: dict | None) -> list[float]:
    """Each definition's cost for the split: its measured seconds where `measured` (identity ->
    seconds, the last run's, see `identity`) has it, else the estimate in the measured ones'
    scale (their seconds per estimated unit; none measured: the estimate as it is)."""
    guess = estimate(places, sizes)
    if not measured:
        return guess
    known = [measured.get(identity(n, p)) for n, p in zip(names, places)]
    pairs = [(k, g) for k, g in zip(known, guess) if k is not None]
    if not pairs:
        return guess
    rate = sum(k for k, _ in pairs) / max(sum(g for _, g in pairs), 1e-9)
    return [k if k is not None else g * rate for k, g in zip(known, guess)]


def identity(name: str, place) -> str:
    """A definition's name in the measured costs: its name and place, which survive an edit
    elsewhere in the unit (a per-function cache key does not survive a header edit)."""
    return f"{name}@{getattr(place, 'file', place)}:{getattr(place, 'line', 0)}:{getattr(place, 'column', 0)}"


# Callers kept with their callees (`together`): a callee called from at most this many places
# joins their group (a hub's summary, called from everywhere, cannot keep a split balanced), as
# long as the group stays under this fraction of a shard's even share.
MAX_CALLERS = 16
GROUP_SHARE = 0.1


def together(places: list, names: list[str], words: dict, cost: list[float], count: int) -> list:
    """Each definition's group for `split`: its place, joined with the places of its callees
    and their other callers. The fixup checks a definition again when the shards gave it other
    summaries than one worker would: a caller in one shard of a callee, defined before it, in
    another. `words`: place -> the identifiers of its text; a definition is named in it by its
    name or the part after its last `_` (a generic body's `THTensor_(resize)`). Cheap, and only
    a guess: a group that saves no fixup costs only balance."""
    first: dict = {}
    weight: dict = {}
    for i, (place, c) in enumerate(zip(places, cost)):
        first.setdefault(place, i)
        weight[place] = weight.get(place, 0.0) + float(c)
    named: dict = {}
    for name, place in zip(names, places):
        for token in {name, name.rsplit("_", 1)[-1]}:
            named.setdefault(token, set()).add(place)
    callers: dict = {}
    for place, found in words.items():
        for word in found:
            for callee in named.get(word, ()):
                if callee != place:
                    callers.setdefault(callee, set()).add(place)
    root = {p: p for p in first}

    def find(p):
        while root[p] != p:
            root[p] = p = root[root[p]]
        return p

    cap = GROUP_SHARE * sum(weight.values()) / max(1, count)
    for callee in sorted(callers, key=lambda p: (len(callers[p]), first[p])):
        if len(callers[callee]) > MAX_CALLERS:
            break
        groups = {find(callee)} | {find(p) for p in callers[callee]}
        if len(groups) > 1 and sum(weight[g] for g in groups) <= cap:
            top = min(groups, key=first.__getitem__)
            for g in groups:
                root[g] = top
                weight[top] += weight[g] if g != top else 0.0
    return [find(p) for p in places]


def split(places: list, cost: list[float], count: int, head: float = 0.0) -> list[int]:
    """Each definition's shard: whole places (a generic body's instantiations share one) go to
    the least loaded shard, costliest first (ties: the earlier place, the lower shard). `head`:
    the work shard 0 has already done, in the costs' unit (a shared parse's lead did the parse
    and the fixed work for all)."""
    total: dict = {}
    first: dict = {}
    for i, (place, c) in enumerate(zip(places, cost)):
        first.setdefault(place, i)
        total[place] = total.get(place, 0.0) + float(c)
    load = [float(head)] + [0.0] * (count - 1)
    where = {}
    for place in sorted(total, key=lambda p: (-total[p], first[p])):
        k = min(range(count), key=lambda n: (load[n], n))
        where[place] = k
        load[k] += total[place]
    return [where[p] for p in places]


# --- the whole-unit order, replayed (the parent and the fixup job) --------------------------------

def learn(table: dict, name: str, summary) -> None:
    """As unitcheck.UnitCheck._learn: a summary that says nothing hides another unit's of the name."""
    if summary.says_something:
        table[name] = summary
    else:
        table.pop(name, None)


def digests(used: tuple, table: dict) -> tuple:
    """`used`'s names with their digests in `table` now, as SummaryTable.used gives them."""
    return tuple(sorted((n, table[n].digest() if n in table else "-") for n, _ in used))


def replay(records: dict, table: dict, recheck=None) -> int | None:
    """Round 1 of the whole-unit check over `records`, in source order, learning into `table`
    (the summaries the unit started with). A CHECKED record that saw other summaries, and a
    SHARED one whose place had one (it took that instance's outcome), is replaced by
    `recheck(index)`, or, without `recheck`, its index is returned and the replay stops there;
    another SHARED record's used digests are the table's then. None: all agree."""
    redone = set()
    for i in sorted(records):
        r = records[i]
        if (r.how is How.SHARED and r.place in redone) or (r.how is How.CHECKED and digests(r.used, table) != r.used):
            if recheck is None:
                return i
            redone.add(r.place)
            r = records[i] = recheck(i)
        elif r.how is How.SHARED:
            r = records[i] = replace(r, used=digests(r.used, table))
        learn(table, r.name, r.summary)
    return None


def stale(records: dict, table: dict) -> list[int]:
    """The second round: definitions whose used summaries the final table contradicts."""
    return [i for i in sorted(records) if digests(records[i].used, table) != records[i].used]


def needs_fixup(records: dict, start: dict) -> bool:
    """Whether the shards' records differ from the whole-unit order anywhere (a fixup job
    replays it and checks those definitions again)."""
    # The unit's own names are never the run's table's to answer (engine._prepare): the fixup's
    # check starts without them too.
    own = {r.name for r in records.values()}
    table = {n: s for n, s in start.items() if n not in own}
    replayed = dict(records)
    from refcheck.driver.cyclic import members

    # A cycle of definitions is settled from optimistic records (refcheck.driver.cycles), in
    # the fixup as in a whole unit's check.
    return (replay(replayed, table) is not None or bool(stale(replayed, table))
            or bool(members({i: r.name for i, r in replayed.items()}, {i: r.used for i, r in replayed.items()})))


# --- the parent: which units to split, and the merge -----------------------------------------------

def enabled() -> bool:
    return os.environ.get(SWITCH, "1").strip().lower() not in ("0", "off", "no", "false")


def shared_parse() -> bool:
    """Whether a split unit's shards share one parse (forked children; POSIX only)."""
    from refcheck.driver.forking import available

    return available() and os.environ.get(SWITCH, "1").strip().lower() != SEPARATE


def counts_for(estimates: dict, workers: int, floor: float = 0.0) -> dict:
    """Shards per unit (only units split in two or more): those whose expected work is more than
    an even share of the run's among `workers` and at least `floor`, in as many shards as shares
    (at most workers)."""
    total = sum(estimates.values())
    if workers < 2 or total <= 0 or not enabled():
        return {}
    share = total / workers
    out = {}
    for unit, work in estimates.items():
        k = min(workers, math.ceil(work / share - 1e-9))
        if k >= 2 and work >= floor:
            out[unit] = k
    return out


def queue(jobs: list, workers: int, root: str, previous, measured=lambda path: {}):
    """The pool's queue (a deque the Assembly adds fixup jobs to): units whose expected work is
    more than an even share of the run's among the workers split into shard jobs. Expected
    work: every unit's previous analysis time (`previous(path)`) where the cache has them all,
    else the bytes its #include lines reach. `measured(path)`: a split unit's definitions'
    costs from its last sharded run (caches/costs.py), sent to each of its shards alike."""
    from collections import deque

    if workers < 2 or not jobs or not enabled():
        return deque(jobs)
    times = {j.index: previous(j.path) for j in jobs}
    floor = MIN_SECONDS
    if any(t is None for t in times.values()):
        times = {j.index: float(include_bytes(j.path, j.args, root)) for j in jobs}
        floor = MIN_BYTES
    counts = counts_for(times, workers, floor)
    # In the run's order: a unit started later takes more of the others' summaries (a unit
    # started before the ones it calls into is checked again, phase 2). Longest first (the
    # shards, then the small units filling the other worker) was measured and lost: THTensor.c
    # started before the units whose summaries it uses, and phase 2 checked it all again
    # (lib/TH -j2: 11 s more CPU). So the units before the split one run first, on both workers.
    # The first split unit's lead may start before them (`early`): its parse is theirs to hide.
    known = {j.index: tuple(sorted(measured(j.path).items())) for j in jobs if j.index in counts}
    shared = shared_parse()
    early = _early(jobs, times, counts, workers) if shared else None
    return deque(replace(j, shard=Shard(k, counts[j.index], known[j.index], shared, k == 0 and j.index == early))
                 if j.index in counts else j for j in jobs for k in range(counts.get(j.index, 1)))


def _early(jobs: list, times: dict, counts: dict, workers: int):
    """The first split unit's index where its lead starts at once (EARLY_SHARE), else None."""
    ahead = 0.0
    for j in jobs:
        if j.index in counts:
            return j.index if ahead / (workers - 1) <= EARLY_SHARE * times[j.index] else None
        ahead += times[j.index]
    return None


def include_bytes(path: str, args: list[str], root: str) -> int:
    """The bytes of the unit and of the project files its #include lines reach (resolved beside
    the including file and in the -I directories, under `root`), each once, plus one more copy
    of a .c file included by name for every `#include MACRO` line the header included after it
    reaches (TH's generic bodies: THGenerateAllTypes.h includes TH_GENERIC_FILE once per type):
    the size estimate of a unit whose work is in what it includes (THTensor.c)."""
    dirs = [a[2:] for a in args if a.startswith("-I") and len(a) > 2]
    dirs += [b for a, b in zip(args, args[1:]) if a in ("-I", "-iquote")]
    dirs = [os.path.abspath(d) for d in dirs if os.path.isdir(d)]
    top = os.path.abspath(root).rstrip(os.sep) + os.sep
    seen: dict = {}  # file -> (bytes, its includes resolved, its macro includes)

    def read(file: str):
        if file not in seen and len(seen) < MAX_INCLUDED:
            try:
                with open(file, "rb") as f:
                    data = f.read()
            except OSError:
                data = b""
            seen[file] = (len(data), [], 0)
            names = [m.group(1).decode("utf-8", "replace") for m in _INCLUDE.finditer(data)]
            found = [_resolve(n, [os.path.dirname(file), *dirs], top) for n in names]
            seen[file] = (len(data), [f for f in found if f], len(_MACRO_INCLUDE.findall(data)))
        return seen.get(file, (0, [], 0))

    def macros(file: str, visiting: set) -> int:
        if file in visiting:
            return 0
        visiting.add(file)
        _, includes, n = read(file)
        return n + sum(macros(f, visiting) for f in includes)

    total, last = 0, None
    unit = os.path.abspath(path)
    for file in read(unit)[1]:
        if file.endswith(".c"):
            last = file
        elif last is not None:
            total += read(last)[0] * macros(file, set())
    stack = [unit]
    counted = set()
    while stack:
        file = stack.pop()
        if file not in counted:
            counted.add(file)
            size, includes, _ = read(file)
            total += size
            stack.extend(includes)
    return total


def _resolve(name: str, dirs: list, top: str) -> str | None:
    for d in dirs:
        candidate = os.path.normpath(os.path.join(d, name))
        if candidate.startswith(top) and os.path.isfile(candidate):
            return candidate
    return None


def merged(parts: list[Part], records: dict, fixed: bool = False) -> UnitResult:
    """The unit's result from its shards' parts and the final records: what the whole-unit
    check gives (engine._check), statistics summed over the jobs."""
    base = parts[0].result
    result = UnitResult(base.file, includes=list(base.includes), comments=base.comments,
                        definitions=base.definitions)
    result.errors = list(base.errors)
    findings = []
    counts = {"skipped": 0, "shared": 0, "analysed": 0, "proved": 0, "cached": 0}
    exports: dict = {}
    visible = set()
    for i in sorted(records):
        r = records[i]
        findings.extend(r.findings)
        result.errors.extend(r.errors)
        result.functions += r.functions
        for k, n in r.counts:
            counts[k] = counts.get(k, 0) + n
        learn(exports, r.name, r.summary)
        if r.visible:
            visible.add(r.name)
    result.findings = merge_findings(findings)
    result.counts = {k: n for k, n in counts.items() if n or k != "cached"}
    result.exports = {n: e for n, s in exports.items() if n in visible and (e := exported(s)).says_something}
    for p in parts:  # the function-pointer slots a part's walk saw (vtables.exports): the whole unit's
        result.exports.update(p.result.exports)
    # A fixup job (the last part) knows which of the shards' checks the whole-unit order keeps.
    result.imported = (parts[-1].result.imported if fixed
                       else tuple(sorted({u for p in parts for u in p.result.imported})))
    for p in parts:
        for stage, seconds in p.result.timings.items():
            result.timings[stage] = result.timings.get(stage, 0.0) + seconds
        result.notes.extend(n for n in p.result.notes if n not in result.notes)
    if any(p.partial for p in parts) and result.functions:
        hint = next((e.hint for e in result.errors if e.hint), "")
        result.errors.append(ToolError(base.file, f"{result.functions} function(s) checked on a partial parse; "
                                                  "findings may be incomplete", severity="warning", hint=hint))
    return result


def failed(display: str, shard: Shard | None, results: list[UnitResult]) -> UnitResult:
    """A unit one of whose shard (or fixup) jobs failed: its errors, said to be this unit's, and
    nothing else (a part of a unit's findings would read as the whole)."""
    what = "the fixup job" if shard is None else f"shard {shard.number + 1} of {shard.count}"
    errors = []
    for r in results:
        for e in r.errors:
            errors.append(replace(e, message=f"{e.message} ({what} of this unit, checked in parts; "
                                             "no finding of it is reported)"))
    return UnitResult(display, errors=errors or [ToolError(display, f"not checked: {what} failed")])


def start_table(job, options) -> dict:
    """The summaries a job's check starts with (pool.run sets job.summaries as it starts)."""
    if job.summaries is not None:
        return job.summaries
    own = job.options if job.options is not None else options
    return own.summaries or {}


class Assembly:
    """The parent's side of sharded units: their parts as they come in, a fixup job where the
    shards' records differ from the whole-unit order, and one outcome per unit at the end."""

    def __init__(self, pending, options, function_cache: str | None) -> None:
        """`pending`: the pool's job queue (a fixup job joins it); `options`: the run's."""
        self.pending, self.options, self.function_cache = pending, options, function_cache
        self.parts: dict[int, list] = {}
        self.started: set[int] = set()  # units whose first shard a worker took

    def starter(self, progress):
        """The pool's `started`: a unit's first shard starts it on the progress line."""
        def started(job) -> None:
            if job.shard is None or job.index not in self.started:
                self.started.add(job.index)
                progress.start(job)
        return started

    def take(self, outcome):
        """The unit's outcome once all its parts are in; the outcome itself for a whole unit;
        None while parts are missing or its fixup runs."""
        job = outcome.job
        if job.shard is None:
            return outcome
        got = self.parts.setdefault(job.index, [])
        got.append(outcome)
        if isinstance(job.shard, Fixup):
            return self._done(got)
        if len(got) < job.shard.count:
            return None
        if any(o.part is None for o in got):
            return self._done(got)
        lead = next((o for o in got if o.part.fixed is not None), None)
        if lead is not None:  # its lead ran the fixup (or found none needed): no round trip
            fixed = lead.part.fixed
            return self._done(got if fixed.part is None else got + [replace(
                lead, job=replace(lead.job, shard=Fixup({})), part=fixed.part, cpu=fixed.cpu, began=fixed.began,
                ended=fixed.ended, waited=())])
        records = {i: r for o in got for i, r in o.part.records.items()}
        start = start_table(job, self.options)
        if not needs_fixup(records, start):
            return self._done(got)
        fixup = Fixup.over([o.part for o in got])
        # To the worker that kept its parse (engine._held): a shared parse's lead, else the last.
        keeper = next((o.worker for o in got if job.shard.shared and o.job.shard.number == 0), outcome.worker)
        self.pending.appendleft(replace(job, shard=fixup, summaries=start, worker=keeper))
        return None

    def _done(self, got: list):
        """The unit's pool.Outcome, made from its first part's."""
        job = replace(got[0].job, shard=None, worker=0)
        self.parts.pop(job.index, None)
        # Shard order, the fixup last: the first part's unit-level result is the merge's base.
        got = sorted(got, key=lambda o: o.job.shard.number if isinstance(o.job.shard, Shard) else len(got))
        bad = next((o for o in got if o.part is None), None)
        if bad is not None:
            shard = bad.job.shard if isinstance(bad.job.shard, Shard) else None
            return replace(got[0], job=job, result=failed(job.display, shard, [bad.result]), cacheable=False,
                           hashes=None, part=None)
        records = {i: r for o in got for i, r in o.part.records.items()}  # the fixup's come last
        parts = [o.part for o in got]
        result = merged(parts, records, isinstance(got[-1].job.shard, Fixup))
        entries = {k: v for p in parts for k, v in p.entries.items()}
        if self.function_cache is not None:
            self._measured(job.path, [o.part for o in got if isinstance(o.job.shard, Shard)], result)
        if entries and self.function_cache is not None:
            from refcheck.caches.fncache import UNWRITABLE_TABLE, write_table

            problem = write_table(self.function_cache, job.path, job.key, entries)
            if problem:
                result.notes.append(f"{UNWRITABLE_TABLE}{problem}")
        return replace(got[0], job=job, result=result, cacheable=all(o.cacheable for o in got), part=None)

    def _measured(self, path: str, parts: list, result) -> None:
        """Keeps what each definition's round-1 check cost (the fixup's re-checks are extra
        work that another split may not need) for the next run's split of this unit."""
        from refcheck.caches.costs import write_costs

        costs = {identity(r.name, r.place): r.seconds for p in parts for r in p.records.values()}
        problem = write_costs(self.function_cache, path, costs)
        if problem:
            result.notes.append(f"could not keep the definitions' costs: {problem}")
