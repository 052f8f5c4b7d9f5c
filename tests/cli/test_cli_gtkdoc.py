"""The glib preset reads the project's own gtk-doc annotations across units (issue 32, glib25):
a function defined and documented in one unit, called from another through its header."""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

HEADER = """
#include <glib.h>
GPtrArray *store_validate (GObject *self);
"""
# The definition's own body returns a field (inferred borrowed); its comment says otherwise.
STORE = """
#include <glib-object.h>
#include "store.h"
typedef struct { GObject parent; GPtrArray *problems; } Store;
/**
 * store_validate:
 * @self: a store
 *
 * Returns: (transfer container) (element-type utf8): the problems
 */
GPtrArray *
store_validate (GObject *self)
{
  return ((Store *) self)->problems;
}
"""
CALLER = """
#include <glib-object.h>
#include "store.h"
guint count_problems (GObject *self)
{
  GPtrArray *problems = store_validate (self);
  guint n = problems->len;
  g_ptr_array_unref (problems);
  return n;
}
guint count_problems_leaked (GObject *self)
{
  GPtrArray *problems = store_validate (self);
  return problems->len;
}
"""


def _glib_flags() -> list[str]:
    try:
        out = subprocess.run(["pkg-config", "--cflags", "gobject-2.0"], capture_output=True, text=True,
                             check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return shlex.split(out)


def _two_units(project, switch: str = "") -> None:
    flags = _glib_flags()
    if not flags:
        pytest.skip("no GLib development headers (pkg-config gobject-2.0)")
    project.write("refcheck.toml", f'[tool.refcheck]\npreset = "glib"\n{switch}')
    project.write("src/store.h", HEADER)
    project.write("src/store.c", STORE)
    project.write("src/caller.c", CALLER)
    build = str(project.root / "build")
    project.write("build/compile_commands.json", json.dumps([
        {"directory": build, "file": f"../src/{f}", "arguments": ["cc", *flags, "-c", f"../src/{f}"]}
        for f in ("store.c", "caller.c")]))


def test_definition_in_one_unit_annotates_calls_in_another(project):
    _two_units(project)
    r = project.run("check", "-p", "build", "--no-cache", "-j1", "--format", "json")
    found = [(f["file"], f["rule"], f["function"]) for f in json.loads(r.out)["findings"]]
    assert found == [("src/caller.c", "RC001", "count_problems_leaked")], r.out + r.err


def test_switched_off(project):
    # gtk-doc = false: the body's borrowed field again, the release is RC010 and the leak unseen.
    _two_units(project, "gtk-doc = false\n")
    r = project.run("check", "-p", "build", "--no-cache", "-j1", "--format", "json")
    found = [(f["rule"], f["function"]) for f in json.loads(r.out)["findings"]]
    assert found == [("RC010", "count_problems")], r.out + r.err


def test_configured_record_wins(project):
    _two_units(project, '[tool.refcheck.summaries.store_validate]\nreturns = "borrowed"\n')
    r = project.run("check", "-p", "build", "--no-cache", "-j1", "--format", "json")
    found = [(f["rule"], f["function"]) for f in json.loads(r.out)["findings"]]
    assert found == [("RC010", "count_problems")], r.out + r.err
