"""What a worker imports before and after its first parse: the engine itself stays light, and the
modules a check needs once its parse is done are imported beside the parse (preloading.preload), not
after it. On a re-check served by the per-function cache those imports were a tenth of the unit's
parse."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
from refcheck.driver import engine, preloading
heavy = [m for m in ("networkx", "clang.cindex", *preloading.AFTER_PARSE) if m in sys.modules]
assert not heavy, f"importing the engine imported {heavy}"
preloading.preload()
missing = [m for m in preloading.AFTER_PARSE if m not in sys.modules]
assert not missing, f"preload left {missing}"
assert "networkx" not in sys.modules, "the check imports networkx (ir.digraph replaced it)"
print("ok")
"""


def test_the_engine_imports_light_and_preload_imports_the_rest():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


STOPPED = """
import sys
from refcheck.driver import engine, preloading
preloading.PARSED.set()  # a parse has ended: the check imports what it needs itself
preloading.preload()
assert "networkx" not in sys.modules, "preload went on after the parse"
print("ok")
"""


def test_preload_stops_once_a_parse_has_ended():
    out = subprocess.run([sys.executable, "-c", STOPPED], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_preload_never_raises(monkeypatch):
    import threading

    from refcheck.driver import preloading
    monkeypatch.setattr(preloading, "PARSED", threading.Event())
    monkeypatch.setattr(preloading, "AFTER_PARSE", ("refcheck.no_such_module", "refcheck.reuse.renaming"))
    preloading.preload()  # the check itself reports a module that cannot be imported


LAZY_PRESETS = """
from refcheck.conventions.presets import PRESETS
from refcheck.workspace import config
open("refcheck.toml", "w").write("preset = 'th'")
cfg = config.load()
built = sorted(name for name, p in PRESETS.items() if "conventions" in vars(p))
assert built == ["th"], f"choosing th built {built}"
assert len(PRESETS["glib"].conventions.library_summaries) > 1000  # built when chosen
assert PRESETS["glib"].conventions is PRESETS["glib"].conventions  # and once
print("ok")
"""


def test_a_preset_is_built_only_when_chosen(tmp_path):
    # Every start parsed the cpython and GLib tables (2,100 records, 25 ms) for the th preset.
    out = subprocess.run([sys.executable, "-c", LAZY_PRESETS], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_distinfo_reads_the_wheels_as_importlib_metadata_does():
    # frontend/headers.py asks every run for the libclang and clang-tidy wheels: distinfo reads
    # their dist-info without importing importlib.metadata (11-15 ms of each start).
    from importlib import metadata

    from refcheck.support import distinfo
    for name in ("libclang", "clang-tidy", "click"):
        dist = distinfo.find(name)
        assert dist is not None and dist.version == metadata.version(name)
        want = metadata.distribution(name)
        assert dist.files() == [str(f) for f in want.files]
        assert [dist.locate(f) for f in dist.files()[:3]] == [str(want.locate_file(f)) for f in want.files[:3]]
    assert distinfo.find("refcheck-no-such-distribution") is None


def test_distinfo_defers_to_importlib_metadata_where_the_first_is_an_egg(tmp_path, monkeypatch):
    from refcheck.support import distinfo
    egg, wheel = tmp_path / "a", tmp_path / "b"
    (egg / "Some_Pkg-1.0.egg-info").mkdir(parents=True)
    (wheel / "some_pkg-2.0.dist-info").mkdir(parents=True)
    (wheel / "some_pkg-2.0.dist-info" / "METADATA").write_text("Name: some.pkg\nVersion: 2.0\n\nbody\n")
    (wheel / "some_pkg-2.0.dist-info" / "RECORD").write_text('some_pkg/__init__.py,,\n"some_pkg/a,b.h",,\n')
    monkeypatch.setattr("sys.path", [str(wheel)])
    dist = distinfo.find("Some.Pkg")
    assert dist.version == "2.0" and dist.files() == ["some_pkg/__init__.py", "some_pkg/a,b.h"]
    monkeypatch.setattr("sys.path", [str(egg), str(wheel)])
    assert distinfo.find("some-pkg") is None  # headers.py then asks importlib.metadata


EXIT = """
import atexit, sys
atexit.register(lambda: print("exit handler ran"))
sys.argv = ["refcheck", "check", "small.c", "-j1", "--no-cache", "--format", "json"]
from refcheck.__main__ import run
run()
"""

LEAK = ("typedef struct THTensor THTensor;\nTHTensor *THTensor_new(void);\nvoid THTensor_free(THTensor *t);\n"
        "void f(int c)\n{\n  THTensor *t = THTensor_new();\n  if (c)\n    return;\n  THTensor_free(t);\n}\n")


def test_the_process_ends_without_teardown_but_with_its_exit_handlers_and_output(tmp_path):
    # __main__._exit: os._exit after the atexit handlers and a flush of the standard streams.
    (tmp_path / "small.c").write_text(LEAK)
    with open(tmp_path / "out.json", "w") as out:  # a file: stdout is block-buffered
        r = subprocess.run([sys.executable, "-c", EXIT], stdout=out, stderr=subprocess.PIPE, text=True,
                           cwd=tmp_path, timeout=120)
    text = (tmp_path / "out.json").read_text()
    assert r.returncode == 1, r.stderr
    assert text.rstrip().endswith("exit handler ran") and '"rule": "RC001"' in text
    r = subprocess.run([sys.executable, "-m", "refcheck", "check", "missing.c"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and "missing.c" in r.stderr
