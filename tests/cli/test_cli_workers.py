"""Worker isolation: crashes, hangs and Ctrl-C cost one unit (or the run, cleanly), never output."""

from __future__ import annotations

import json
import signal
import time

from refcheck.caches.cache import FORMAT as CACHE_FORMAT

from cli_helpers import analyzed

LEAKY = "void f(void) {\n  t = LEAK(1);\n}\n"


def test_a_crashing_unit_is_a_tool_error_and_the_rest_is_intact(project, fake):
    project.write("a.c", LEAKY)
    project.write("boom.c", "void f(void) { CRASH; }\n")
    project.write("z.c", LEAKY)
    r = project.run("check", "-j", "2", ".")
    assert r.code == 2  # tool errors win over findings
    assert "a.c:2:7: error:" in r.out and "z.c:2:7: error:" in r.out
    assert ("boom.c: error: not checked: the worker process died (signal SIGSEGV) "
            "while parsing or analyzing this unit [tool]") in r.out
    # The crash is not cached: the next run tries the unit again.
    fake.unlink()
    project.run("check", "-j", "2", ".")
    assert analyzed(fake) == ["boom.c"]


def test_crash_alone_exits_2(project, fake):
    project.write("boom.c", "void f(void) { CRASH; }\n")
    assert project.run("check", "-j", "1", "boom.c").code == 2


def test_a_hanging_unit_times_out(project, fake):
    project.write("a.c", LEAKY)
    project.write("hang.c", "void f(void) { HANG; }\n")
    started = time.monotonic()
    r = project.run("check", "-j", "1", "--timeout", "0.5", ".")
    assert time.monotonic() - started < 30
    assert r.code == 2  # tool errors win over findings
    assert "a.c:2:7: error:" in r.out
    assert "hang.c: error: not checked: took longer than 0.5 s" in r.out


def test_timeout_from_configuration(project, fake):
    project.write("refcheck.toml", "timeout = 0.3\n")
    project.write("hang.c", "void f(void) { HANG; }\n")
    r = project.run("check", "hang.c")
    assert r.code == 2 and "took longer than 0.3 s" in r.out


def test_engine_exception_is_reported_not_raised(project, monkeypatch):
    def broken(path, settings):
        raise ValueError("boom")
    monkeypatch.setattr("refcheck.driver.engine.check_unit", broken)
    project.write("a.c", "int x;\n")
    r = project.run("check", "a.c")
    assert r.code == 2
    assert "a.c: error: internal error: ValueError: boom [tool]" in r.out


def test_output_is_identical_for_any_number_of_jobs(project, fake):
    for i in range(7):
        project.write(f"d{i % 3}/u{i}.c", LEAKY * (i % 3 + 1))
    outs = {}
    for jobs in ("1", "2", "4"):
        for fmt in ("text", "sarif", "github"):
            outs[(jobs, fmt)] = project.run("check", "--no-cache", "-j", jobs, "--format", fmt, ".").out
    for fmt in ("text", "sarif", "github"):
        assert outs[("1", fmt)] == outs[("2", fmt)] == outs[("4", fmt)]
        assert outs[("1", fmt)]


def test_real_engine_output_identical_with_one_and_two_jobs_cold_and_warm(project):
    th = ("typedef struct T T;\nT *T_new(void);\nvoid T_free(T *t);\nvoid use(T *t);\n")
    for i in range(4):
        body = "  T *t = T_new();\n  use(t);\n" + ("  T_free(t);\n" if i % 2 else "")
        project.write(f"src/u{i}.c", th + f"void f{i}(void) {{\n{body}}}\n")
    cold1 = project.call("check", "--format", "json", "-j", "1", ".", fake=False)
    warm2 = project.call("check", "--format", "json", "-j", "2", ".", fake=False)
    cold2 = project.call("check", "--format", "json", "--no-cache", "-j", "2", ".", fake=False)
    strip = lambda s: {k: v for k, v in json.loads(s).items() if k != "stats"}  # noqa: E731
    assert cold1.code == 1, cold1.err
    assert strip(cold1.out) == strip(warm2.out) == strip(cold2.out)
    assert [f["file"] for f in strip(cold1.out)["findings"]] == ["src/u0.c", "src/u2.c"]
    text = [project.call("check", "-j", j, ".", fake=False).out for j in ("1", "2")]
    assert text[0] == text[1]


def test_ctrl_c_exits_130_promptly_and_leaves_the_cache_loadable(project):
    for i in range(12):
        project.write(f"u{i:02}.c", "void f(void) { t = LEAK(1); SLOW; }\n")
    # A terminal's child: SIGINT at its default action, whatever disposition the test runner
    # inherited (an ignored SIGINT is inherited across exec, and Python then installs no handler).
    p = project.spawn("check", "-j", "2", ".", start_new_session=True,
                      preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # Interrupt once some units are done and others are running (not on a fixed sleep: the
    # machine may be busy).
    entries_dir = project.root / ".refcheck_cache" / "entries"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(entries_dir.glob("[!.]*.json")):
        time.sleep(0.05)
    # As a terminal does: SIGINT to the whole process group, workers included.
    import os
    os.killpg(p.pid, signal.SIGINT)
    started = time.monotonic()
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert time.monotonic() - started < 5
    assert "interrupted" in err and "Traceback" not in err
    entries = list((project.root / ".refcheck_cache" / "entries").glob("[!.]*.json"))
    assert entries  # some units finished before the interrupt
    for e in entries:
        assert json.loads(e.read_bytes().split(b"\n", 2)[2])["format"] == CACHE_FORMAT  # magic, MAC, body
    # The next run finishes the job from where the cache stands.
    r = project.call("check", "-j", "2", ".")
    assert r.code == 1 and r.out.count("error:") == 12


def test_sigterm_stops_workers_and_exits_143(project):
    for i in range(8):
        project.write(f"u{i}.c", "void f(void) { HANG; }\n")
    p = project.spawn("check", "-j", "2", ".")
    time.sleep(2.0)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 143, err
    assert "terminated" in err


def test_a_worker_that_dies_while_idle_is_replaced(project, fake, monkeypatch):
    from refcheck.driver import pool
    real_worker = pool._Worker
    born = []

    class Fragile(real_worker):
        def __init__(self, ctx, options):
            super().__init__(ctx, options)
            born.append(self)
            if len(born) == 1:  # the first worker dies before it gets any work
                self.process.kill()
                self.process.join()

    monkeypatch.setattr(pool, "_Worker", Fragile)
    project.write("a.c", LEAKY)
    project.write("b.c", LEAKY)
    r = project.run("check", "-j", "1", ".")
    assert r.code == 1, r.out + r.err
    assert "a.c:2:7: error:" in r.out and "b.c:2:7: error:" in r.out and "died" not in r.out
    assert len(born) == 2
