"""What refcheck must never do (run commands, write elsewhere, print absolute paths) and the
bounds that keep one function or unit from holding a CI job hostage, with the real engine."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path

import pathological as gen
from robust_cli import Project, assert_good_intact, assert_no_traceback


def _snapshot(top: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under `top` with its mode and contents (mtimes lie on coarse filesystems)."""
    files = {}
    for dirpath, _dirs, names in os.walk(top):
        for name in names:
            path = Path(dirpath, name)
            files[str(path.relative_to(top))] = (path.stat().st_mode, path.read_bytes())
    return files


def test_writes_only_its_cache_and_the_output_file_and_runs_no_commands(tmp_path):
    project = Project(tmp_path / "proj")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "keep.txt").write_text("untouched\n")
    markers = [Path("/tmp") / f"PWNED_{uuid.uuid4().hex}" for _ in range(4)]
    command = (f"cc -c good.c; touch {markers[0]} && cc $(touch {markers[1]}) "
               f"`touch {markers[2]}` | touch {markers[3]}")
    project.write("build/compile_commands.json", json.dumps([
        {"directory": str(project.root), "file": "good.c", "command": command}]))
    project.write("refcheck.toml", 'compile-commands = "build"\nclang-args = ["-DX=$(touch %s)"]\n'
                  % markers[0])
    before = _snapshot(tmp_path)

    r = project.check("--format", "sarif", "-o", "report.sarif", "good.c")

    assert r.code == 1, r.err
    assert_no_traceback(r)
    assert not [m for m in markers if m.exists()]
    after = _snapshot(tmp_path)
    changed = sorted(k for k in after if before.get(k) != after[k])
    assert "proj/report.sarif" in changed
    assert [k for k in changed if k != "proj/report.sarif"
            and not k.startswith("proj/.refcheck_cache/")] == []
    assert set(before) <= set(after)
    assert "good.c" in (project.root / "report.sarif").read_text()


def _paths_in(value, key: str = "") -> list[str]:
    """Every string under a key that names a file or URI, anywhere in a JSON document."""
    if isinstance(value, dict):
        # SARIF's originalUriBaseIds is where the root is meant to be absolute: the one base
        # every result's relative uri resolves against.
        return [p for k, v in value.items() if k != "originalUriBaseIds" for p in _paths_in(v, k)]
    if isinstance(value, list):
        return [p for v in value for p in _paths_in(v, key)]
    if isinstance(value, str) and key in ("file", "uri", "path"):
        return [value]
    return []


def test_reported_paths_are_relative_to_the_project_root_from_any_directory(tmp_path):
    project = Project(tmp_path)
    project.write("lib/inline.h", gen.PRELUDE +
                  "static inline void h(void) { THFloatTensor *t = THFloatTensor_new(); }\n")
    project.write("src/deep/user.c", '#include "../../lib/inline.h"\nvoid u(void) { h(); }\n')
    project.write("src/deep/broken.c", "int x = ;\n")
    sub = project.root / "src" / "deep"
    texts = {}
    for fmt in ("text", "github", "json", "sarif"):
        r = project.check("--format", fmt, "--no-cache", ".", "../../good.c", cwd=sub)
        assert r.code == 2, r.err  # tool errors win over findings
        texts[fmt] = r.out
    for line in texts["text"].splitlines():
        assert not line.startswith("/") and not line.startswith(".."), line
    assert "lib/inline.h:" in texts["text"] and "src/deep/broken.c:1:" in texts["text"]
    assert "good.c:11:1:" in texts["text"]
    assert "/" + str(tmp_path).strip("/") not in texts["github"]
    for fmt in ("json", "sarif"):
        paths = _paths_in(json.loads(texts[fmt]))
        assert paths, fmt
        assert not [p for p in paths if p.startswith(("/", "file:", ".."))], (fmt, paths)
    assert str(tmp_path) not in texts["json"]
    assert texts["sarif"].count(str(tmp_path)) == 1  # in originalUriBaseIds only


def test_function_over_the_state_bound_is_named_not_skipped(project):
    project.write("refcheck.toml", "max-states = 40\n")
    project.write("spaghetti.c", gen.goto_spaghetti(50, seed=1))
    r = project.check("-j", "2", ".")
    assert r.code == 2, r.err  # tool errors win over findings
    assert_no_traceback(r)
    assert_good_intact(r)  # good.c fits in 40 states
    lines = [line for line in r.out.splitlines() if line.startswith("spaghetti.c")]
    assert lines == ["spaghetti.c:5:5: error: function 'spaghetti' not fully checked: "
                     "more than 40 states [tool]"], lines


def test_function_over_the_time_bound_is_named_not_skipped(project):
    project.write("refcheck.toml", "function-seconds = 0.05\n")
    project.write("branches.c", gen.flat_branches(8_000))
    r = project.check("-j", "2", ".")
    assert r.code == 2, r.err  # tool errors win over findings
    assert_good_intact(r)
    lines = [line for line in r.out.splitlines() if line.startswith("branches.c")]
    assert lines == ["branches.c:5:5: error: function 'branches' not fully checked: "
                     "time limit reached [tool]"], lines


def test_unit_over_the_time_limit_is_killed_and_the_run_goes_on(project):
    project.write("branches.c", gen.flat_branches(20_000))
    started = time.monotonic()
    r = project.check("-j", "1", "--timeout", "1", ".")
    assert time.monotonic() - started < 30
    assert r.code == 2, r.err  # tool errors win over findings
    assert_no_traceback(r)
    assert_good_intact(r)
    lines = [line for line in r.out.splitlines() if line.startswith("branches.c")]
    assert lines == ["branches.c: error: not checked: took longer than 1 s "
                     "(the per-unit limit, --timeout) [tool]",
                     "branches.c: note: hint: --timeout SECONDS, or timeout = SECONDS in [tool.refcheck]"], lines
