"""The progress bar: rich's, on a terminal after a second, never in CI or in a pipe."""

from __future__ import annotations

import io
import time

from refcheck.driver.progress import Progress, wanted


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_draws_elapsed_in_flight_and_eta_and_clears_itself():
    out = Terminal()
    p = Progress(3, enabled=True, stream=out, delay=0.0, workers=2)
    time.sleep(0.3)  # the timer thread starts the bar
    p.advance("a.c")
    time.sleep(0.4)
    drawn = out.getvalue()
    assert "1/3" in drawn and "2 in flight" in drawn and "elapsed" in drawn and "ETA" in drawn
    p.close()
    # transient: the last thing written erases the bar's line
    assert out.getvalue() != drawn and "\x1b[2K" in out.getvalue()[len(drawn):]


def test_keeps_ticking_while_one_long_unit_runs():
    """No unit finishes, yet the bar is redrawn with a growing elapsed time."""
    out = Terminal()
    p = Progress(1, enabled=True, stream=out, delay=0.0)
    time.sleep(2.6)
    text = out.getvalue()
    p.close()
    assert "0:00:00" in text and "0:00:02" in text, text


def test_skipped_units_leave_the_total():
    out = Terminal()
    p = Progress(4, enabled=True, stream=out, delay=0.0, workers=8)
    time.sleep(0.3)
    p.skip()
    p.advance()
    time.sleep(0.4)
    assert "1/3" in out.getvalue() and "2 in flight" in out.getvalue()
    p.close()


def test_silent_during_the_first_second():
    out = Terminal()
    p = Progress(3, enabled=True, stream=out, delay=60.0)
    p.advance("a.c")
    p.close()
    assert out.getvalue() == ""


def test_disabled_draws_nothing():
    out = Terminal()
    p = Progress(3, enabled=False, stream=out, delay=0.0)
    p.advance("a.c")
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
    assert b"in flight" in seen and b"/4" in seen and b"ETA" in seen, seen
    seen = _on_a_terminal(project, "check", "-q", "-j", "1", "--no-cache", ".")
    assert b"in flight" not in seen, seen
