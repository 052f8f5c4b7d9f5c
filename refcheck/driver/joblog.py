"""The job log (REFCHECK_JOB_LOG): one JSON line per job the pool ran (worker pid, unit, shard, CPU
seconds, and when it started and ended by time.monotonic), and one per pool event (when the pool
began forking its workers, when its last outcome was taken, when its workers were gone): what
benchmarks/jscaling.py computes a schedule's makespan from, free of the load, with each worker's
idle time and the spans before the first job and after the last. time.monotonic is one clock for
every process on the machine, so the benchmark's own launch and exit times compare with these."""

from __future__ import annotations

import os

JOB_LOG = "REFCHECK_JOB_LOG"


def _write(line: dict) -> None:
    path = os.environ.get(JOB_LOG)
    if not path:
        return
    import json  # only where the log is asked for: the workers fork from the parent

    try:
        with open(path, "a") as f:
            f.write(json.dumps(line) + "\n")
    except OSError:
        pass


def job(outcome, helper_slot: int = 0) -> None:
    """One finished job (a pool.Outcome); a lead that ran its unit's fixup (shards.Fixed), as two:
    its shard up to the fixup, and the fixup; and a third where a helper checked part of the
    fixup's second round (fixsplit.py), against `helper_slot`, the worker whose slot it used."""
    if not os.environ.get(JOB_LOG):
        return
    shard = outcome.job.shard
    what = None if shard is None else getattr(shard, "number", "fixup")
    fixed = getattr(outcome.part, "fixed", None)
    line = {"worker": outcome.worker, "unit": outcome.job.display, "shard": what, "cpu": round(outcome.cpu, 4),
            "start": round(outcome.began, 4), "end": round(outcome.ended, 4),
            "waited": [round(t, 4) for t in outcome.waited],
            "definitions": len(getattr(outcome.part, "records", ())),
            "stolen": list(getattr(outcome.part, "stolen", (0, 0.0)))}
    if fixed is None or fixed.part is None:
        _write(line)
        return
    _write(dict(line, cpu=round(outcome.cpu - fixed.cpu, 4), end=round(fixed.began, 4)))
    # The fixup's line ends with the job (its result's way to the parent included).
    _write(dict(line, shard="fixup", cpu=round(fixed.cpu, 4), start=round(fixed.began, 4), waited=[],
                definitions=len(fixed.part.records), stolen=[0, 0.0]))
    helper = fixed.helper
    if helper is not None:
        _write(dict(line, worker=helper_slot or outcome.worker, shard="fixup-helper", cpu=round(helper.cpu, 4),
                    start=round(helper.began, 4), end=round(helper.ended, 4), waited=[], definitions=0,
                    stolen=[0, 0.0]))


def event(name: str, at: float) -> None:
    """A pool event (`name`: start, drained, end) at `at` (time.monotonic)."""
    _write({"event": name, "at": round(at, 4)})
