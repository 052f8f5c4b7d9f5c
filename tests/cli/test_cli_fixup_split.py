"""A shared parse's fixup with its second round split between the lead and a forked helper
(refcheck/driver/fixsplit.py): the helper checks stale definitions in the slot the shards'
children had, and the merge keeps a record only where the summaries it used are the ones the
whole unit's second round gives at its place. Findings are -j1's whoever checked what."""

from __future__ import annotations

import json
import os
import time

import pytest

from cli_helpers import jobs as read_jobs
from refcheck.driver import fixsplit, forking, unitcheck

pytestmark = pytest.mark.skipif(not forking.available(), reason="no os.fork")

# pkg_wrap and pkg_user both used pkg_buffer before its definition: both are stale in the second
# round. pkg_user also uses pkg_wrap, whose second-round summary (it hands out what it gets)
# gives pkg_user's leak of `a` (RC001, line 13): a check of pkg_user from the round's start
# table (pkg_wrap's first-round summary) finds nothing.
UNIT = """#include <stdlib.h>
char *pkg_buffer(size_t n);
char *pkg_wrap(size_t n)
{
  return pkg_buffer(n);
}
int pkg_user(size_t n)
{
  char *a = pkg_wrap(n);
  char *b = pkg_buffer(n);
  free(b);
  if (n > 10)
    return -1;
  free(a);
  return 0;
}
char *pkg_buffer(size_t n)
{
  char *p = malloc(n);
  if (!p)
    return NULL;
  p[0] = 0;
  return p;
}
"""


def _findings(project, *args):
    r = project.run("check", "--format", "json", "--no-cache", *args)
    data = json.loads(r.out)
    return r.code, sorted((f["file"], f["rule"], f["line"], f["message"]) for f in data["findings"]), data["errors"]


@pytest.fixture
def slow_wrap(monkeypatch):
    """pkg_wrap's second-round check takes 0.6 s (in whichever process claims it first): the
    other claims pkg_user meanwhile."""
    real = unitcheck.UnitCheck.definition

    def definition(self, index, plan, table):
        if self.second and self.names[index] == "pkg_wrap":
            time.sleep(0.6)
        return real(self, index, plan, table)

    monkeypatch.setattr(unitcheck.UnitCheck, "definition", definition)


def test_the_helper_checks_part_of_the_second_round(project, sharding, slow_wrap, monkeypatch, tmp_path):
    """One process checks pkg_wrap (slowly), the other pkg_user meanwhile, with pkg_wrap's
    first-round summary: the merge checks pkg_user again after pkg_wrap's, so its leak is found
    as at -j1 (taken as it was, it is lost)."""
    project.write("one.c", UNIT)
    whole = _findings(project, "-j", "1", "one.c")
    assert ("one.c", "RC001", 13) in [f[:3] for f in whole[1]], whole
    read_jobs(sharding)
    merged = []
    real = fixsplit._merged

    def spy(unit, table, stale, mine, theirs, start, recheck):
        out = real(unit, table, stale, mine, theirs, start, recheck)
        made = {unit.names[i]: r for i, r in {**mine, **theirs}.items()}
        with open(tmp_path / "merged", "a") as f:
            f.write(json.dumps({"theirs": len(theirs), "user_kept": out[unit.names.index("pkg_user")]
                                is made["pkg_user"]}) + "\n")
        return out

    monkeypatch.setattr(fixsplit, "_merged", spy)
    assert _findings(project, "-j", "2", "one.c") == whole
    jobs = read_jobs(sharding)
    lead = next(j for j in jobs if j["shard"] == 0)
    (helper,) = [j for j in jobs if j["shard"] == "fixup-helper"]
    (fixup,) = [j for j in jobs if j["shard"] == "fixup"]
    assert helper["worker"] != lead["worker"] and fixup["start"] <= helper["start"] < fixup["end"], jobs
    with open(tmp_path / "merged") as f:
        (got,) = [json.loads(line) for line in f]
    # Whichever process took pkg_wrap, the other took pkg_user meanwhile, from the round's start.
    assert got == {"theirs": 1, "user_kept": False}, got


def test_a_helper_that_dies_leaves_its_definitions_to_the_lead(project, sharding, slow_wrap, monkeypatch):
    project.write("one.c", UNIT)
    whole = _findings(project, "-j", "1", "one.c")
    read_jobs(sharding)
    real = fixsplit._checked

    def dying(unit, plan, table, claims, number):
        if number == 1:
            os._exit(3)
        return real(unit, plan, table, claims, number)

    monkeypatch.setattr(fixsplit, "_checked", dying)
    assert _findings(project, "-j", "2", "one.c") == whole
    jobs = read_jobs(sharding)
    assert not [j for j in jobs if j["shard"] == "fixup-helper"], jobs
    assert [j for j in jobs if j["shard"] == "fixup"], jobs


def test_one_stale_definition_forks_no_helper(project, sharding, monkeypatch, tmp_path):
    """Below MIN_STALE the lead checks the round alone (a fork costs more than it saves)."""
    project.write("one.c", UNIT.replace("  char *b = pkg_buffer(n);\n  free(b);\n", ""))
    whole = _findings(project, "-j", "1", "one.c")
    read_jobs(sharding)
    forks = tmp_path / "forks"
    real = forking.start

    def start(numbers, work, lender):  # in the worker: the shards' children, a helper
        with open(forks, "a") as f:
            f.write(f"{numbers}\n")
        return real(numbers, work, lender)

    monkeypatch.setattr(forking, "start", start)
    assert _findings(project, "-j", "2", "one.c") == whole
    assert forks.read_text().splitlines() == ["[1]"]  # the shards' child only
    assert not [j for j in read_jobs(sharding) if j["shard"] == "fixup-helper"]


def test_the_helpers_checks_go_to_the_function_cache(project, sharding, slow_wrap, monkeypatch, tmp_path):
    """With the per-function cache: the record the helper made and the merge kept (pkg_user
    here uses pkg_buffer only, so both records stand) gets its cache entry in the lead as the lead's own checks do,
    and a -j1 run after an edit elsewhere in the unit reports what a fresh check reports."""
    project.write("one.c", UNIT.replace("  char *a = pkg_wrap(n);\n", "  char *a = malloc(n);\n"))
    log = tmp_path / "adopted"
    real = unitcheck.UnitCheck.adopt

    def adopt(self, index, record, table):
        real(self, index, record, table)
        with open(log, "a") as f:
            f.write(f"{self.names[index]} {table is not None and table.keys[index] in table._new}\n")

    monkeypatch.setattr(unitcheck.UnitCheck, "adopt", adopt)
    cached = project.run("check", "--format", "json", "-j", "2", "one.c")
    assert [j for j in read_jobs(sharding) if j["shard"] == "fixup-helper"]
    (name, stored), = [line.split() for line in log.read_text().splitlines()]
    assert name in ("pkg_wrap", "pkg_user") and stored == "True", log.read_text()
    project.write("one.c", UNIT.replace("  char *a = pkg_wrap(n);\n", "  char *a = malloc(n);\n")
                  + "int pkg_more(void)\n{\n  return 1;\n}\n")
    again = project.run("check", "--format", "json", "-j", "1", "one.c")
    fresh = _findings(project, "-j", "1", "one.c")
    assert json.loads(cached.out)["findings"], cached.out
    got = sorted((f["file"], f["rule"], f["line"], f["message"]) for f in json.loads(again.out)["findings"])
    assert got == fresh[1]
