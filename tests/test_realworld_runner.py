"""benchmarks/realworld.py's bookkeeping, without network or real corpora: the spec reader, the
verdicts, the comparison of two runs, laying a tree out from a local mirror, and clear messages
(no traceback) for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import realworld  # noqa: E402
from realworld import SpecError, compare, parse_spec, parse_verdicts  # noqa: E402
from realworld_results import score  # noqa: E402

GOOD = """
batch = "demo"
preset = "cpython"
[[project]]
name = "one"
source = "github:owner/one"
commit = "abc1234"
units = ["src/*.c"]
flags = ['-DV="1"', "-Isrc"]
[[project]]
name = "two"
source = "github:owner/two"
commit = "def5678"
apt = ["libfoo-dev"]
build = ["meson setup build", "ninja -C build -k 0"]
compile_commands = "build"
config = { gir = ["build/Two-1.0.gir"] }
"""


def test_spec_reader_reads_every_key():
    batch = parse_spec(GOOD)
    assert (batch.batch, batch.preset) == ("demo", "cpython")
    one, two = batch.projects
    assert one.units == ("src/*.c",) and one.flags == ('-DV="1"', "-Isrc") and one.tree == "one"
    assert two.compile_commands == "build" and two.apt == ("libfoo-dev",)
    assert two.build == ("meson setup build", "ninja -C build -k 0")
    assert two.config == (("gir", ["build/Two-1.0.gir"]),)


@pytest.mark.parametrize("text, message", [
    ('preset = "cpython"\n[[project]]\nname="a"\n', "missing key 'batch'"),
    ('batch = "b"\npreset = "cpython"\n', "no [[project]] tables"),
    ('batch = "b"\npreset = "lua"\n[[project]]\nname="a"\n', "'preset' must be one of"),
    ('batch = "b"\npreset = "glib"\n[[project]]\nname="a"\nsource="github:o/a"\nunits=["x.c"]\n',
     "project 'a': missing key 'commit'"),
    ('batch = "b"\npreset = "glib"\n[[project]]\nname="a"\nsource="github:o/a"\ncommit="1"\n',
     "needs 'units' or 'compile_commands'"),
    ('batch = "b"\npreset = "glib"\n[[project]]\nname="a"\nsource="o/a"\ncommit="1"\nunits=["x"]\n',
     "must read github:owner/name"),
    ('batch = "b"\npreset = "glib"\n[[project]]\nname="a"\nsource="github:o/a"\ncommit="1"\n'
     'units="x.c"\n', "'units' must be a list of strings"),
    ('batch = "b"\npreset = "glib"\n[[project]]\nname="a"\nsource="github:o/a"\ncommit="1"\n'
     'unit=["x.c"]\n', "unknown key(s) unit"),
    ('batch = "b"\npreset = "glib"\n' + '[[project]]\nname="a"\nsource="github:o/a"\ncommit="1"\n'
     'units=["x"]\n' * 2, "given twice: a"),
    ('batch = "b\n', "not valid TOML"),
])
def test_spec_reader_says_what_is_wrong(text, message):
    with pytest.raises(SpecError, match=None) as raised:
        parse_spec(text)
    assert message in str(raised.value)


@pytest.mark.parametrize("name", ["cpython_tuned", "cpy14", "cpy17", "cpy18", "cpy20", "cpy22",
                                  "glib"])
def test_committed_specs_read(name):
    batch = realworld.load_spec(ROOT / "benchmarks" / "corpora" / f"{name}.toml")
    assert batch.batch == name and batch.projects


def _finding(file, line, rule, function):
    return {"file": file, "line": line, "rule": rule, "function": function}


def test_verdicts_score_and_list_the_unjudged():
    verdicts = parse_verdicts("# project\tfile\tline\trule\tfunction\tverdict\twhy\n"
                              "one\ta.c\t10\tRC001\tf\ttrue\tleaks x\n"
                              "one\ta.c\t20\tRC006\tg\tfalse\tpath\n")
    findings = [_finding("a.c", 10, "RC001", "f"), _finding("a.c", 20, "RC006", "g"),
                _finding("a.c", 30, "RC001", "h")]
    counts = score("one", findings, verdicts)
    assert (counts["findings"], counts["true"], counts["false"]) == (3, 1, 1)
    assert counts["unjudged"] == [("a.c", 30, "RC001", "h")]
    with pytest.raises(SpecError, match="verdicts line 1"):
        parse_verdicts("one\ta.c\tten\tRC001\tf\ttrue\twhy\n")


def test_compare_lists_findings_gone_and_new(tmp_path):
    def write(run, project, findings):
        path = tmp_path / run / "demo" / f"{project}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"project": project, "findings": findings}))

    write("old", "one", [_finding("a.c", 1, "RC001", "f"), _finding("a.c", 2, "RC001", "g")])
    write("new", "one", [_finding("a.c", 2, "RC001", "g"), _finding("a.c", 3, "RC007", "h")])
    write("old", "gone", [_finding("b.c", 5, "RC001", "k")])
    diff = compare(realworld.load_results(tmp_path / "old"), realworld.load_results(tmp_path / "new"))
    assert diff["demo/one"]["gone"] == [("a.c", 1, "RC001", "f")]
    assert diff["demo/one"]["added"] == [("a.c", 3, "RC007", "h")]
    assert diff["demo/gone"]["new"] is None and len(diff["demo/gone"]["gone"]) == 1


def test_lay_out_from_a_mirror_and_check_args(tmp_path):
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "m.c").write_text("int f(void) { return 0; }\n")
    (work / "run.sh").write_text("#!/bin/sh\n")
    (work / "run.sh").chmod(0o755)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(work)]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "one"], check=True)
    sha = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    mirror = tmp_path / "mirror"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirror / "owner+one" / "repo")],
                   check=True)
    batch = parse_spec(GOOD.replace("abc1234", sha[:7]))
    tree = realworld.lay_out(batch.projects[0], tmp_path / "trees", mirror)
    assert (tree / "src" / "m.c").read_text().startswith("int f")
    assert (tree / "run.sh").stat().st_mode & 0o111
    assert (tree / realworld.COMMIT_MARKER).read_text().strip() == sha
    paths, extra = realworld.check_args(batch, batch.projects[0], tree)
    assert paths == ["src/m.c"] and extra[:2] == ['-DV="1"', "-Isrc"]
    assert extra[2].startswith("-I")  # the running Python's headers, for the cpython preset
    with pytest.raises(SpecError, match="no mirror of github:owner/two"):
        realworld.lay_out(batch.projects[1], tmp_path / "trees", mirror)


def test_bad_input_gets_a_message_not_a_traceback(tmp_path, capsys):
    assert realworld.main([str(tmp_path / "none.toml"), "--checkout", str(ROOT),
                           "--out", str(tmp_path / "out")]) == 2
    assert "cannot read spec" in capsys.readouterr().err
    spec = tmp_path / "demo.toml"
    spec.write_text(GOOD)
    assert realworld.main([str(spec), "--trees", str(tmp_path / "trees"), "--checkout", str(ROOT),
                           "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "demo/one: no tree at" in err and "no --mirror" in err
    assert realworld.main([str(spec)]) == 2
    assert "--checkout and --out are needed" in capsys.readouterr().err


def test_only_must_name_a_project(tmp_path, capsys):
    spec = tmp_path / "demo.toml"
    spec.write_text(GOOD)
    assert realworld.main([str(spec), "--only", "three", "--score", str(tmp_path)]) == 2
    assert "--only names no project of the spec(s): three" in capsys.readouterr().err


def test_compare_counts_two_findings_on_one_line():
    two = {"project": "p", "findings": [_finding("a.c", 7, "RC001", "f")] * 2}
    one = {"project": "p", "findings": [_finding("a.c", 7, "RC001", "f")]}
    diff = compare({"b/p": two}, {"b/p": one})["b/p"]
    assert (diff["old"], diff["new"], diff["gone"], diff["added"]) == (2, 1, [("a.c", 7, "RC001", "f")], [])


def test_bytecode_is_primed_outside_the_checkout(tmp_path):
    """--bytecode: every module of the checkout's refcheck package compiled once into the cache
    folder (one that fails to import skipped), none into the checkout, and the runs pointed at it."""
    import bytecode

    pkg = tmp_path / "checkout" / "refcheck"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "fine.py").write_text("import colorsys\nVALUE = 1\n")
    (pkg / "broken.py").write_text("raise ImportError('a GPU-only helper')\n")
    cache = tmp_path / "pyc"
    bytecode.prime(tmp_path / "checkout", cache)
    compiled = {p.name.split(".")[0] for p in cache.rglob("*.pyc")}
    assert {"__init__", "fine", "colorsys"} <= compiled
    assert not list((tmp_path / "checkout").rglob("*.pyc"))
    env = realworld._env(tmp_path / "checkout", cache)
    assert env["PYTHONPYCACHEPREFIX"] == str(cache.resolve()) and env["PYTHONDONTWRITEBYTECODE"] == "1"


def test_function_seconds_override_wins_over_the_spec(tmp_path):
    spec = GOOD.replace('config = { gir = ["build/Two-1.0.gir"] }',
                        'config = { gir = ["build/Two-1.0.gir"], function-seconds = 5 }')
    batch = parse_spec(spec)
    args = realworld._parser().parse_args(["x.toml", "--function-seconds", "600"])
    realworld.write_config(batch, batch.projects[1], tmp_path, realworld._overrides(args))
    text = (tmp_path / "refcheck.toml").read_text()
    assert 'function-seconds = 600.0' in text and "= 5" not in text
    assert 'gir = ["build/Two-1.0.gir"]' in text
    assert realworld._overrides(realworld._parser().parse_args(["x.toml"])) == ()


def test_two_findings_on_one_line_are_told_apart_by_their_subject():
    verdicts = parse_verdicts("one\ta.c\t10\tRC001\tf\tmatches\ttrue\tnever freed\n"
                              "one\ta.c\t10\tRC001\tf\tfalse\tthe list takes the rest\n")
    def leak(name):
        return {**_finding("a.c", 10, "RC001", "f"), "message": f"'{name}' (acquired by g at line 3)"}
    counts = score("one", [leak("matches"), leak("results"), leak("other")], verdicts)
    assert (counts["true"], counts["false"]) == (1, 2)
    with pytest.raises(SpecError, match="line 2: a.c:10 RC001 f '' judged both"):
        parse_verdicts("one\ta.c\t10\tRC001\tf\ttrue\tx\none\ta.c\t10\tRC001\tf\tfalse\ty\n")


def test_a_subject_may_be_the_start_of_the_message():
    # One name leaked from many calls at one return: the acquisition tells the findings apart.
    verdicts = parse_verdicts("one\ta.c\t10\tRC001\tf\t'v' (acquired by PyList_New\ttrue\tleaks\n"
                              "one\ta.c\t10\tRC001\tf\tv\tfalse\tinfeasible\n")
    def leak(call):
        return {**_finding("a.c", 10, "RC001", "f"), "message": f"'v' (acquired by {call} at line 3)"}
    counts = score("one", [leak("PyList_New"), leak("PyLong_FromLong")], verdicts)
    assert (counts["true"], counts["false"]) == (1, 1)
