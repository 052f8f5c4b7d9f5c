"""When a split unit's shards run (issue 30, -j2 wall time): the lead parses at once and waits for
the summaries of the units ahead of it (shards.Shard.early), and the shards of a shared parse take
each other's groups at the end (driver/stealing.py). Neither changes a finding."""

from __future__ import annotations

import json
import os
import time
from types import SimpleNamespace

import pytest

from cli_helpers import jobs as read_jobs
from refcheck.driver import engine, forking, shards, stealing

pytestmark = pytest.mark.skipif(not forking.available(), reason="no os.fork")

# The callee's summary (it hands out what it allocates, though its name does not say so) is
# inferred in its own unit; the caller in the big unit leaks through it (RC001) only with it.
CALLEE = ("#include <stdlib.h>\n"
          "char *pkg_buffer(size_t n)\n{\n  char *p = malloc(n);\n  if (!p)\n    return NULL;\n"
          "  p[0] = 0;\n  return p;\n}\n")
CALLER = ("#include <stdlib.h>\nchar *pkg_buffer(size_t n);\n"
          "int user(size_t n)\n{\n  char *b = pkg_buffer(n);\n  if (n > 10)\n    return -1;\n"
          "  free(b);\n  return 0;\n}\n")
MORE = ("static int twice(int x)\n{\n  return 2 * x;\n}\n"
        "void clean(size_t n)\n{\n  char *q = malloc(n);\n  free(q);\n}\n"
        "void leaky(size_t n)\n{\n  char *q = malloc(n);\n  if (n)\n    return;\n  free(q);\n}\n"
        "void other(size_t n)\n{\n  char *q = malloc(n);\n  if (!q)\n    return;\n  free(q);\n}\n")
# Bytes that make the caller's unit the run's big one (sharding weighs units by bytes).
PADDING = "/* " + "x" * 4000 + " */\n"






def _findings(project, *args):
    r = project.run("check", "--format", "json", "--no-cache", *args)
    data = json.loads(r.out)
    return r.code, sorted((f["file"], f["rule"], f["line"], f["message"]) for f in data["findings"]), data["errors"]


def test_an_early_lead_waits_for_the_summaries_of_the_units_ahead(project, sharding, monkeypatch):
    """The lead of big.c starts while alib.c is still checked (slowed down here), parses, and waits
    for alib.c's summary before it checks anything: the leak through it is found in the run's
    first check of big.c, as at -j1 (no second check of the unit: phase 2 is not needed). The run's
    order is the names': alib.c is ahead of big.c."""
    project.write("alib.c", CALLEE)
    project.write("big.c", PADDING + CALLER + MORE)
    whole = _findings(project, "-j", "1", "alib.c", "big.c")
    assert ("big.c", "RC001") in [f[:2] for f in whole[1]], whole
    read_jobs(sharding)
    real = engine.check_unit

    def slow_lib(path, settings):
        if path.endswith("alib.c"):
            time.sleep(1.5)
        return real(path, settings)

    monkeypatch.setattr(engine, "check_unit", slow_lib)
    assert _findings(project, "-j", "2", "alib.c", "big.c") == whole
    jobs = read_jobs(sharding)
    lib = next(j for j in jobs if j["unit"] == "alib.c")
    leads = [j for j in jobs if j["unit"] == "big.c" and j["shard"] == 0]
    assert len(leads) == 1, jobs  # checked once: its first check had alib.c's summary
    (lead,) = leads
    assert lead["start"] < lib["start"] + 0.5  # started at once, beside alib.c
    assert lead["waited"] and lead["waited"][1] >= lib["end"] - 0.05, (lead, lib)
    # The shards ran after the wait, in both workers' slots.
    child = next(j for j in jobs if j["unit"] == "big.c" and j["shard"] == 1)
    assert child["start"] >= lead["waited"][1] and child["worker"] != lead["worker"]


def test_an_early_lead_whose_worker_died_idle_still_waits(project, sharding, monkeypatch):
    """The worker given the early lead turns out dead (its pipe refuses the job): the next worker
    takes the lead first, and it still waits for alib.c's summary."""
    from refcheck.driver import pool

    project.write("alib.c", CALLEE)
    project.write("big.c", PADDING + CALLER + MORE)
    whole = _findings(project, "-j", "1", "alib.c", "big.c")
    read_jobs(sharding)
    real_start, real_check = pool._start, engine.check_unit
    refused = []

    def start(w, job, pending):
        if pool._leads(job) and not refused:
            refused.append(job)
            return False
        return real_start(w, job, pending)

    def slow_lib(path, settings):
        if path.endswith("alib.c"):
            time.sleep(1.5)
        return real_check(path, settings)

    monkeypatch.setattr(pool, "_start", start)
    monkeypatch.setattr(engine, "check_unit", slow_lib)
    assert _findings(project, "-j", "2", "alib.c", "big.c") == whole
    jobs = read_jobs(sharding)
    lib = next(j for j in jobs if j["unit"] == "alib.c")
    (lead,) = [j for j in jobs if j["unit"] == "big.c" and j["shard"] == 0]
    assert refused and lead["start"] < lib["start"] + 0.5
    assert lead["waited"][1] >= lib["end"] - 0.05, (lead, lib)


def test_an_early_leads_wait_is_not_its_units_time(project, sharding, monkeypatch):
    """The unit ahead runs past --timeout (and is killed for it); the lead waited for it all that
    time, which is not big.c's time: big.c is checked, not timed out."""
    project.write("alib.c", CALLEE)
    project.write("big.c", PADDING + CALLER + MORE)
    real = engine.check_unit

    def hangs(path, settings):
        if path.endswith("alib.c"):
            time.sleep(60)
        return real(path, settings)

    monkeypatch.setattr(engine, "check_unit", hangs)
    code, found, errors = _findings(project, "-j", "2", "--timeout", "2", "alib.c", "big.c")
    assert [(e["file"], "took longer than 2 s" in e["message"]) for e in errors] == [("alib.c", True)], errors
    assert ("big.c", "RC001") in [f[:2] for f in found]  # its own leaks (`leaky`), checked in shards
    jobs = read_jobs(sharding)
    (lead,) = [j for j in jobs if j["unit"] == "big.c" and j["shard"] == 0]
    # It waited for seconds of the unit's 2 s: the lead starts after the unit ahead, by up to a
    # second on a loaded machine (1.498 s measured at load 15 against an earlier bound of 1.5).
    assert lead["waited"][1] - lead["waited"][0] >= 1.0, lead


def test_a_lead_does_not_start_early_behind_much_work():
    def job(i):
        return SimpleNamespace(index=i)

    jobs = [job(0), job(1), job(2)]
    # 1: split; the work ahead of it (unit 0) against its own, per other worker.
    assert shards._early(jobs, {0: 10.0, 1: 100.0, 2: 5.0}, {1: 2}, 2) == 1
    assert shards._early(jobs, {0: 40.0, 1: 100.0, 2: 5.0}, {1: 2}, 2) is None
    assert shards._early(jobs, {0: 40.0, 1: 100.0, 2: 5.0}, {1: 2}, 3) == 1  # two workers for it
    assert shards._early(jobs, {0: 1.0, 1: 1.0, 2: 1.0}, {}, 2) is None


def test_a_late_childs_groups_are_taken_by_the_lead(project, sharding, monkeypatch):
    """The child gets its slot late (slowed down here): the lead, done with its own groups,
    checks the child's too; the child finds them all taken and sends an empty part. The result is
    the whole unit's."""
    project.write("big.c", CALLEE + PADDING + CALLER + MORE)
    whole = _findings(project, "-j", "1", "big.c")
    read_jobs(sharding)
    real_wait = forking.Lender.wait

    def late(self):
        time.sleep(2)
        real_wait(self)

    monkeypatch.setattr(forking.Lender, "wait", late)
    assert _findings(project, "-j", "2", "big.c") == whole
    jobs = read_jobs(sharding)
    lead = next(j for j in jobs if j["shard"] == 0)
    child = next(j for j in jobs if j["shard"] == 1)
    assert child["definitions"] == 0 and lead["definitions"] == 6, jobs
    assert lead["stolen"][0] >= 1 and lead["stolen"][1] > 0 and child["stolen"] == [0, 0.0]


def test_claims_are_shared_and_stolen_from_the_end():
    plan = stealing.layout(["a", "b", "a", "c", "d"], [0, 1, 0, 1, 1], [0, 1, 2, 3, 4])
    assert plan.groups == ((0, 2), (1,), (3,), (4,)) and plan.owner == (0, 1, 1, 1)
    assert plan.share(0) == [0, 2] and plan.share(1) == [1, 3, 4]
    claims = stealing.Claims.make(plan)
    assert claims is not None
    assert claims.claim(1, 1)  # shard 1 starts on its first group
    pid = os.fork()
    if pid == 0:  # another shard: sees the claim, takes the latest group left
        code = 0 if (not claims.claim(1, 0) and claims.steal(0) == 3) else 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    assert not claims.claim(3, 1)  # taken in the other process
    assert claims.claim(2, 1)
    assert claims.steal(0) is None  # nothing of shard 1's left; its own group 0 is not stealing
    assert claims.claim(0, 0)


def test_stealing_checks_own_groups_then_the_others(monkeypatch):
    plan = stealing.layout(["a", "b", "c", "d"], [0, 0, 1, 1], [0, 1, 2, 3])
    claims = stealing.Claims(plan)
    assert claims.claim(2, 1)  # shard 1 checks its first group; its second is left

    class Unit:
        def __init__(self):
            self.seen = []

        def definition(self, i, plan, table):
            self.seen.append((i, plan))

    unit = Unit()
    done = stealing.check(unit, "own", None, claims, 0, lambda group: f"plan{group}")
    assert done == ([0, 1, 3], [3])
    assert unit.seen == [(0, "own"), (1, "own"), (3, "plan[3]")]
