"""Function-level sharding (refcheck/driver/shards.py): a big unit checked by two workers gives
what one worker gives it (findings, statistics, cache entries), summaries cross the shards, and a
failing shard is one clear tool error for its unit."""

from __future__ import annotations

import json
import os

import pytest

from refcheck.caches import costs
from cli_helpers import jobs as read_jobs
from refcheck.driver import engine, shards
from refcheck.findings import Location

# The callee hands out what it allocates though its name does not say so (an inferred summary,
# and RC004 on it); the caller leaks it (RC001, only through that summary). Two definitions, two
# shards: each in its own.
CALLEE = ("#include <stdlib.h>\n"
          "char *pkg_buffer(size_t n)\n{\n  char *p = malloc(n);\n  if (!p)\n    return NULL;\n"
          "  p[0] = 0;\n  return p;\n}\n")
CALLER = ("int user(size_t n)\n{\n  char *b = pkg_buffer(n);\n  if (n > 10)\n    return -1;\n"
          "  free(b);\n  return 0;\n}\n")
# More definitions for the statistics: a clean one, one with nothing to check, a leak of its own.
MORE = ("static int twice(int x)\n{\n  return 2 * x;\n}\n"
        "void clean(size_t n)\n{\n  char *q = malloc(n);\n  free(q);\n}\n"
        "void leaky(size_t n)\n{\n  char *q = malloc(n);\n  if (n)\n    return;\n  free(q);\n}\n")
SMALL = "#include <stdlib.h>\nvoid small(void)\n{\n  char *q = malloc(1);\n}\n"






def _check(project, *args):
    r = project.run("check", "--format", "json", "--statistics", *args)
    data = json.loads(r.out)
    found = sorted((f["file"], f["rule"], f["line"], f["message"], tuple(f["instantiations"]))
                   for f in data["findings"])
    stats = [line for line in r.err.splitlines() if "analysed" in line or line.startswith("functions")]
    return r.code, found, stats


def _table(project) -> dict:
    """The per-function cache's entries (one unit, one table), by key."""
    directory = project.root / ".refcheck_cache" / "functions"
    (name,) = [n for n in os.listdir(directory) if n.endswith(".json")]
    data = (directory / name).read_bytes()
    return json.loads(data.split(b"\n", 2)[2])["entries"]


def test_split_is_deterministic_keeps_places_together_and_balances():
    places = [Location("g.c", line, 1) for line in (10, 20, 10, 30, 20, 40, 10, 50)]
    sizes = [900, 400, 900, 700, 400, 300, 900, 200]
    cost = shards.estimate(places, sizes)
    first = shards.split(places, cost, 2)
    assert first == shards.split(places, shards.estimate(places, sizes), 2)
    # A generic body's instantiations (one place) go to one shard.
    for place in set(places):
        assert len({first[i] for i, p in enumerate(places) if p == place}) == 1
    load = [0.0, 0.0]
    per_place: dict = {}
    for p, c in zip(places, cost):
        per_place[p] = per_place.get(p, 0.0) + c
    for p, c in per_place.items():
        load[first[places.index(p)]] += c
    assert abs(load[0] - load[1]) <= max(per_place.values())
    assert sorted(set(first)) == [0, 1]


def test_the_head_shard_0_has_done_counts_as_its_load():
    places = [Location("g.c", line, 1) for line in (10, 20, 30, 40)]
    cost = [4.0, 3.0, 2.0, 1.0]
    assert shards.split(places, cost, 2) == [0, 1, 1, 0]
    assert shards.split(places, cost, 2, head=3.0) == [1, 0, 1, 0]
    assert shards.split(places, cost, 2, head=100.0) == [1, 1, 1, 1]


def test_estimate_counts_a_place_once_and_a_definition_beyond_its_bytes():
    a, b = Location("g.c", 10, 1), Location("g.c", 20, 1)
    # A macro-made definition spans its invocation's few bytes: the fixed part still weighs it.
    assert shards.estimate([a, a, b], [1000, 1000, 30]) == [
        shards.FIRST_COST + 1000, shards.LATER_COST + 1000 * shards.SHARED_COST, shards.FIRST_COST + 30]
    assert shards.estimate([b], [30])[0] > 0.5 * shards.estimate([a], [1000])[0]


def test_measured_costs_decide_the_split_and_fill_in_the_unmeasured():
    places = [Location("g.c", line, 1) for line in (10, 20, 30, 40)]
    names = ["a", "b", "c", "d"]
    sizes = [100, 100, 100, 100]
    # Equal estimates; the last run measured "a" as all the work: it gets a shard to itself.
    measured = {shards.identity("a", places[0]): 3.0, shards.identity("b", places[1]): 0.1,
                shards.identity("c", places[2]): 0.1}
    cost = shards.costs(places, names, sizes, measured)
    assert cost[:3] == [3.0, 0.1, 0.1] and 0 < cost[3] < 3.0  # "d": estimated in their scale
    where = shards.split(places, cost, 2)
    assert where.count(where[0]) == 1
    assert shards.costs(places, names, sizes, {}) == shards.estimate(places, sizes)


def test_only_a_unit_over_an_even_share_is_split(monkeypatch):
    monkeypatch.setenv(shards.SWITCH, "1")
    assert shards.counts_for({1: 90.0, 2: 5.0, 3: 5.0}, 2) == {1: 2}
    assert shards.counts_for({1: 90.0, 2: 5.0, 3: 5.0}, 4) == {1: 4}
    assert shards.counts_for({1: 40.0, 2: 30.0, 3: 30.0}, 2) == {}
    assert shards.counts_for({1: 90.0, 2: 5.0}, 1) == {}
    assert shards.counts_for({1: 90.0, 2: 5.0}, 2, floor=100.0) == {}
    monkeypatch.setenv(shards.SWITCH, "0")
    assert shards.counts_for({1: 90.0, 2: 5.0, 3: 5.0}, 2) == {}


def test_a_callers_summary_comes_from_the_other_shard(project, sharding):
    project.write("one.c", CALLEE + CALLER)
    code, found, _ = _check(project, "-j", "1", "--no-cache", "one.c")
    assert sorted((f[1], f[2]) for f in found) == [("RC001", 14), ("RC004", 8)]
    assert not any(j["shard"] is not None for j in read_jobs(sharding))
    code2, found2, _ = _check(project, "-j", "2", "--no-cache", "one.c")
    jobs = read_jobs(sharding)
    assert sorted(str(j["shard"]) for j in jobs) == ["0", "1", "fixup"], jobs
    assert (code2, found2) == (code, found)


def test_merged_result_equals_the_whole_units(project, sharding):
    project.write("one.c", CALLEE + CALLER + MORE)
    whole = _check(project, "-j", "1", "one.c")
    table = _table(project)
    assert not any(j["shard"] is not None for j in read_jobs(sharding))
    for entry in (project.root / ".refcheck_cache").iterdir():
        if entry.is_dir():
            for f in entry.iterdir():
                f.unlink()
    parts = _check(project, "-j", "2", "one.c")
    assert any(j["shard"] == 1 for j in read_jobs(sharding))
    assert parts == whole
    assert _table(project) == table
    # The unit cache entry the merge wrote serves the next run, with the same result.
    r = project.run("check", "--format", "json", "--statistics", "-j", "2", "one.c")
    assert "(0 analyzed, 1 from cache)" in r.err, r.err
    assert not read_jobs(sharding)


@pytest.mark.parametrize("parse", ["separate", "shared"])
def test_a_failing_shard_is_a_tool_error_for_its_unit_only(project, sharding, monkeypatch, parse):
    """Shard 2 dies: in a job of its own (separate parses), or in the child the lead forked
    (shared parse: the child dies, the lead and the pool go on)."""
    project.write("big.c", CALLEE + CALLER + MORE)
    project.write("small.c", SMALL)
    if parse == "separate":
        monkeypatch.setenv(shards.SWITCH, shards.SEPARATE)
        real = engine.check_unit

        def dies_in_shard_two(path, settings):
            if isinstance(settings.shard, shards.Shard) and settings.shard.number == 1:
                os._exit(3)
            return real(path, settings)

        monkeypatch.setattr(engine, "check_unit", dies_in_shard_two)
    else:
        real_run = engine._run

        def dies_in_shard_two(prep, selected, shard, began, *rest):
            if isinstance(shard, shards.Shard) and shard.number == 1:
                os._exit(3)
            return real_run(prep, selected, shard, began, *rest)

        monkeypatch.setattr(engine, "_run", dies_in_shard_two)
    r = project.run("check", "-j", "2", "--no-cache", "--format", "json", "big.c", "small.c")
    assert r.code == 2, r.out + r.err
    data = json.loads(r.out)
    assert [(f["file"], f["rule"]) for f in data["findings"]] == [("small.c", "RC001")]
    (error,) = data["errors"]
    assert error["file"] == "big.c"
    assert "worker process died (exit status 3)" in error["message"], error
    assert "shard 2 of 2" in error["message"], error
    assert not _descendants()


def _descendants() -> list[int]:
    """The processes below this one (Linux /proc): none once a run is over (no worker, no
    forked shard, no zombie); none known without /proc."""
    if not os.path.isdir("/proc"):
        return []
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    out, frontier = [], {os.getpid()}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier}
        out.extend(frontier)
    return out


def _costs_file(project):
    folder = project.root / ".refcheck_cache" / costs.SUBDIR
    (name,) = os.listdir(folder)
    return folder / name


def test_measured_costs_are_kept_read_back_and_sent_to_every_shard(project, sharding, monkeypatch):
    project.write("one.c", CALLEE + CALLER + MORE)
    first = _check(project, "-j", "2", "one.c")
    assert any(j["shard"] == 1 for j in read_jobs(sharding))
    measured = costs.read_costs(str(project.root / ".refcheck_cache"), str(project.root / "one.c"))
    names = sorted(k.split("@")[0] for k in measured)
    assert names == ["clean", "leaky", "pkg_buffer", "twice", "user"], measured
    assert all(0 <= v < 60 for v in measured.values())
    # The next run (the unit's entry gone) gives both shards the same measured costs.
    for entry in (project.root / ".refcheck_cache" / "entries").iterdir():
        entry.unlink()
    sent = []
    real = shards.queue

    def spy(*args, **kw):
        q = real(*args, **kw)
        sent.extend(j.shard for j in q if j.shard is not None)
        return q

    monkeypatch.setattr(shards, "queue", spy)
    assert _check(project, "-j", "2", "one.c")[:2] == first[:2]  # (the statistics count cache hits)
    assert len(sent) == 2 and sent[0].measured == sent[1].measured == tuple(sorted(measured.items()))


@pytest.mark.parametrize("damage", ["garbage", "tampered", "bad value", "other unit"])
def test_a_bad_costs_file_is_ignored_without_a_traceback(project, sharding, damage):
    project.write("one.c", CALLEE + CALLER + MORE)
    first = _check(project, "-j", "2", "one.c")
    path = _costs_file(project)
    data = path.read_bytes()
    magic, mac, body = data.split(b"\n", 2)
    doc = json.loads(body)
    if damage == "garbage":
        data = b"\x00\xff{not json"
    elif damage == "tampered":
        data = data.replace(b'"costs":{', b'"costs":{"x@y:1:1":1.0,')
    else:
        if damage == "bad value":
            doc["costs"][next(iter(doc["costs"]))] = -1.0
        else:
            doc["unit"] = "/elsewhere/one.c"
        # Sealed as refcheck seals it: only the validation can refuse it.
        from refcheck.caches.sealed import _mac, load_secret

        body = json.dumps(doc, separators=(",", ":")).encode()
        data = magic + b"\n" + _mac(load_secret(), path.name, body).encode() + b"\n" + body
    path.write_bytes(data)
    assert costs.read_costs(str(project.root / ".refcheck_cache"), str(project.root / "one.c")) == {}
    for entry in (project.root / ".refcheck_cache" / "entries").iterdir():
        entry.unlink()
    r = project.run("check", "--format", "json", "-j", "2", "one.c")
    assert "Traceback" not in r.err
    assert sorted((f["file"], f["rule"], f["line"], f["message"], tuple(f["instantiations"]))
                  for f in json.loads(r.out)["findings"]) == first[1]
    # The run measured the unit again: a valid file replaced the bad one.
    assert costs.read_costs(str(project.root / ".refcheck_cache"), str(project.root / "one.c"))


def test_a_shared_parse_gives_the_unsharded_result_in_one_parse(project, sharding, monkeypatch, tmp_path):
    """The lead parses once and forks shard 2; the child's part reaches the merge; the findings
    and statistics are the whole unit's, as with a parse per shard."""
    from refcheck.frontend import unit

    project.write("one.c", CALLEE + CALLER + MORE)
    parses = tmp_path / "parses"
    real = unit.parse

    def counted(path, *args, **kw):
        with open(parses, "a") as f:
            f.write(f"{os.getpid()}\n")
        return real(path, *args, **kw)

    monkeypatch.setattr(unit, "parse", counted)
    monkeypatch.setenv(shards.SWITCH, "0")
    whole = _check(project, "-j", "1", "--no-cache", "one.c")
    parses.unlink()
    monkeypatch.setenv(shards.SWITCH, shards.SEPARATE)
    separate = _check(project, "-j", "2", "--no-cache", "one.c")
    assert len(parses.read_text().split()) == 2
    parses.unlink()
    read_jobs(sharding)
    monkeypatch.setenv(shards.SWITCH, "1")
    shared = _check(project, "-j", "2", "--no-cache", "one.c")
    assert len(parses.read_text().split()) == 1
    jobs = read_jobs(sharding)
    assert sorted(str(j["shard"]) for j in jobs if j["shard"] is not None)[:2] == ["0", "1"], jobs
    # Shard 2 ran in the slot of the other worker, not the lead's.
    lead = next(j["worker"] for j in jobs if j["shard"] == 0)
    assert next(j["worker"] for j in jobs if j["shard"] == 1) != lead
    assert shared[:2] == whole[:2] == separate[:2]
    assert shared[2] == separate[2]
    assert not _descendants()


def test_callers_join_their_callees_unless_a_hub_or_too_big(monkeypatch):
    """`together`: a helper's few callers go with it; a hub (more callers than MAX_CALLERS)
    stays alone, and so does a group over GROUP_SHARE of a shard's even share."""
    monkeypatch.setattr(shards, "MAX_CALLERS", 2)
    monkeypatch.setattr(shards, "GROUP_SHARE", 1.0)
    places = [Location("g.c", line, 1) for line in (10, 20, 30, 40, 50, 60)]
    names = ["TH_helper", "caller_one", "caller_two", "TH_hub", "user_a", "user_b"]
    words = {places[0]: {"x"}, places[1]: {"helper", "hub"}, places[2]: {"TH_helper", "hub"},
             places[3]: set(), places[4]: {"TH_hub"}, places[5]: {"hub"}}
    cost = [1.0] * 6
    groups = shards.together(places, names, words, cost, 2)
    assert groups[0] == groups[1] == groups[2] == places[0]  # the helper and its two callers
    assert len(set(groups[3:])) == 3  # the hub has four callers: no group
    # A group bigger than GROUP_SHARE of a shard's share is not made.
    monkeypatch.setattr(shards, "GROUP_SHARE", 0.5)
    assert len(set(shards.together(places, names, words, cost, 2))) == 6


def test_a_foreign_thread_at_the_fork_makes_the_lead_check_every_share(project, sharding, monkeypatch):
    """Where a thread Python does not know of is alive (libclang's would be), the lead forks
    nothing and checks all the definitions itself: the whole unit's findings, no child."""
    from refcheck.driver import forking

    project.write("one.c", CALLEE + CALLER + MORE)
    monkeypatch.setenv(shards.SWITCH, "0")
    whole = _check(project, "-j", "1", "--no-cache", "one.c")
    monkeypatch.setenv(shards.SWITCH, "1")
    monkeypatch.setattr(forking, "native_threads_only_python", lambda: False)
    forked = []
    monkeypatch.setattr(forking, "start", lambda *a, **kw: forked.append(a) or [])
    read_jobs(sharding)
    alone = _check(project, "-j", "2", "--no-cache", "one.c")
    jobs = read_jobs(sharding)
    assert alone[:2] == whole[:2] and not forked
    assert {j["worker"] for j in jobs if j["shard"] in (0, 1)} == {next(j["worker"] for j in jobs if j["shard"] == 0)}


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_lead_over_the_time_limit_takes_its_child_with_it(project, sharding, monkeypatch, tmp_path):
    """The pool kills a lead past --timeout; its forked child, waiting or checking, dies with
    it (the parent-death signal it re-armed), and the unit is one timeout error."""
    import time

    project.write("big.c", CALLEE + CALLER + MORE)
    project.write("small.c", SMALL)
    pids = tmp_path / "child"
    real_run = engine._run

    def slow_child(prep, selected, shard, began, *rest):
        if isinstance(shard, shards.Shard) and shard.number == 1:
            pids.write_text(str(os.getpid()))
            time.sleep(60)
        return real_run(prep, selected, shard, began, *rest)

    monkeypatch.setattr(engine, "_run", slow_child)
    r = project.run("check", "-j", "2", "--no-cache", "--timeout", "3", "--format", "json", "big.c", "small.c")
    data = json.loads(r.out)
    assert [(f["file"], f["rule"]) for f in data["findings"]] == [("small.c", "RC001")]
    assert any("took longer than 3 s" in e["message"] and e["file"] == "big.c" for e in data["errors"]), data
    child = int(pids.read_text())
    for _ in range(100):
        try:
            with open(f"/proc/{child}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            break
        if state == "Z":
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"the forked child {child} outlived its lead")
    assert not _descendants()


def test_three_shards_from_one_parse(project, sharding):
    """-j3: the lead forks two children, each in a slot of its own; the result is the whole
    unit's."""
    project.write("one.c", CALLEE + CALLER + MORE)
    whole = _check(project, "-j", "1", "--no-cache", "one.c")
    read_jobs(sharding)
    three = _check(project, "-j", "3", "--no-cache", "one.c")
    jobs = read_jobs(sharding)
    assert sorted(str(j["shard"]) for j in jobs if j["shard"] in (0, 1, 2)) == ["0", "1", "2"], jobs
    assert len({j["worker"] for j in jobs if j["shard"] in (0, 1, 2)}) == 3, jobs
    assert three[:2] == whole[:2]
    assert not _descendants()


# A cycle of two definitions (issue 32, refcheck.driver.cycles): pass_a frees `p`, keeps it, or
# hands it to pass_b, which hands it back; settled optimistically both take `p` over, and
# `start` hands its node on. Checked by source order alone, pass_a borrows `p` and frees it (RC006).
# They return a status: a void function that releases a parameter on some paths and keeps it on
# the others takes it over without any cycle round (glib28's `released_or_kept`).
CYCLE = ("#include <stdlib.h>\nstruct node { int n; };\nstruct node *kept_node;\n"
         "int pass_b(struct node *p);\n"
         "int pass_a(struct node *p)\n{\n  if (p->n <= 0) {\n    free(p);\n    return 0;\n  }\n"
         "  if (p->n == 5) {\n    kept_node = p;\n    return 1;\n  }\n  return pass_b(p);\n}\n"
         "int pass_b(struct node *p)\n{\n  p->n--;\n  return pass_a(p);\n}\n"
         "void start(int n)\n{\n  struct node *p = malloc(sizeof *p);\n  if (!p)\n    return;\n"
         "  p->n = n;\n  pass_a(p);\n}\n")


def test_a_cycle_across_shards_is_settled_in_the_fixup(project, sharding, monkeypatch):
    project.write("refcheck.toml", 'preset = "glib"\n')
    project.write("one.c", CYCLE)
    code, found, _ = _check(project, "-j", "1", "--no-cache", "one.c")
    assert found == []
    read_jobs(sharding)
    assert _check(project, "-j", "2", "--no-cache", "one.c")[:2] == (code, found)
    assert "fixup" in [str(j["shard"]) for j in read_jobs(sharding)]
    # Without the cycles' rounds (none: the ordinary outcome stands) the release is reported, and
    # `start`'s malloc'd node (libc's allocators allocate under the glib preset too) leaks into
    # pass_a, which then borrows it.
    monkeypatch.setattr("refcheck.driver.cycles.ROUNDS", 0)
    assert [f[1] for f in _check(project, "-j", "1", "--no-cache", "one.c")[1]] == ["RC001", "RC006"]
