"""The cache: a warm run does not analyze, any change that matters does, bad entries are rebuilt."""

from __future__ import annotations

import json
import os
import time

from cli_helpers import analyzed

from refcheck.caches.cache import FORMAT as CACHE_FORMAT
from refcheck.caches.cache import Cache, FileHasher, dump_result, load_result
from refcheck.findings import Finding, Location, Step, ToolError, UnitResult

LEAKY = '#include "a.h"\nvoid f(void) {\n  t = LEAK(1);\n}\n'


def entries(project) -> list:
    return sorted((project.root / ".refcheck_cache" / "entries").glob("[!.]*.json"))


def body(entry) -> dict:
    """An entry's JSON, after its magic line and its MAC line."""
    return json.loads(entry.read_bytes().split(b"\n", 2)[2])


def test_warm_run_does_not_call_the_engine_and_prints_the_same(project, fake):
    project.write("a.h", "/* header */\n")
    project.write("a.c", LEAKY)
    project.write("b.c", "int g(void) { return 0; }\n")
    cold = project.run("check", "--format", "sarif", ".")
    assert analyzed(fake) == ["a.c", "b.c"]
    fake.unlink()
    warm = project.run("check", "--format", "sarif", ".")
    assert analyzed(fake) == []
    assert warm.code == cold.code == 1
    assert warm.out == cold.out
    assert len(entries(project)) == 2


def test_editing_a_header_rechecks_only_its_includers(project, fake):
    project.write("a.h", "/* header */\n")
    project.write("a.c", LEAKY)
    project.write("b.c", "int g(void) { return 0; }\n")
    project.run("check", ".")
    fake.unlink()
    project.write("a.h", "/* header, edited */\n")
    project.run("check", ".")
    assert analyzed(fake) == ["a.c"]


def test_flags_and_conventions_are_part_of_the_key(project, fake):
    project.write("a.c", "void f(void) { LEAK_IF_X; }\n")
    assert project.run("check", "a.c").code == 0
    assert project.run("check", "-DX", "a.c").code == 1  # not the cached clean result
    fake.unlink()
    project.write("refcheck.toml", "extend-release = ['^dispose$']\n")
    project.run("check", "a.c")
    assert analyzed(fake) == ["a.c"]
    fake.unlink()
    # Rule selection is applied after the analysis: it does not invalidate anything.
    project.run("check", "--ignore", "RC002", "a.c")
    assert analyzed(fake) == []


def test_corrupt_and_foreign_entries_are_ignored_and_rebuilt(project, fake):
    project.write("a.c", LEAKY.replace('#include "a.h"\n', ""))
    expected = project.run("check", "a.c").out
    (entry,) = entries(project)
    good = body(entry)
    bad_contents = [
        b"\x00\xff garbage",
        b'{"format": 1, "key": "',  # torn
        json.dumps({**good, "format": 999}).encode(),
        json.dumps({**good, "key": "someone else's"}).encode(),
        json.dumps({**good, "result": {**good["result"], "findings": [{"rule": 1}]}}).encode(),
        json.dumps({**good, "result": {**good["result"], "functions": "many"}}).encode(),
        json.dumps({**good, "hashes": {}}).encode(),
        json.dumps([1, 2, 3]).encode(),
    ]
    for content in bad_contents:
        entry.write_bytes(content)
        fake.unlink(missing_ok=True)
        r = project.run("check", "a.c")
        assert r.out == expected, content
        assert analyzed(fake) == ["a.c"], content
        assert body(entry)["format"] == CACHE_FORMAT  # rebuilt


def test_unwritable_cache_warns_and_the_run_goes_on(project, fake):
    project.write("a.c", LEAKY.replace('#include "a.h"\n', ""))
    project.write("cachefile", "I am a file, not a directory\n")
    r = project.run("check", "--cache-dir", "cachefile/cache", "a.c")
    assert r.code == 1 and "a.c:2:" in r.out
    assert "cannot write cache" in r.err and "continuing without caching" in r.err


def test_two_runs_sharing_one_cache_at_once(project):
    for i in range(6):
        project.write(f"u{i}.c", "void f(void) { t = LEAK(1); SLOW; }\n")
    runs = [project.spawn("check", "-j", "2", ".") for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in runs]
    assert [p.returncode for p in runs] == [1, 1]
    assert outs[0][0] == outs[1][0]
    for e in entries(project):
        assert body(e)["format"] == CACHE_FORMAT
    assert not list((project.root / ".refcheck_cache" / "entries").glob(".tmp-*"))
    warm = project.call("check", ".")
    assert warm.out == outs[0][0]


def test_result_round_trips_through_json():
    loc = Location("a.c", 3, 4)
    r = UnitResult("a.c", [Finding("RC001", "leak", loc, "f", "m", [Step(loc, "s")], ["f"], None),
                           Finding("RC002", "double-release", loc, "g", "m2", [], [], loc)],
                   [ToolError("a.c", "e", 1, 2, "warning")], 3, ["/x/a.c"], {"parse": 0.5})
    assert load_result(json.loads(json.dumps(dump_result(r)))) == r


def test_entry_needs_every_file_it_read_unchanged(tmp_path):
    unit, header = tmp_path / "u.c", tmp_path / "h.h"
    unit.write_text("u")
    header.write_text("h")
    cache = Cache(str(tmp_path / "cache"))
    result = UnitResult("u.c", includes=[str(header)])
    cache.store("k", str(unit), result, FileHasher())
    assert cache.load("k", FileHasher()) == result
    header.write_text("h2")
    assert cache.load("k", FileHasher()) is None
    header.write_text("h")
    os.remove(header)
    assert cache.load("k", FileHasher()) is None


def test_warm_run_does_not_load_libclang(project):
    project.write("a.c", "int g(void) { return 0; }\n")
    assert project.call("check", "a.c", fake=False).code == 0
    # Checked in an exit handler: the process ends without raising SystemExit (__main__._exit).
    code = ("import atexit, sys, runpy; sys.argv = ['refcheck', 'check', 'a.c']\n"
            "def loaded():\n"
            "    heavy = {'clang.cindex', 'refcheck.driver.engine'} & set(sys.modules)\n"
            "    print(f'loaded {sorted(heavy)}' if heavy else 'ok')\n"
            "atexit.register(loaded)\n"
            "runpy.run_module('refcheck', run_name='__main__')\n")
    import subprocess
    import sys
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code], cwd=project.root, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stdout + out.stderr
    assert time.monotonic() - started < 60  # sanity only; the speed target is in benchmarks/


def test_entries_not_written_for_a_week_are_pruned(project, fake):
    d = project.root / ".refcheck_cache" / "entries"
    d.mkdir(parents=True)
    stale, recent, dead_temp = d / ("0" * 40 + ".json"), d / ("4" * 40 + ".json"), d / ".tmp-abc.json"
    for f in (stale, recent, dead_temp):
        f.write_bytes(b"refcheck-cache 2\n")
    for f, age in ((stale, 8 * 24 * 3600), (dead_temp, 2 * 3600)):
        then = time.time() - age
        os.utime(f, (then, then))
    project.write("a.c", "int x;\n")
    project.run("check", "a.c")
    assert not stale.exists() and not dead_temp.exists() and recent.exists()
    assert len(entries(project)) == 2  # recent and a.c's new entry


def test_workers_hash_what_a_unit_read_only_for_a_cache(project, fake, monkeypatch, tmp_path):
    """The content hashes a worker takes after a parse key the unit's cache entry: with
    --no-cache there is none to key, and no header is read again; with the cache they are
    taken and the warm run is served from the entry."""
    from cli_helpers import log_calls, logged_lines

    from refcheck.driver import pool

    log = tmp_path / "hashes.txt"
    project.write("a.h", "/* header */\n")
    project.write("a.c", LEAKY)
    with monkeypatch.context() as m:
        log_calls(m, pool, "_hashes", log, lambda result, root, job: job.display)
        project.run("check", "--no-cache", ".")
        assert logged_lines(log) == []
        project.run("check", ".")
        assert logged_lines(log) == ["a.c"]
    fake.unlink()
    project.run("check", ".")
    assert analyzed(fake) == [] and len(entries(project)) == 1
