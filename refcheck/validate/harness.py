"""One validation run: discover sites, make mutants, ask both witnesses, assemble the report."""

from __future__ import annotations

import os
import random
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from refcheck.validate import mutants as mutation
from refcheck.validate.layout import Runtime
from refcheck.validate.sites import KINDS, discover


class ValidateError(Exception):
    """A problem the user can fix (no runtime there, unknown kind); shown as one line, exit 2."""


@dataclass
class Options:
    root: str  # the folder holding runtime/ (and tests/runtime/)
    kinds: list[str] = field(default_factory=lambda: list(KINDS))
    sample: int | None = None
    seed: int = 0
    static_only: bool = False
    # Run the (slow) dynamic check on a seeded subset of the mutants only; None: all of them.
    dynamic_sample: int | None = None
    jobs: int = 1
    command: str = ""
    # Only mutants in files under this path (relative to root, e.g. runtime/THC); None: all.
    under: str | None = None


def select(mutants: list, sample: int | None, seed: int) -> list:
    """A seeded random subset, in the original order so that reports stay comparable."""
    if sample is None or sample >= len(mutants):
        return mutants
    chosen = set(random.Random(seed).sample(range(len(mutants)), sample))
    return [m for i, m in enumerate(mutants) if i in chosen]


# Each static worker process holds its own copy of the runtime to write mutants into.
_checker = None


def _init_static(root: str, unit_of: dict[str, str], workdir: str) -> None:
    from refcheck.validate.static import StaticChecker

    global _checker
    _checker = StaticChecker(Runtime(root), tempfile.mkdtemp(dir=workdir), unit_of)


def _static_one(args):
    mutant, sources, original_names = args
    return mutant.id, _checker.check(mutant, sources, original_names)


def _run_dynamic(runtime, workdir, pairs, sources, options, dynamic, progress) -> str:
    """Each witness on the mutants it applies to (TH: ASan + counters on the CPU; THC: the GPU tests
    under compute-sanitizer), each sampled on its own with --dynamic-sample. A witness that cannot
    start here leaves its mutants "skipped" with the reason; returns the notes for the summary."""
    from refcheck.validate.dynamic import DynamicChecker, DynamicError
    from refcheck.validate.thc_dynamic import THCDynamicChecker

    notes = []
    for kind, name in ((DynamicChecker, ""), (THCDynamicChecker, "THC ")):
        runnable = [m for m, _ in pairs if kind.applies(m)]
        if not runnable:
            continue
        try:
            chosen = select(runnable, options.dynamic_sample, options.seed)
            if kind is THCDynamicChecker:
                checker = kind(runtime, workdir, progress, jobs=options.jobs)
                checker.prepare(chosen, sources)
            else:
                checker = kind(runtime, workdir, progress)
            for m in chosen:
                dynamic[m.id] = checker.check(m, sources)
                if progress:
                    progress(f"dynamic {m.id}: {dynamic[m.id][0]} {dynamic[m.id][1]}")
        except DynamicError as e:
            notes.append(f"{name}not run: {e}")
            for m in runnable:
                dynamic.setdefault(m.id, ("skipped", f"{name}dynamic check not run: {str(e).splitlines()[0]}"))
    return "; ".join(notes)


def run(options: Options, progress=None) -> dict:
    from refcheck.validate import report

    runtime = Runtime(os.path.abspath(options.root))
    if not os.path.isdir(runtime.runtime_dir) or not runtime.units():
        raise ValidateError(f"{runtime.runtime_dir}: no runtime sources (expected runtime/TH/*.c)")
    unknown = sorted(set(options.kinds) - set(KINDS))
    if unknown:
        raise ValidateError(f"unknown mutation kind(s) {', '.join(unknown)} (known: {', '.join(KINDS)})")
    found = discover(runtime)
    sites = [s for s in found.sites if s.kind in options.kinds]
    sources = mutation.read_sources(runtime, found.sites)
    made = [(mutation.make(s, sources), s) for s in sites]
    if options.under:
        prefix = options.under.strip("/") + "/"
        made = [(m, s) for m, s in made if m.file.startswith(prefix)]
        if not made:
            raise ValidateError(f"no mutant in a file under {options.under}")
    pairs = select(made, options.sample, options.seed)
    work = [(m, sources, set(s.function.instantiations)) for m, s in pairs]

    results = {}
    with tempfile.TemporaryDirectory(prefix="refcheck-validate-") as workdir:
        if options.jobs > 1 and len(work) > 1:
            with ProcessPoolExecutor(options.jobs, initializer=_init_static,
                                     initargs=(runtime.root, found.unit_of, workdir)) as pool:
                for mid, res in pool.map(_static_one, work):
                    results[mid] = res
                    if progress:
                        progress(f"static {mid}: {'detected' if res.detected else 'MISSED'}")
        else:
            _init_static(runtime.root, found.unit_of, workdir)
            for item in work:
                mid, res = _static_one(item)
                results[mid] = res
                if progress:
                    progress(f"static {mid}: {'detected' if res.detected else 'MISSED'}")

        dynamic: dict[str, tuple[str, str]] = {}
        note = "not run (--static-only)" if options.static_only else ""
        if not options.static_only:
            note = _run_dynamic(runtime, workdir, pairs, sources, options, dynamic, progress)

    records = []
    for m, _ in pairs:
        st = results[m.id]
        verdict, evidence = dynamic.get(m.id, ("skipped", ""))
        records.append({
            "id": m.id, "file": m.file, "function": m.function, "kind": m.kind,
            "expected_rule": m.expected[0], "accepted_rules": m.expected,
            "static_detected": st.detected, "rules_reported": st.rules_reported,
            "dynamic": verdict, "dynamic_evidence": evidence,
            "line": m.line, "unit": st.unit, "instantiations": m.instantiations,
            "tool_errors": st.errors, "diff": m.diff(sources),
        })
    meta = {"command": options.command, "kinds": list(options.kinds), "sample": options.sample,
            "seed": options.seed, "dynamic_sample": options.dynamic_sample, "units": found.units,
            "sites": len(found.sites)}
    if note:
        meta["dynamic_note"] = note
    return {"mutants": records, "summary": report.summarize(records, found.skipped, meta)}
