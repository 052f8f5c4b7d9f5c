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
