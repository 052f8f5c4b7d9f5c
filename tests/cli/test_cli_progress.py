"""The progress line: on a terminal after a second, never in CI or in a pipe; it counts what the
summary counts, names the units in flight, and estimates the time left by work."""

from __future__ import annotations

import io
import re
import statistics
import time
from collections import namedtuple

import pytest

from refcheck.caches.cache import Cache, FileHasher
from refcheck.driver.progress import Progress, wanted
from refcheck.findings import UnitResult

Job = namedtuple("Job", "path display")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def units(tmp_path, **sizes: int) -> dict[str, Job]:
    """A file per name (a.c=100: 100 bytes), as jobs by name."""
    jobs = {}
    for name, size in sizes.items():
        path = tmp_path / name.replace("_", "/").replace("/c", ".c")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * size)
        jobs[name] = Job(str(path), str(path.relative_to(tmp_path)))
    return jobs


def progress(jobs, clock, workers=1, previous=None, finished=()):
    p = Progress(list(jobs.values()), enabled=True, stream=Terminal(), workers=workers,
                 finished=finished, clock=clock, auto=False,
                 previous=lambda path: (previous or {}).get(path))
    p.show()
    return p


def eta_seconds(text: str) -> float | None:
    m = re.search(r"ETA (?:over )?(\d+):(\d\d):(\d\d)", text)
    return None if m is None else int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])


def test_counts_files_as_the_summary_does(tmp_path):
    """A cache hit counts as done; a unit another includes leaves the total once that is known,
    skipped or not; at the end the count is the summary's."""
    jobs = units(tmp_path, a_c=10, b_c=10, generic_g_c=10)
    cached = tmp_path / "c.c"
    clock = Clock()
    p = progress(jobs, clock, finished=[(str(cached), [str(cached)])])
    assert p.text().startswith("checking 1/4 files |")
    p.start(jobs["a_c"])
    p.advance(jobs["a_c"], [jobs["a_c"].path, str(tmp_path / "generic" / "." / "g.c")])
    assert p.text().startswith("checking 2/3 files (1 included by others) |")
    p.skip(jobs["generic_g_c"])
    p.start(jobs["b_c"])
    p.advance(jobs["b_c"], [jobs["b_c"].path])
    assert (p.done, p.total) == (3, 3)
    p.close()


def test_names_the_unit_in_flight_oldest_first(tmp_path):
    jobs = units(tmp_path, a_c=10, b_c=10, c_c=10)
    clock = Clock()
    p = progress(jobs, clock, workers=2)
    assert "in flight" not in p.text()
    p.start(jobs["a_c"])
    clock.now += 5
    p.start(jobs["b_c"])
    clock.now += 2
    assert "in flight: a.c 0:00:07 +1 more" in p.text()
    p.advance(jobs["a_c"])
    p.start(jobs["c_c"])
    clock.now += 1
    assert "in flight: b.c 0:00:03 +1 more" in p.text()
    p.close()


def test_eta_follows_work_a_big_unit_after_many_small(tmp_path):
    """Ten small units done in ten seconds, one of ten times their bytes left: rich's count-based
    ETA said one second; by work it is a hundred."""
    jobs = units(tmp_path, big_c=100_000, **{f"s{i}_c": 1_000 for i in range(10)})
    clock = Clock()
    p = progress(jobs, clock)
    assert "ETA unknown" in p.text()  # nothing measured, nothing known from the cache
    for i in range(10):
        p.start(jobs[f"s{i}_c"])
        clock.now += 1
        p.advance(jobs[f"s{i}_c"])
    assert p.eta() == (pytest.approx(100.0), False)
    p.start(jobs["big_c"])
    clock.now += 40
    assert p.eta() == (pytest.approx(60.0), False)
    assert "ETA 0:01:00" in p.text() and "in flight: big.c 0:00:40" in p.text()
    p.close()


def test_eta_follows_work_a_big_unit_first(tmp_path):
    """The big unit's previous time (from the cache) sets the pace before anything finishes;
    once it is done, the small ones left are seconds, not ten times its time."""
    jobs = units(tmp_path, big_c=10_000, **{f"s{i}_c": 1_000 for i in range(10)})
    clock = Clock()
    p = progress(jobs, clock, workers=2, previous={jobs["big_c"].path: 50.0})
    # 50 s for the big one on one worker; the small ones at its seconds per byte, 5 s each,
    # on the other.
    assert p.eta() == (pytest.approx(50.0), False)
    p.start(jobs["big_c"])
    p.start(jobs["s0_c"])
    clock.now += 10
    p.advance(jobs["s0_c"])  # 10 s where 5 were expected: small units are slower this run
    clock.now += 40
    p.advance(jobs["big_c"])
    seconds, over = p.eta()
    # Measured now: 10 s per 1 000 bytes and 50 s per 10 000; 9 000 bytes left on 2 workers.
    assert not over and seconds == pytest.approx(statistics.median([10 / 1_000, 50 / 10_000]) * 9_000 / 2)
    p.close()


def test_a_small_file_that_includes_much_does_not_slow_every_estimate(tmp_path):
    """TH's THTensor.c: a few bytes that include most of TH, a minute's work."""
    jobs = units(tmp_path, includer_c=100, **{f"s{i}_c": 1_000 for i in range(8)})
    clock = Clock()
    p = progress(jobs, clock)
    for name in ["s0_c", "s1_c", "includer_c", "s2_c", "s3_c"]:
        p.start(jobs[name])
        clock.now += 60 if name == "includer_c" else 1
        p.advance(jobs[name])
    # By the sum of seconds over the sum of bytes, 64 s / 4 100 bytes: 62 s for the four left.
    assert p.eta() == (pytest.approx(4.0), False)
    p.close()


def test_eta_never_below_the_known_work_while_a_unit_runs_past_its_estimate(tmp_path):
    jobs = units(tmp_path, big_c=1000, s1_c=10, s2_c=10, s3_c=10)
    previous = {jobs["big_c"].path: 10.0, **{jobs[f"s{i}_c"].path: 2.0 for i in (1, 2, 3)}}
    clock = Clock()
    p = progress(jobs, clock, previous=previous)
    p.start(jobs["big_c"])
    shown = []
    for _ in range(120):
        clock.now += 1
        text = p.text()
        seconds, over = p.eta()
        assert seconds >= 6.0  # the three small units still to run after it
        assert eta_seconds(text) >= 6, text
        shown.append((eta_seconds(text), over))
    # Counting down while within its estimate, then a lower bound, said so.
    assert shown[0] == (15, False) and shown[8] == (7, False)
    assert shown[30] == (6, True)
    text = p.text()
    assert "ETA over 0:00:06" in text and "in flight: big.c 0:02:00 (past its estimate of 0:00:10)" in text
    # Only the unit past its estimate left (the model does not mind the others beside it):
    # no number at all, rather than zero.
    for i in (1, 2, 3):
        p.start(jobs[f"s{i}_c"])
        clock.now += 2
        p.advance(jobs[f"s{i}_c"])
    assert "ETA unknown" in p.text()
    p.close()


def test_draws_on_the_terminal_ticks_and_clears_itself(tmp_path):
    jobs = units(tmp_path, a_c=10, b_c=10)
    clock = Clock()
    p = progress(jobs, clock)
    assert "checking 0/2 files | elapsed 0:00:00 | ETA unknown" in p.stream.getvalue()
    p.start(jobs["a_c"])
    p.refresh()
    drawn = p.stream.getvalue()
    assert "checking 0/2 files | elapsed 0:00:00 | ETA unknown\nin flight: a.c 0:00:00" in drawn
    clock.now += 2
    p.refresh()
    assert "elapsed 0:00:02" in p.stream.getvalue()[len(drawn):]
    drawn = p.stream.getvalue()
    p.close()
    # transient: the last thing written erases the line
    assert "\x1b[2K" in p.stream.getvalue()[len(drawn):]


def test_previous_seconds_come_from_the_units_last_entry(tmp_path):
    unit = tmp_path / "u.c"
    unit.write_text("u")
    cache = Cache(str(tmp_path / "cache"))
    assert cache.previous_seconds(str(unit)) is None
    key = "a" * 40
    result = UnitResult("u.c", timings={"parse": 1.5, "cfg": 0.5, "analysis": 2.0})
    cache.store(key, str(unit), result, FileHasher())
    cache.remember(str(unit), key, {"args": [], "settings": ""}, None)
    unit.write_text("changed")  # a miss now, and still the best estimate of its time
    assert cache.previous_seconds(str(unit)) == 4.0
    cache.remember(str(unit), "../../elsewhere", {"args": [], "settings": ""}, None)
    assert cache.previous_seconds(str(unit)) is None
    assert Cache(None).previous_seconds(str(unit)) is None


def test_silent_during_the_first_second():
    out = Terminal()
    p = Progress([Job("/a.c", "a.c")], enabled=True, stream=out, delay=60.0)
    p.advance(Job("/a.c", "a.c"))
    p.close()
    assert out.getvalue() == ""


def test_disabled_draws_nothing():
    out = Terminal()
    p = Progress([Job("/a.c", "a.c")], enabled=False, stream=out, delay=0.0)
    p.advance(Job("/a.c", "a.c"))
    time.sleep(0.2)
    p.close()
    assert out.getvalue() == ""


def test_wanted_only_on_a_terminal_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    assert wanted(Terminal())
    assert not wanted(io.StringIO())
    monkeypatch.setenv("CI", "true")
    assert not wanted(Terminal())


def test_no_bar_in_piped_output_or_with_quiet(project):
    for i in range(3):
        project.write(f"u{i}.c", "void f(void) { SLOW; }\n")
    r = project.call("check", "-j", "1", ".")
    assert "\r" not in r.err and "\x1b" not in r.err and "in flight" not in r.err


def _on_a_terminal(project, *args) -> bytes:
    import os
    import pty
    import select

    master, slave = pty.openpty()
    p = project.spawn(*args, stderr=slave, env={"TERM": "xterm"})
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closed: the run is over
            break
        if not chunk:
            break
        seen += chunk
    p.communicate(timeout=30)
    os.close(master)
    return seen


def test_bar_on_a_real_terminal_for_a_slow_run(project):
    for i in range(4):
        project.write(f"u{i}.c", "void f(void) { SLOW; }\n")
    seen = _on_a_terminal(project, "check", "-j", "1", "--no-cache", ".")
    assert b"in flight: u" in seen and b"/4 files" in seen and b"ETA" in seen, seen
    seen = _on_a_terminal(project, "check", "-q", "-j", "1", "--no-cache", ".")
    assert b"in flight" not in seen, seen


def test_the_last_count_drawn_is_the_summarys(project):
    """A unit included by another leaves the total, as it leaves the summary's file count."""
    project.write("top.c", '#include "generic/part.c"\nvoid f(void) { SLOW; }\n')
    project.write("generic/part.c", "void g(void) { SLOW; }\n")
    for i in range(3):
        project.write(f"u{i}.c", "void f(void) { SLOW; }\n")
    seen = _on_a_terminal(project, "check", "-j", "1", "--no-cache", ".").decode()
    counts = re.findall(r"checking (\d+)/(\d+) files", seen)
    summary = re.search(r"in (\d+) files", seen)
    assert counts and summary, seen
    assert counts[-1] == (summary[1], summary[1]) == ("4", "4"), seen
    assert "(1 included by others)" in seen and "in flight: u" in seen, seen
