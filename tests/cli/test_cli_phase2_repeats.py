"""Phase 2 checks a unit again with the run's table; a definition whose phase-1 check asked no
record the table changed repeats that check (`driver.repeats`, `UnitResult.checks`) instead of a
build and an analysis, with the same findings."""

from __future__ import annotations

import json

from cli_helpers import log_calls, logged_lines

from refcheck.driver import engine, repeats, unitcheck

# Each unit calls a function of the other: whichever is checked first asks for a record the other
# exports only later, and is checked again in phase 2. In each, `alone` and `frees` ask for no
# record of the other unit.
LIB = """#include <stdlib.h>
extern void user_drop(char *b);
char *pkg_buffer(size_t n)
{
  char *p = malloc(n);
  return p;
}
void pkg_done(size_t n)
{
  char *p = malloc(n);
  user_drop(p);
}
int lib_alone(size_t n)
{
  char *q = malloc(n);
  if (n > 3)
    return 1;
  free(q);
  return 0;
}
void lib_frees(size_t n)
{
  char *q = malloc(n);
  free(q);
}
"""
USER = """#include <stdlib.h>
extern char *pkg_buffer(size_t n);
void user_drop(char *b)
{
  free(b);
}
int user(size_t n)
{
  char *b = pkg_buffer(n);
  if (n > 10)
    return -1;
  free(b);
  return 0;
}
int user_alone(size_t n)
{
  char *q = malloc(n);
  if (n > 3)
    return 1;
  free(q);
  return 0;
}
void user_frees(size_t n)
{
  char *q = malloc(n);
  free(q);
}
"""


def _run(project, monkeypatch, log, earlier: bool):
    with monkeypatch.context() as m:  # in the worker: one line per build
        log_calls(m, unitcheck.UnitCheck, "build_and_analyse", log,
                  lambda self, index, top, plan: f"{self.parsed.tu.spelling.rsplit('/', 1)[-1]} {top.spelling}")
        if not earlier:
            m.setattr(repeats.Repeats, "earlier", lambda self, names: None)
        project.write("lib.c", LIB)
        project.write("user.c", USER)
        r = project.run("check", "-j", "1", "--no-cache", "--format", "json", "user.c", "lib.c")
    return json.loads(r.out), logged_lines(log)


def test_phase_2_builds_only_what_the_table_changed(project, monkeypatch, tmp_path):
    log = tmp_path / "builds.txt"
    fresh, every = _run(project, monkeypatch, log, earlier=False)
    taken, fewer = _run(project, monkeypatch, log, earlier=True)
    assert taken["findings"] == fresh["findings"] and taken["errors"] == fresh["errors"]
    assert sorted((f["file"], f["function"], f["rule"]) for f in taken["findings"]) == [
        ("lib.c", "lib_alone", "RC001"), ("lib.c", "pkg_buffer", "RC004"),
        ("user.c", "user", "RC001"), ("user.c", "user_alone", "RC001"), ("user.c", "user_drop", "RC006")]
    # Without the earlier checks, the unit checked first is built whole twice.
    again = {line.split()[0] for line in every if every.count(line) == 2}
    assert len(again) == 1
    unit = again.pop()
    caller, alone, frees = (("user", "user_alone", "user_frees") if unit == "user.c" else
                            ("pkg_done", "lib_alone", "lib_frees"))
    assert every.count(f"{unit} {alone}") == 2 and every.count(f"{unit} {frees}") == 2
    # With them, phase 2 builds only the function that asked for the other unit's record.
    assert fewer.count(f"{unit} {caller}") == 2
    assert fewer.count(f"{unit} {alone}") == 1 and fewer.count(f"{unit} {frees}") == 1


def test_phase_2_runs_in_phase_1s_worker(project, monkeypatch, tmp_path):
    """Phase 2 goes to the worker phase 1 left idle (`pool.Held`), not to one forked for it:
    that process already imported the analysis and read the preset's tables. The table still
    reaches it (the findings need `pkg_buffer`'s record), and no worker outlives the run."""
    import os

    from refcheck.driver import pool

    log = tmp_path / "checks.txt"
    workers: list = []
    real_close = pool.Held.close

    def closing(self):
        workers.extend(w.process for w in self.workers)
        return real_close(self)

    with monkeypatch.context() as m:
        log_calls(m, engine, "check_unit", log, lambda path, settings: f"{os.getpid()} {path.rsplit('/', 1)[-1]}")
        m.setattr(pool.Held, "close", closing)
        project.write("lib.c", LIB)
        project.write("user.c", USER)
        r = project.run("check", "-j", "1", "--no-cache", "--format", "json", "user.c", "lib.c")
    checks = logged_lines(log)
    assert len(checks) == 3  # both units, then the one checked first again
    assert len({line.split()[0] for line in checks}) == 1
    assert ("user.c", "user", "RC001") in {(f["file"], f["function"], f["rule"]) for f in json.loads(r.out)["findings"]}
    assert workers and not any(p.is_alive() for p in workers)
