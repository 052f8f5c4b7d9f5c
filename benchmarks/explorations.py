"""The analysis' explorations alone, recorded once and replayed in one process: the measure of a
change to the analysis (refcheck/analysis) on a loaded machine, as instruction counts.

    python benchmarks/explorations.py capture OUT.pkl -- check lib/TH/THTensor.c -j 1 --no-cache ...
    python benchmarks/explorations.py replay OUT.pkl [--rounds 3] [--every 3] [--profile]
    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no \\
        python benchmarks/explorations.py replay OUT.pkl --rounds 1 --every 3   # and --rounds 0

`capture` runs `refcheck ARGS` (the worker is forked, so it records too) with `explore()` wrapped:
each call's graph, conventions and options are pickled as it starts. `replay` unpickles them (every
`--every`-th), explores each again per round and prints the CPU, the states, the findings and a
digest over every result (states, findings, summaries): two checkouts that explore alike print the
same digest. Under cachegrind, a run with `--rounds 0` is the unpickling alone, to subtract; fix
`PYTHONHASHSEED` (set orders change the count by about 1%). A pickle is read by the checkout whose
classes wrote it, or by one whose IR and conventions classes are the same.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import sys
import time

sys.setrecursionlimit(100_000)  # the graphs and conventions pickle deep


def capture(out: str, args: list[str]) -> int:
    import refcheck.analysis as analysis
    from refcheck.commands import cli

    real = analysis.explore
    sink = open(out, "ab")

    def recording(cfg, conv, rules, max_states=50_000, seconds=10.0, **kw):
        options = {k: v for k, v in kw.items() if k != "observe"}
        memo, cfg.graph._memo = cfg.graph._memo, {}  # the graph's own caches: remade on replay
        try:
            pickle.dump((cfg, conv, max_states, seconds, options), sink, protocol=5)
            sink.flush()
        finally:
            cfg.graph._memo = memo
        return real(cfg, conv, rules, max_states, seconds, **kw)

    analysis.explore = recording
    try:
        return cli.main(args)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 1


def _load(path: str, every: int) -> list:
    calls = []
    with open(path, "rb") as f:
        while True:
            try:
                calls.append(pickle.load(f))
            except EOFError:
                return calls[::every]


def _round(calls: list) -> tuple[int, int, str, str]:
    """States, findings, a digest over every result and one over the verdicts alone (findings,
    summaries, whether complete: what a change that explores other states must keep)."""
    from refcheck.analysis.explore import explore
    from refcheck.rules import RULES

    digest = hashlib.sha256()
    verdicts = hashlib.sha256()
    states = findings = 0
    for cfg, conv, max_states, _, options in calls:
        cfg.graph._memo.clear()
        r = explore(cfg, conv, RULES.values(), max_states, 1000.0, **options)
        states += r.states
        findings += len(r.findings)
        digest.update(repr((cfg.name, r.states, r.incomplete, [repr(x) for x in r.findings],
                            repr(r.summary))).encode())
        verdicts.update(repr((cfg.name, r.incomplete, [repr(x) for x in r.findings], repr(r.summary))).encode())
    return states, findings, digest.hexdigest()[:16], verdicts.hexdigest()[:16]


def replay(path: str, rounds: int, every: int, profile: bool) -> int:
    import gc

    calls = _load(path, every)
    gc.freeze()  # the graphs live for the run, as a unit's do in the worker
    if profile:
        import cProfile
        import pstats
        p = cProfile.Profile()
        print(p.runcall(_round, calls))
        pstats.Stats(p).sort_stats("tottime").print_stats(40)
        return 0
    best = None
    for _ in range(rounds):
        start = time.process_time()
        states, findings, digest, verdicts = _round(calls)
        cpu = time.process_time() - start
        best = cpu if best is None else min(best, cpu)
        print(f"{len(calls)} explorations, {states} states, {findings} findings, digest {digest}, "
              f"verdicts {verdicts}, cpu {cpu:.3f} s", flush=True)
    if best is not None:
        print(f"best {best:.3f} s")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["capture"]:
        if len(argv) < 4 or argv[2] != "--":
            print("usage: explorations.py capture OUT.pkl -- REFCHECK_ARGS...", file=sys.stderr)
            return 2
        return capture(argv[1], argv[3:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["replay"])
    ap.add_argument("pickle")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds (0: only unpickle)")
    ap.add_argument("--every", type=int, default=1, help="replay every N-th recorded exploration")
    ap.add_argument("--profile", action="store_true", help="one round under cProfile")
    args = ap.parse_args(argv)
    return replay(args.pickle, args.rounds, args.every, args.profile)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
