"""The per-function cache (refcheck/caches/fncache.py): an edit inside one body re-checks that function
only, anything the body does not own (a macro, a header, a typedef, a line shift, a callee that
starts to raise) is a miss, and a table that is not exactly what this user's refcheck wrote is
ignored with a warning. Every run's findings must equal a --no-cache run of the same tree."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from pathlib import Path

import pytest

from refcheck.caches import sealed
from refcheck.caches import fncache
PRELUDE = """\
#include "api.h"
#define FILL(t) THFloatTensor_fill((t), 0)
"""
API = """\
typedef struct THFloatTensor THFloatTensor;
THFloatTensor *THFloatTensor_new(void);
void THFloatTensor_free(THFloatTensor *t);
void THFloatTensor_fill(THFloatTensor *t, float v);
void THError(const char *fmt, ...);
typedef int index_t;
"""
# Four functions, one leaky (`leaky`); the prelude is 2 lines long.
BODIES = """\
void leaky(int c)
{
  THFloatTensor *t = THFloatTensor_new();
  FILL(t);
  if (c)
    THFloatTensor_free(t);
}
void clean(int c)
{
  THFloatTensor *t = THFloatTensor_new();
  FILL(t);
  THFloatTensor_free(t);
}
index_t plain(index_t c) { return c + 1; }
void other(void)
{
  THFloatTensor *t = THFloatTensor_new();
  THFloatTensor_free(t);
}
"""
COUNTS = re.compile(r"(\d+) analysed, (\d+) shared with an identical instantiation, (\d+) with nothing to find, "
                    r"(\d+) from the per-function cache")


pytestmark = pytest.mark.usefixtures("own_key_home")  # see conftest.py


def counts(r) -> dict:
    m = COUNTS.search(r.err)
    assert m, r.err
    return dict(zip(("analysed", "shared", "skipped", "cached"), map(int, m.groups())))


def fresh(project, *args):
    """The same check with no cache at all: what every cached run must equal."""
    return project.check("-q", "--no-cache", *args)


def same_as_no_cache(project, r, *args) -> None:
    ref = fresh(project, *args)
    assert (r.code, r.out) == (ref.code, ref.out), f"{r.out}\n---\n{ref.out}"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def tables(project) -> list[Path]:
    return sorted((project.root / ".refcheck_cache" / fncache.SUBDIR).glob("[!.]*.json"))


@pytest.fixture
def unit(project):
    project.write("api.h", API)
    return project.write("unit.c", PRELUDE + BODIES)


def cold(project) -> None:
    r = project.check("-q", "--statistics", "unit.c")
    assert counts(r)["cached"] == 0
    assert len(tables(project)) == 1


def test_an_edit_inside_one_body_rechecks_only_that_function(project, unit):
    cold(project)
    edit(unit, "return c + 1;", "return c + 2;")
    r = project.check("-q", "--statistics", "unit.c")
    c = counts(r)
    assert c["cached"] == 3 and c["analysed"] + c["skipped"] + c["shared"] == 1, r.err
    assert "unit.c:9:1: error:" in r.out and r.code == 1
    same_as_no_cache(project, r, "unit.c")
    # Nothing changed since: the unit cache answers; after another edit, again one function.
    edit(unit, "return c + 2;", "return c + 3;")
    assert counts(project.check("-q", "--statistics", "unit.c"))["cached"] == 3


def test_presets_reading_other_bodies_miss_every_function_after_any_edit(project, unit):
    # The glib and cpython presets read other bodies of the unit for a function's check (a
    # callback that frees its data, the destroyers of a record): one edited body may change
    # another function's findings, so every key covers every body (TH's above: one re-check).
    project.write("refcheck.toml", 'preset = "cpython"\n')
    first = project.check("-q", "--statistics", "unit.c")
    assert counts(first)["cached"] == 0
    edit(unit, "return c + 1;", "return c + 2;")
    r = project.check("-q", "--statistics", "unit.c")
    assert counts(r)["cached"] == 0, r.err
    same_as_no_cache(project, r, "unit.c")


def test_a_leak_introduced_in_one_body_is_reported(project, unit):
    cold(project)
    edit(unit, "  THFloatTensor_free(t);\n}\nindex_t", "  THFloatTensor_fill(t, 1);\n}\nindex_t")
    r = project.check("-q", "--statistics", "unit.c")
    assert counts(r)["cached"] == 3
    assert "unit.c:15:1: error: 't'" in r.out, r.out
    same_as_no_cache(project, r, "unit.c")


@pytest.mark.parametrize("what, old, new", [
    ("a macro the bodies use", "#define FILL(t) THFloatTensor_fill((t), 0)",
     "#define FILL(t) THFloatTensor_free((t))"),
    ("a header", "void THError(const char *fmt, ...);", "void THError(const char *fmt, ...); int unused;"),
    ("a typedef", "typedef int index_t;", "typedef long index_t;"),
])
def test_what_no_body_owns_makes_every_function_miss(project, unit, what, old, new):
    cold(project)
    edit(project.root / ("api.h" if old in API else "unit.c"), old, new)
    r = project.check("-q", "--statistics", "unit.c")
    assert counts(r)["cached"] == 0, (what, r.err)
    same_as_no_cache(project, r, "unit.c")


def test_a_line_shift_misses_the_functions_below_only(project, unit):
    cold(project)
    # One line more inside `clean`: `leaky` above keeps its place, the two below move.
    edit(unit, "  FILL(t);\n  THFloatTensor_free(t);", "  FILL(t);\n\n  THFloatTensor_free(t);")
    r = project.check("-q", "--statistics", "unit.c")
    assert counts(r)["cached"] == 1, r.err
    same_as_no_cache(project, r, "unit.c")


def test_alternating_errors_modes_keeps_a_table_for_each(project, unit):
    cold(project)
    r = project.check("-q", "--statistics", "--errors", "unwind", "unit.c")
    assert counts(r)["cached"] == 0 and len(tables(project)) == 2, r.err
    # After an edit, each mode is served from its own table: neither run emptied the other's.
    edit(unit, "return c + 1;", "return c + 2;")
    for mode in ("abort", "unwind"):
        r = project.check("-q", "--statistics", "--errors", mode, "unit.c")
        assert counts(r)["cached"] == 3, (mode, r.err)
        same_as_no_cache(project, r, "--errors", mode, "unit.c")
    assert len(tables(project)) == 2


def test_a_callee_that_starts_to_raise_changes_its_callers_findings(project):
    project.write("refcheck.toml", 'errors = "unwind"\nmay-raise-summaries = true\n')
    project.write("api.h", API)
    unit = project.write("unit.c", PRELUDE + """\
void helper(int c)
{
  if (c < 0)
    c = 0;
}
void caller(int c)
{
  THFloatTensor *t = THFloatTensor_new();
  helper(c);
  THFloatTensor_free(t);
}
""")
    first = project.check("-q", "--statistics", "unit.c")
    assert first.code == 0 and "caller" not in first.out, first.out
    edit(unit, "    c = 0;", "    THError(\"c\");")
    r = project.check("-q", "--statistics", "unit.c")
    assert r.code == 1 and "unit.c:11:" in r.out, r.out
    assert counts(r)["cached"] == 0  # the raising set changed: every key did
    same_as_no_cache(project, r, "unit.c")


def _reseal(table: Path, body: bytes, secret: bytes) -> None:
    mac = hmac.new(secret, b"functions\n" + table.name.encode() + b"\n" + body, hashlib.sha256).hexdigest()
    table.write_bytes(fncache.MAGIC + mac.encode() + b"\n" + body)


def _body(table: Path) -> bytes:
    return table.read_bytes().split(b"\n", 2)[2]


def _secret(home: Path) -> bytes:
    return (home / "refcheck" / "cache-key").read_bytes().strip()


def _forged_clean(body: bytes) -> bytes:
    """Every entry emptied: the leak would vanish if the table were believed."""
    doc = json.loads(body)
    for v in doc["entries"].values():
        v["findings"] = []
    return json.dumps(doc).encode()


def _location_elsewhere(body: bytes) -> bytes:
    doc = json.loads(body)
    for v in doc["entries"].values():
        for f in v["findings"]:
            f["location"]["file"] = "/etc/passwd"
    return json.dumps(doc).encode()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "unsealed", "another key", "bad value under a valid MAC",
                                    "nan count under a valid MAC"])
def test_a_damaged_or_forged_table_is_a_miss_with_a_warning(project, unit, own_key_home, damage):
    cold(project)
    expected = fresh(project, "unit.c")
    [table] = tables(project)
    body = _body(table)
    if damage == "garbage":
        table.write_bytes(b"\x00not a table\xff" * 10)
    elif damage == "truncated":
        table.write_bytes(table.read_bytes()[:-40])
    elif damage == "unsealed":
        table.write_bytes(fncache.MAGIC + b"0" * 64 + b"\n" + _forged_clean(body))
    elif damage == "another key":
        _reseal(table, _forged_clean(body), b"x" * 64)
    elif damage == "bad value under a valid MAC":
        _reseal(table, _location_elsewhere(body), _secret(own_key_home))
    else:
        doc = json.loads(body)
        next(iter(doc["entries"].values()))["counts"] = {"analysed": float("nan")}
        _reseal(table, json.dumps(doc).encode(), _secret(own_key_home))
    # An edit elsewhere, so that the unit's own entry misses and the table is consulted.
    edit(unit, "return c + 1;", "return c + 1 ;")
    r = project.check("-q", "--statistics", "unit.c")
    assert counts(r)["cached"] == 0, r.err
    assert r.err.count("per-function cache table") == 1, r.err
    assert (r.code, r.out) == (expected.code, expected.out)
    # Rewritten whole by that run: the next one is served again (all but the edited function).
    edit(unit, "return c + 1 ;", "return c + 1;")
    assert counts(project.check("-q", "--statistics", "unit.c"))["cached"] == 3


def test_a_symlinked_table_is_refused(project, unit, tmp_path):
    cold(project)
    [table] = tables(project)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(table.read_bytes())
    table.unlink()
    table.symlink_to(elsewhere)
    edit(unit, "return c + 1;", "return c + 2;")
    r = project.check("-q", "--statistics", "unit.c")
    assert counts(r)["cached"] == 0 and "symbolic link" in r.err, r.err
    same_as_no_cache(project, r, "unit.c")
    assert elsewhere.read_bytes().startswith(fncache.MAGIC)  # replaced the link, not written through
    assert not table.is_symlink()


def test_a_symlinked_functions_directory_is_not_written_through(project, unit, tmp_path):
    cold(project)
    target = tmp_path / "target"
    target.mkdir()
    functions = project.root / ".refcheck_cache" / fncache.SUBDIR
    for t in functions.iterdir():
        t.unlink()
    functions.rmdir()
    functions.symlink_to(target)
    edit(unit, "return c + 1;", "return c + 2;")
    r = project.check("-q", "--statistics", "unit.c")
    assert list(target.iterdir()) == []
    same_as_no_cache(project, r, "unit.c")


GENERIC = """\
void TH_NAME(leak)(int c)
{
  THFloatTensor *t = THFloatTensor_new();
#if TH_IS_FLOAT
  if (c)
#endif
    THFloatTensor_free(t);
}
int TH_NAME(count)(int c)
{
  return c * 2;
}
"""


def _generic_unit(which: str) -> str:
    out = PRELUDE
    for kind, flt in (("Float", 1), ("Double", 0)):
        out += (f"#define TH_NAME(n) TH{kind}{which}_##n\n#define TH_IS_FLOAT {flt}\n"
                f'#include "generic/g.c"\n#undef TH_NAME\n#undef TH_IS_FLOAT\n')
    return out


def test_two_workers_over_units_sharing_a_generic_file(project):
    project.write("api.h", API)
    generic = project.write("generic/g.c", GENERIC)
    project.write("a.c", _generic_unit("A"))
    project.write("b.c", _generic_unit("B"))
    args = ("-q", "--statistics", "-j", "2", "a.c", "b.c")
    r = project.check(*args)
    assert counts(r)["cached"] == 0 and len(tables(project)) == 2
    assert only_float_leaks(project)
    edit(generic, "return c * 2;", "return c * 3;")
    r = project.check(*args)
    c = counts(r)
    assert c["cached"] == 4 and c["analysed"] + c["skipped"] + c["shared"] == 4, r.err
    same_as_no_cache(project, r, "-j", "2", "a.c", "b.c")
    assert only_float_leaks(project)


def only_float_leaks(project) -> bool:
    """Only the Float instantiations leak: same body bytes, other macros, other results."""
    r = project.check("-q", "--format", "json", "-j", "2", "a.c", "b.c")
    [finding] = json.loads(r.out)["findings"]
    return finding["instantiations"] == ["THFloatA_leak", "THFloatB_leak"]


def test_no_cache_writes_nothing(project, unit):
    r = project.check("-q", "--no-cache", "--statistics", "unit.c")
    assert counts(r)["cached"] == 0
    assert not (project.root / ".refcheck_cache").exists()


def test_a_unit_with_parse_errors_is_never_served(project, unit):
    edit(unit, "return c + 1;", "return c + undeclared;")
    project.check("-q", "unit.c")
    assert tables(project) == []
    edit(unit, "return c + undeclared;", "return c + undeclared2;")
    r = project.check("-q", "--statistics", "unit.c")
    assert counts(r)["cached"] == 0
    same_as_no_cache(project, r, "unit.c")


def test_the_table_is_pruned_by_the_cache_age_rule(project, unit):
    cold(project)
    [table] = tables(project)
    stale = table.parent / ("0" * 40 + ".json")
    stale.write_bytes(table.read_bytes())
    foreign = table.parent / ("1" * 40 + ".json")
    foreign.write_bytes(b"not ours")
    old = os.stat(table).st_mtime - sealed.PRUNE_AFTER_SECONDS - 10
    os.utime(stale, (old, old))
    os.utime(foreign, (old, old))
    edit(unit, "return c + 1;", "return c + 2;")
    project.check("-q", "unit.c")
    assert not stale.exists() and foreign.exists()


def test_a_lambda_is_cached_with_its_enclosing_function(project):
    project.write("api.h", API)
    unit = project.write("u.cpp", """\
#include "api.h"
void outer(int c)
{
  auto f = [](int d) {
    THFloatTensor *t = THFloatTensor_new();
    if (d)
      THFloatTensor_free(t);
  };
  f(c);
}
int plain(int c) { return c + 1; }
""")
    first = project.check("-q", "--statistics", "u.cpp")
    assert "u.cpp:8:3: error:" in first.out, first.out
    edit(unit, "return c + 1;", "return c + 2;")
    r = project.check("-q", "--statistics", "u.cpp")
    assert counts(r)["cached"] == 2, r.err  # `outer` and the lambda inside it
    assert "functions 3" in r.err
    same_as_no_cache(project, r, "u.cpp")


def test_a_recheck_parses_without_the_detailed_record_and_finds_the_same(tmp_path, monkeypatch):
    # A unit whose table exists is most likely re-checked after an edit: the parse skips the
    # detailed preprocessing record (only instance keys need it); without a table it keeps it.
    from refcheck.driver import engine
    from refcheck.conventions import Conventions
    from refcheck.frontend import unit as unit_mod

    (tmp_path / "api.h").write_text(API)
    path = tmp_path / "unit.c"
    path.write_text(PRELUDE + BODIES)
    seen = []
    real = unit_mod.parse
    monkeypatch.setattr(unit_mod, "parse",
                        lambda p, a, detailed=True, **kw: seen.append(detailed) or real(p, a, detailed, **kw))
    settings = engine.Settings(conventions=Conventions(), root=str(tmp_path), function_cache=str(tmp_path / "c"),
                               unit_key="k" * 40)
    first = engine.check_unit(str(path), settings)
    edit(path, "  FILL(t);\n  if (c)", "  FILL((t));\n  if (c)")
    second = engine.check_unit(str(path), settings)
    assert seen == [True, False]
    assert second.counts.get("cached") == 3
    fresh_result = engine.check_unit(str(path), engine.Settings(conventions=Conventions(), root=str(tmp_path)))
    assert second.findings == fresh_result.findings == first.findings and len(first.findings) == 1
