"""How a split unit's run ends (issue 30, -j2 wall time): a shared parse's lead runs the unit's
fixup itself, on its parse, once its children's records are in (leading.fixed), instead of the
parent sending it back as a job; where that fails the parent's fixup job still runs. Neither
changes a finding. The job log says when the pool began and ended (benchmarks/jscaling.py)."""

from __future__ import annotations

import json

import pytest

from cli_helpers import events as read_events
from cli_helpers import jobs as read_jobs
from refcheck.driver import engine, forking, splitting

pytestmark = pytest.mark.skipif(not forking.available(), reason="no os.fork")

# The callee's summary (it hands out what it allocates, though its name does not say so) reaches
# the caller only from the other shard: the fixup checks the caller again (RC001 through it).
CALLEE = ("#include <stdlib.h>\n"
          "char *pkg_buffer(size_t n)\n{\n  char *p = malloc(n);\n  if (!p)\n    return NULL;\n"
          "  p[0] = 0;\n  return p;\n}\n")
CALLER = ("int user(size_t n)\n{\n  char *b = pkg_buffer(n);\n  if (n > 10)\n    return -1;\n"
          "  free(b);\n  return 0;\n}\n")


def _findings(project, *args):
    r = project.run("check", "--format", "json", "--no-cache", *args)
    data = json.loads(r.out)
    return r.code, sorted((f["file"], f["rule"], f["line"], f["message"]) for f in data["findings"]), data["errors"]


@pytest.fixture
def kinds(monkeypatch, tmp_path):
    """The kind of every job a worker ran (Shard, Fixup, NoneType), as a list read afterwards."""
    seen = tmp_path / "kinds"
    real = engine.check_unit

    def spy(path, settings):
        with open(seen, "a") as f:
            f.write(type(settings.shard).__name__ + "\n")
        return real(path, settings)

    monkeypatch.setattr(engine, "check_unit", spy)
    return lambda: seen.read_text().split() if seen.exists() else []


def test_the_lead_runs_the_fixup_on_its_parse(project, sharding, kinds):
    project.write("one.c", CALLEE + CALLER)
    whole = _findings(project, "-j", "1", "one.c")
    assert ("one.c", "RC001") in [f[:2] for f in whole[1]], whole
    read_jobs(sharding)
    assert _findings(project, "-j", "2", "one.c") == whole
    jobs = read_jobs(sharding)
    lead = next(j for j in jobs if j["shard"] == 0)
    (fixup,) = [j for j in jobs if j["shard"] == "fixup"]
    # In the lead's job, right after its share: no job of its own reached a worker.
    assert fixup["worker"] == lead["worker"] and fixup["start"] == lead["end"], jobs
    assert fixup["definitions"] >= 1 and fixup["cpu"] > 0
    assert "Fixup" not in kinds(), kinds()


def test_a_fixup_that_fails_in_the_lead_is_sent_as_a_job(project, sharding, kinds, monkeypatch):
    """The fixup raises in the lead (once per process): the parent sends it as a job to the same
    worker, as without the lead's, and the findings are the whole unit's."""
    project.write("one.c", CALLEE + CALLER)
    whole = _findings(project, "-j", "1", "one.c")
    read_jobs(sharding)
    real = splitting.fixup
    calls = []

    def flaky(*args):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("lost")
        return real(*args)

    monkeypatch.setattr(splitting, "fixup", flaky)
    assert _findings(project, "-j", "2", "one.c") == whole
    jobs = read_jobs(sharding)
    lead = next(j for j in jobs if j["shard"] == 0)
    (fixup,) = [j for j in jobs if j["shard"] == "fixup"]
    assert fixup["worker"] == lead["worker"] and fixup["start"] > lead["end"], jobs
    assert kinds().count("Fixup") == 1, kinds()


def test_the_job_log_says_when_the_pool_began_and_ended(project, sharding):
    project.write("one.c", CALLEE + CALLER)
    assert _findings(project, "-j", "2", "one.c")[0] == 1
    events = read_events(sharding)
    jobs = read_jobs(sharding)
    assert set(events) == {"start", "drained", "end"}, events
    assert events["start"] <= min(j["start"] for j in jobs)
    assert max(j["end"] for j in jobs) <= events["drained"] <= events["end"]


def test_shards_that_follow_the_whole_unit_order_need_no_fixup(project, sharding, kinds):
    """Definitions that use nothing of each other: the lead's fixup checks nothing again and the
    parent merges the shards' records as they are (no fixup in the job log, none sent)."""
    project.write("one.c", "#include <stdlib.h>\n" + "".join(
        f"void leak{k}(size_t n)\n{{\n  char *q = malloc(n);\n  if (n)\n    return;\n  free(q);\n}}\n"
        for k in range(4)))
    whole = _findings(project, "-j", "1", "one.c")
    assert len(whole[1]) == 4, whole
    read_jobs(sharding)
    assert _findings(project, "-j", "2", "one.c") == whole
    jobs = read_jobs(sharding)
    assert sorted(str(j["shard"]) for j in jobs) == ["0", "1"], jobs
    assert "Fixup" not in kinds()


def test_the_benchmark_splits_the_wall_time_outside_the_jobs(monkeypatch):
    """benchmarks/jscaling.py: the spans before, between and after the jobs from the pool's events
    and its own launch and exit; the fixup's span and its gap after the unit's shards, and its
    helper's span."""
    import os
    import sys

    monkeypatch.syspath_prepend(os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
    sys.modules.pop("jscaling", None)
    import jscaling

    entries = [{"unit": "u.c", "shard": 0, "start": 10.5, "end": 14.0},
               {"unit": "u.c", "shard": 1, "start": 11.0, "end": 13.9},
               {"unit": "u.c", "shard": "fixup", "start": 14.1, "end": 14.4}]
    events = [("start", 10.4), ("drained", 14.45), ("end", 14.5)]
    got = jscaling.phases(10.0, 14.6, 10.5, 14.4, events, entries)
    assert got == {"pre": 0.4, "lead_in": 0.1, "span": 3.9, "tail": 0.05, "shutdown": 0.05, "post": 0.1,
                   "fixup": 0.3, "fixup_gap": 0.1, "fixup_helper": 0.0}
    # A helper that checked part of the fixup's second round in the other worker (fixsplit.py).
    helped = entries + [{"unit": "u.c", "shard": "fixup-helper", "start": 14.2, "end": 14.35}]
    assert jscaling.phases(10.0, 14.6, 10.5, 14.4, events, helped)["fixup_helper"] == 0.15
    # A tree without the events (an older base): the jobs' own start and end stand in.
    assert jscaling.phases(10.0, 14.6, 10.5, 14.4, [], entries[:2])["pre"] == 0.5


def test_the_childrens_slots_go_back_before_the_leads_fixup(project, sharding, monkeypatch):
    """a.c is split; the other worker is busy (b.c, slowed down) when the lead forks, so its slot
    goes to the child after b.c, with c.c still queued. Once the child is done the lead gives its
    slot back before its fixup (slowed down here): c.c starts during the fixup, not after the
    lead's job. The findings are -j1's."""
    import time

    project.write("0.c", "int zero(void)\n{\n  return 0;\n}\n")
    project.write("a.c", CALLEE + "/* " + "x" * 20000 + " */\n" + CALLER)
    project.write("b.c", "int bee(void)\n{\n  return 1;\n}\n")
    project.write("c.c", "int sea(void)\n{\n  return 2;\n}\n")
    units = ("0.c", "a.c", "b.c", "c.c")
    whole = _findings(project, "-j", "1", *units)
    read_jobs(sharding)
    real_check, real_fixup = engine.check_unit, splitting.fixup

    def slow_units(path, settings):
        if path.endswith(("0.c", "b.c")):
            time.sleep(1.0)
        return real_check(path, settings)

    def slow_fixup(*args):
        time.sleep(1.0)
        return real_fixup(*args)

    monkeypatch.setattr(engine, "check_unit", slow_units)
    monkeypatch.setattr(splitting, "fixup", slow_fixup)
    assert _findings(project, "-j", "2", *units) == whole
    jobs = read_jobs(sharding)
    (fixup,) = [j for j in jobs if j["shard"] == "fixup"]
    child = next(j for j in jobs if j["shard"] == 1)
    sea = next(j for j in jobs if j["unit"] == "c.c")
    lead = next(j for j in jobs if j["shard"] == 0)
    assert sea["worker"] == child["worker"] != lead["worker"], jobs
    assert child["end"] <= sea["start"] < fixup["end"] - 0.5, jobs
