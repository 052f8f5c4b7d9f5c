"""Issue 15: a gate that cannot be fooled. Each test is an attack or an accident that hung the
run, lost its results or made it lie before the fix (a forged cache entry, a FIFO, a killed
parent, a hostile file name, a symlinked output, a nan option, a memory bomb)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import pathological as gen
from pathological import GOOD_FINDING
from robust_cli import assert_good_intact

from refcheck.caches import cache as cache_mod
from refcheck.caches import sealed  # noqa: E402
from refcheck.caches.cache import Cache, FileHasher, Invalid, dump_result, load_result
from refcheck.findings import Finding, Location, UnitResult

LEAK_LINE = "good.c:11:1: error:"


pytestmark = pytest.mark.usefixtures("own_key_home")  # see conftest.py


def no_traceback(r) -> None:
    assert "Traceback" not in r.err and "internal error" not in r.err + r.out, r.err


def entry_files(project) -> list[Path]:
    return sorted((project.root / ".refcheck_cache" / "entries").glob("[!.]*.json"))


def reseal(entry: Path, body: dict, secret: bytes) -> None:
    """Writes `body` as an entry that carries a valid MAC under `secret`."""
    raw = json.dumps(body).encode()
    key = entry.name[:-len(".json")]
    mac = hmac.new(secret, key.encode() + b"\n" + raw, hashlib.sha256).hexdigest().encode()
    entry.write_bytes(cache_mod.MAGIC + mac + b"\n" + raw)


def body_of(entry: Path) -> dict:
    return json.loads(entry.read_bytes().split(b"\n", 2)[2])


# --- the cache as a trust boundary --------------------------------------------------------------

def test_a_forged_clean_entry_cannot_hide_a_leak(project):
    cold = project.check("good.c")
    assert cold.code == 1 and GOOD_FINDING in cold.out
    (entry,) = entry_files(project)
    forged = body_of(entry)
    forged["result"]["findings"] = []
    # What a pull request could commit: the entry without a MAC, as the old format had none,
    # and one sealed with a key of its own.
    for content in (json.dumps(forged).encode(),
                    cache_mod.MAGIC + b"0" * 64 + b"\n" + json.dumps(forged).encode()):
        entry.write_bytes(content)
        r = project.check("good.c")
        assert r.code == 1 and GOOD_FINDING in r.out, (content[:40], r.out, r.err)
        assert "ignored 1 cache entry" in r.err
    reseal(entry, forged, b"the attacker's own key, not ours")
    r = project.check("good.c")
    assert r.code == 1 and GOOD_FINDING in r.out


def test_an_entry_from_another_key_is_a_miss(project, monkeypatch):
    monkeypatch.setenv(sealed.KEY_ENV, "ci-secret-for-trusted-branches-1")
    assert project.check("good.c").code == 1
    monkeypatch.setenv(sealed.KEY_ENV, "another-machine-another-secret-2")
    r = project.check("--statistics", "good.c")
    assert r.code == 1 and GOOD_FINDING in r.out
    assert "0 from cache" in r.err


def test_the_key_file_is_private_and_outside_the_tree(project, own_key_home):
    project.check("good.c")
    key = own_key_home / "refcheck" / "cache-key"
    assert key.is_file() and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert not str(key).startswith(str(project.root / ".refcheck_cache"))
    # A key others can read is no secret: the cache is off, loudly, and the run is right.
    key.chmod(0o644)
    r = project.check("good.c")
    assert r.code == 1 and GOOD_FINDING in r.out
    assert "not using the cache" in r.err


def test_values_are_validated_even_under_a_valid_mac(project, own_key_home):
    """Defence in depth: an entry with our MAC (a bug, a leaked key) is still checked."""
    assert project.check("good.c").code == 1
    (entry,) = entry_files(project)
    secret = (own_key_home / "refcheck" / "cache-key").read_bytes().strip()
    good = body_of(entry)
    finding = good["result"]["findings"][0]
    bad_results = [
        {**good["result"], "findings": [{**finding, "location": {**finding["location"], "line": float("inf")}}]},
        {**good["result"], "functions": 1e400},
        {**good["result"], "findings": [{**finding, "location": {"file": "/etc/passwd", "line": 1, "column": 1}}]},
        {**good["result"], "findings": [{**finding, "location": {"file": "../../../etc/passwd", "line": 1,
                                                                   "column": 1}}]},
        {**good["result"], "findings": [{**finding, "message": "x" * 300_000}]},
        {**good["result"], "includes": ["/dev/zero"]},
    ]
    for result in bad_results:
        reseal(entry, {**good, "result": result}, secret)
        r = project.check("--format", "html", "good.c")
        assert r.code == 1, r.err
        no_traceback(r)
        assert "root:" not in r.out  # nothing of /etc/passwd in the report
        assert "ignored 1 cache entry" in r.err


def test_load_result_rejects_what_it_does_not_expect():
    loc = Location("a.c", 3, 4)
    good = dump_result(UnitResult("a.c", [Finding("RC001", "leak", loc, "f", "m")], functions=1,
                                  includes=["/p/a.c"]))
    assert load_result(json.loads(json.dumps(good)), {"a.c"}).functions == 1
    for bad in ({**good, "functions": True}, {**good, "functions": -1},
                {**good, "timings": {"parse": float("nan")}},
                {**good, "errors": [{"file": "a.c", "message": "m", "line": 0, "column": 0,
                                     "severity": "fatal"}]}):
        with pytest.raises(Invalid):
            load_result(bad, {"a.c"})
    with pytest.raises(Invalid):
        load_result(good, {"b.c"})  # a location outside the unit's own files


def test_a_symlinked_entries_directory_is_neither_written_nor_pruned(project, tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    settings = victim / "settings.json"
    settings.write_text("{}")
    old = time.time() - 30 * 24 * 3600
    os.utime(settings, (old, old))
    (project.root / ".refcheck_cache").mkdir()
    (project.root / ".refcheck_cache" / "entries").symlink_to(victim)
    r = project.check("good.c")
    assert r.code == 1 and GOOD_FINDING in r.out
    assert settings.exists()
    assert sorted(p.name for p in victim.iterdir()) == ["settings.json"]
    assert "symbolic link" in r.err


def test_pruning_deletes_only_what_refcheck_wrote(project):
    d = project.root / ".refcheck_cache" / "entries"
    d.mkdir(parents=True)
    foreign = d / ("a" * 40 + ".json")  # our name, not our contents
    foreign.write_text('{"precious": true}')
    notes = d / "notes.json"
    notes.write_text("{}")
    ours = d / ("b" * 40 + ".json")
    ours.write_bytes(cache_mod.MAGIC + b"0" * 64 + b"\n{}")
    old = time.time() - 30 * 24 * 3600
    for f in (foreign, notes, ours):
        os.utime(f, (old, old))
    project.check("good.c")
    assert foreign.exists() and notes.exists() and not ours.exists()


def test_a_file_changed_during_the_run_is_not_cached(tmp_path):
    """The worker may have parsed the bytes of either side of an edit; the entry must not
    record the new (or restored) bytes with the old result."""
    unit = tmp_path / "u.c"
    unit.write_text("buggy")
    time.sleep(0.1)
    since = time.time_ns()
    directory = str(tmp_path / "cache")
    hasher = FileHasher()
    assert hasher.read(str(unit)) == b"buggy"  # what the run read before the parse
    unit.write_text("fixed")  # edited while the worker parses
    Cache(directory, since_ns=since).store("k" * 40, str(unit), UnitResult("u.c"), hasher)
    unit.write_text("buggy")  # and restored: the bytes match, the time does not
    Cache(directory, since_ns=since).store("k" * 40, str(unit), UnitResult("u.c"), hasher)
    assert not (tmp_path / "cache" / "entries" / ("k" * 40 + ".json")).exists()
    time.sleep(0.1)
    later = FileHasher()
    later.read(str(unit))
    Cache(directory, since_ns=time.time_ns()).store("k" * 40, str(unit), UnitResult("u.c"), later)
    assert (tmp_path / "cache" / "entries" / ("k" * 40 + ".json")).exists()


def test_a_header_that_was_missing_is_read_once_it_is_back(project):
    project.write("a.c", '#include "leak.h"\n')
    first = project.check("a.c")
    assert first.code == 2 and "file not found" in first.out
    project.write("leak.h", gen.GOOD.replace("good.c", "leak.h"))
    second = project.check("a.c")
    assert "file not found" not in second.out, second.out
    assert second.code == 1, second.out


def test_the_builtin_header_directory_is_part_of_the_key(project, monkeypatch):
    project.write("s.c", "#include <stddef.h>\nsize_t n;\n")
    assert project.check("s.c").code == 0
    # Another resource directory whose stddef.h declares no size_t: a cached result would say 0.
    other = project.root / "other-headers"
    (other / "include").mkdir(parents=True)
    (other / "include" / "stddef.h").write_text("/* no size_t here */\n")
    monkeypatch.setenv("REFCHECK_RESOURCE_DIR", str(other))
    r = project.check("s.c")
    assert r.code == 2 and "size_t" in r.out, (r.out, r.err)


def test_the_key_watches_the_cuda_roots_the_frontend_probes():
    from refcheck.frontend import unit

    assert cache_mod.CUDA_ROOTS == unit.CUDA_ROOTS


# --- inputs that block or flood ------------------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifos_devices_and_huge_files_are_per_file_errors(project):
    os.mkfifo(project.root / "fifo.c")
    (project.root / "zero.c").symlink_to("/dev/zero")
    project.write("refcheck.toml", "max-file-size = 1\n")
    project.write("huge.c", "int x;\n" + "/" + "*" * (2 << 20) + "*/\n")
    for args in (["."], ["fifo.c", "zero.c", "huge.c", "good.c"]):
        started = time.monotonic()
        r = project.check(*args, timeout=60)
        assert time.monotonic() - started < 60
        no_traceback(r)
        assert_good_intact(r)
        assert r.code == 2
        assert any("FIFO" in line for line in r.lines_about("fifo.c")), r.out
        assert any("character device" in line for line in r.lines_about("zero.c")), r.out
        assert any("larger than" in line for line in r.lines_about("huge.c")), r.out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_or_deep_baseline_is_a_usage_error_not_a_hang(project):
    os.mkfifo(project.root / "base.json")
    r = project.check("--baseline", "base.json", "good.c", timeout=60)
    assert r.code == 2 and "FIFO" in r.err
    project.write("deep.json", "[" * 100_000 + "]" * 100_000)
    r = project.check("--baseline", "deep.json", "good.c", timeout=60)
    assert r.code == 2 and "not a refcheck baseline" in r.err
    no_traceback(r)


# --- workers die with the parent -----------------------------------------------------------------

def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        out.extend(int(c) for c in text)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killing_the_parent_leaves_no_worker_and_closes_the_pipe(project):
    project.write("slow.c", gen.flat_branches(20_000))
    env = {k: v for k, v in os.environ.items() if k != "REFCHECK_DEBUG"}
    parent = subprocess.Popen([sys.executable, "-m", "refcheck", "check", "-j", "2", "--no-cache",
                               "--timeout", "300", "."], cwd=project.root, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while time.monotonic() < deadline and not workers:
            time.sleep(0.2)
            workers = _children(parent.pid)
        assert workers, "no worker started"
        time.sleep(1)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        # `refcheck ... | cat`: the reader sees end-of-file once no process holds stdout.
        done = threading.Event()
        threading.Thread(target=lambda: (parent.stdout.read(), done.set()), daemon=True).start()
        assert done.wait(20), "a worker still holds the run's stdout"
        for w in workers:
            for _ in range(50):
                if not _alive(w):
                    break
                time.sleep(0.1)
            assert not _alive(w), f"worker {w} outlived its parent"
    finally:
        for w in _children(parent.pid) if parent.poll() is None else []:
            os.kill(w, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()


# --- names are data ------------------------------------------------------------------------------

@pytest.mark.skipif(sys.platform != "linux", reason="needs arbitrary bytes in file names")
def test_any_byte_in_a_file_name_survives_every_format(project):
    leak = gen.GOOD
    names = [b"bad\xff.c", b"evil\nx.c:1:1: error: forged [RC001 leak]\n.c", b"<script>alert(1)<script>.c",
             b"esc\x1b[31mred.c"]
    for name in names:
        (project.root / os.fsdecode(name)).write_text(leak)
    for fmt in ("text", "json", "sarif", "github", "html"):
        # libclang cannot open bad\xff.c (its API takes UTF-8): a per-file error that names it.
        r = project.check("--format", fmt, "--no-show-source", ".")
        no_traceback(r)
        assert r.code == 2, (fmt, r.err)
        out_file = project.root / f"report.{fmt}"
        ro = project.check("--format", fmt, "-o", str(out_file), ".")
        assert ro.code == 2, (fmt, ro.err)
        data = out_file.read_bytes()
        data.decode("utf-8")  # valid UTF-8, whatever the names
        out_file.unlink()
        if fmt in ("json", "sarif"):
            json.loads(data)
        if fmt == "text":
            assert "bad\\xff.c: error: not checked: the file name is not valid UTF-8" in r.out
            assert GOOD_FINDING in r.out
            assert not any(line.startswith("x.c:1:1: error: forged") for line in r.out.splitlines())
            assert "\x1b" not in r.out
        if fmt == "html":
            assert "<script>" not in r.out
        if fmt == "github":
            assert all(line.startswith("::") for line in r.out.splitlines()), r.out


# --- outputs are regular files, written atomically ----------------------------------------------

def test_outputs_never_write_through_a_symlink(project, tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("precious\n")
    (project.root / "report.txt").symlink_to(target)
    (project.root / "base.json").symlink_to(target)
    for args in (["-o", "report.txt"], ["--write-baseline", "base.json"]):
        r = project.check(*args, "good.c")
        assert r.code == 2 and "symbolic link" in r.err, (args, r.err)
        assert target.read_text() == "precious\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_output_is_written_through_not_replaced(project):
    fifo = project.root / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def reader():
        with open(fifo, "rb") as f:
            got.append(f.read())

    for args in (["--write-baseline", str(fifo)], ["--format", "json", "-o", str(fifo)]):
        got.clear()
        t = threading.Thread(target=reader, daemon=True)
        t.start()
        time.sleep(0.2)
        r = project.check(*args, "good.c", timeout=60)
        t.join(20)
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode), args
        assert got and json.loads(got[0]), (args, r.err)


def test_output_to_a_directory_is_refused(project):
    (project.root / "outdir").mkdir()
    from refcheck.support import safeio
    with pytest.raises(safeio.UnwritableFile):
        safeio.write_file(str(project.root / "outdir"), b"x")


# --- numeric options -----------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e300", "0", "-1", "abc"])
def test_timeout_must_be_a_finite_positive_number(project, value):
    r = project.check("--timeout", value, "good.c", timeout=30)
    assert r.code == 2 and "--timeout" in r.err, r.err
    no_traceback(r)


@pytest.mark.parametrize("line", ["timeout = inf", "timeout = nan", "function-seconds = -inf",
                                  "max-memory = 10", "max-file-size = 0"])
def test_numeric_settings_must_be_finite_and_sensible(project, line):
    project.write("refcheck.toml", line + "\n")
    r = project.check("good.c", timeout=30)
    assert r.code == 2 and line.split(" ")[0] in r.err, r.err
    no_traceback(r)


# --- a per-worker memory bound -------------------------------------------------------------------

def memory_bomb() -> str:
    lines = ["#define A0 x"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, 40)]
    return "\n".join(lines + ["int f(void) { int x = 0; return A32; }", ""])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
def test_a_unit_over_the_memory_bound_is_not_checked_and_the_run_goes_on(project):
    project.write("bomb.c", memory_bomb())
    r = project.check("-j", "1", "--max-memory", "1200", "--timeout", "300", ".", timeout=300)
    no_traceback(r)
    assert_good_intact(r)
    assert r.code == 2
    assert [line for line in r.out.splitlines() if line.startswith("bomb.c")] == [
        "bomb.c: error: not checked: out of memory (over the per-worker bound of 1200 MiB, "
        "max-memory) [tool]",
        "bomb.c: note: hint: --max-memory MIB, or max-memory = MIB in [tool.refcheck]"], r.out
