"""The first worker forked before the parent's start (commands/prestart.py): only for `check`, adopted
by the pool as its first worker, and ended with the run when no unit needed it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from refcheck.commands import prestart

pytestmark = pytest.mark.skipif(not prestart.wanted(["refcheck", "check"]), reason="no fork here")

LEAK = """typedef struct T T;
T *T_new(void);
void T_free(T *t);
int f(int n)
{
  T *t = T_new();
  if (n)
    return 1; /* leaks t */
  T_free(t);
  return 0;
}
"""

ADOPTED = """
import os, sys
from refcheck.commands import prestart
prestart.start(["refcheck", "check"])
from refcheck.conventions import Conventions
from refcheck.driver import pool
first = pool.FIRST[0].process.pid
options = pool.Options(Conventions(), os.getcwd(), 50_000, 10.0)
jobs = [pool.Job(i, os.path.abspath(n), n, []) for i, n in enumerate(sys.argv[1:])]
outcomes = sorted(pool.run(jobs, options, 2, 60.0), key=lambda o: o.job.index)
workers = {o.worker for o in outcomes}
assert first in workers, (first, workers)
assert len(workers) == len(jobs), workers  # the second job had a worker forked by the pool
print([len(o.result.findings) for o in outcomes])
"""


def test_only_a_check_is_prestarted(monkeypatch):
    monkeypatch.delenv("REFCHECK_PRESTART", raising=False)
    assert prestart.wanted(["refcheck", "check", "a.c"])
    assert not prestart.wanted(["refcheck", "doctor", "a.c"])
    assert not prestart.wanted(["refcheck", "--version"])
    assert not prestart.wanted(["refcheck"])
    monkeypatch.setenv("REFCHECK_PRESTART", "0")
    assert not prestart.wanted(["refcheck", "check", "a.c"])


def test_the_pool_adopts_the_prestarted_worker_first(tmp_path):
    (tmp_path / "a.c").write_text(LEAK)
    (tmp_path / "b.c").write_text(LEAK)
    out = subprocess.run([sys.executable, "-c", ADOPTED, "a.c", "b.c"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[1, 1]"


@pytest.mark.parametrize("args, code", [
    (["check", "--no-cache", "-j1", "a.c"], 1),  # the prestarted worker checks it
    (["check", "--no-cache", "-j1", "empty"], 0),  # no unit: the worker is not needed
    (["check", "--no-cache", "-j1", "--select", "XX999", "a.c"], 2),  # a configuration error
])
def test_a_run_ends_with_its_prestarted_worker(tmp_path, args, code):
    """`capture_output` waits for the pipes to close: a worker left alive would hold them open."""
    (tmp_path / "a.c").write_text(LEAK)
    (tmp_path / "empty").mkdir()
    out = subprocess.run([sys.executable, "-m", "refcheck", *args], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == code, out.stdout + out.stderr
    if code == 1:
        assert "a.c:8:5: error:" in out.stdout and "RC001" in out.stdout
