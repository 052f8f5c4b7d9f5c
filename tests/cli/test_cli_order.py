"""A run's findings do not depend on the order its units are checked in (issue 32, libsecret):
a unit checked again in phase 2 starts from no record of its own functions, as in phase 1, and
its chains of helpers defined after their callers settle in as many rounds as they need
(refcheck.driver.chains), so a unit checked before the units it calls (then again) and one
checked after them (once) give the same records and findings."""

from __future__ import annotations

import json

from cli_helpers import jobs as read_jobs

# chain_first -> chain_middle -> chain_last, defined callers first: one stale round settled
# chain_middle only, so chain_first's owned result (and chain_user's leak) was found only where
# phase 2 checked the unit again with its own exports from the run's table.
CHAINED = """#include <stdlib.h>

char *chain_middle(size_t n);
char *chain_last(size_t n);
void other_drop(char *p);

char *chain_first(size_t n)
{
  return chain_middle(n);
}

char *chain_middle(size_t n)
{
  return chain_last(n + 1);
}

char *chain_last(size_t n)
{
  return malloc(n);
}

int chain_user(size_t n)
{
  char *p = chain_first(n);
  if (!p)
    return -1;
  p[0] = 0;
  return 0;
}

void handed(void)
{
  char *q = malloc(4);
  other_drop(q);
}
"""
# Another unit's function the first calls: checked after it, it has the first checked again.
# It calls the first unit too, so that neither unit's calls place it first (driver.ordering):
# the two layouts below check them in the two orders.
OTHER = ("#include <stdlib.h>\n\nchar *chain_last(size_t n);\n\nvoid other_drop(char *p)\n{\n  free(p);\n}\n\n"
         "int other_user(void)\n{\n  char *p = chain_last(4);\n  return p != NULL;\n}\n")


def _found(project, chained: str, other: str) -> list:
    project.write(chained, CHAINED)
    project.write(other, OTHER)
    r = project.run("check", "-j", "1", "--no-cache", "--format", "json", "a.c", "b.c")
    role = {chained: "chained", other: "other"}
    return sorted((role[f["file"]], f["line"], f["rule"], f["function"]) for f in json.loads(r.out)["findings"])


def test_findings_do_not_depend_on_the_units_order(project):
    first = _found(project, "a.c", "b.c")  # the chained unit first: checked again in phase 2
    second = _found(project, "b.c", "a.c")  # after the unit it calls: checked once
    assert first == second
    assert ("chained", 28, "RC001", "chain_user") in first, first
    assert ("chained", 9, "RC004", "chain_first") in first, first


def test_a_split_unit_settles_its_chains_as_a_whole_one(project, sharding):
    """The chain settles in a split unit's fixup as in the whole unit's check (chains.settle_records)."""
    project.write("a.c", CHAINED)

    def found(*args):
        r = project.run("check", "--no-cache", "--format", "json", *args, "a.c")
        return sorted((f["line"], f["rule"], f["function"]) for f in json.loads(r.out)["findings"])

    whole = found("-j", "1")
    assert (28, "RC001", "chain_user") in whole, whole
    assert found("-j", "2") == whole
    assert any(str(j.get("shard", "")).startswith("fixup") for j in read_jobs(sharding))
