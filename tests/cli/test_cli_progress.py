"""The progress bar: on a terminal after a second, never in CI or in a pipe."""

from __future__ import annotations

import io

from refcheck.progress import Progress, wanted


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_draws_on_a_terminal_and_clears_itself():
    out = Terminal()
    p = Progress(3, enabled=True, stream=out, delay=0.0)
    for name in ("a.c", "b.c", "c.c"):
        p.advance(name)
    assert "3/3" in out.getvalue() and "c.c" in out.getvalue() and "[" in out.getvalue()
    p.close()
    assert out.getvalue().endswith("\r")


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
    p.close()
    assert out.getvalue() == ""


def test_wanted_only_on_a_terminal_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    assert wanted(Terminal())
    assert not wanted(io.StringIO())
    monkeypatch.setenv("CI", "true")
    assert not wanted(Terminal())


def test_no_bar_in_piped_output(project):
    for i in range(3):
        project.write(f"u{i}.c", "void f(void) { SLOW; }\n")
    r = project.call("check", "-j", "1", ".")
    assert "\r" not in r.err and "[" not in r.err


def test_bar_on_a_real_terminal_for_a_slow_run(project):
    import os
    import pty
    import select

    for i in range(4):
        project.write(f"u{i}.c", "void f(void) { SLOW; }\n")
    master, slave = pty.openpty()
    p = project.spawn("check", "-j", "1", "--no-cache", ".", stderr=slave)
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
    assert b"4/4" in seen and b"\r" in seen, seen
