"""[tool.refcheck] / refcheck.toml: discovery, every key's validation, presets, CLI precedence."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from refcheck.workspace import config
from refcheck.commands.cli import cli
from refcheck.workspace.config import ConfigError, parse
from refcheck.conventions.presets import PRESETS

LEAKY = "void f(void) {\n  t = LEAK(1);\n}\n"


@pytest.mark.parametrize("toml, message", [
    ("aquire = []", "key 'aquire'"),
    ("aquire = []", "did you mean 'acquire'"),
    ("acquire = ['(']", "refcheck.toml: key 'acquire': entry 0: bad regular expression '('"),
    ("acquire = 'x'", "key 'acquire': expected a list of strings, got a string"),
    ("errors = 'maybe'", "key 'errors': expected one of 'abort', 'unwind'"),
    ("jobs = 0", "key 'jobs': must be at least 1"),
    ("timeout = true", "key 'timeout': expected a number, got a boolean"),
    ("select = ['XX1']", "key 'select': unknown rule code 'XX1'"),
    ("per-path-ignores = {'tests/*' = ['RC9']}", "key 'per-path-ignores': 'tests/*': unknown rule code"),
    ("conditional-error = {'^chk$' = -1}", "key 'conditional-error'"),
    ("preset = 'gtk'", "key 'preset': expected one of 'th', 'cpython', 'glib'"),
    ("extensions = ['c']", "key 'extensions': extensions start with a dot"),
    ("acquire = [", "refcheck.toml: not valid TOML"),
])
def test_bad_configuration_names_the_key(project, fake, toml, message):
    project.write("refcheck.toml", toml + "\n")
    project.write("a.c", LEAKY)
    r = project.run("check", "a.c")
    assert r.code == 2
    assert message in r.err
    assert r.err.count("\n") == 1 and "Traceback" not in r.err


def test_pyproject_table_is_found_from_a_subdirectory_and_sets_the_root(tmp_path, fake, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.refcheck]\nignore = ['RC002']\n")
    sub = tmp_path / "src" / "deep"
    sub.mkdir(parents=True)
    (sub / "a.c").write_text(LEAKY)
    cfg = config.load(start=str(sub))
    assert cfg.path == str(tmp_path / "pyproject.toml")
    assert cfg.root == str(tmp_path)
    assert cfg.cache_dir == str(tmp_path / ".refcheck_cache")
    monkeypatch.chdir(sub)
    r = CliRunner().invoke(cli, ["check", "a.c"])
    assert r.exit_code == 1
    assert r.stdout.startswith("src/deep/a.c:2:7:"), r.stdout  # relative to the root, not the cwd


def test_pyproject_without_the_table_is_passed_over(tmp_path):
    (tmp_path / "refcheck.toml").write_text("errors = 'unwind'\n")
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert config.load(start=str(inner)).conventions.errors == "unwind"


def test_unknown_key_in_pyproject_names_the_table(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.refcheck]\nrelease-patterns = []\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml \[tool.refcheck\]: unknown key 'release-patterns'"):
        config.load(start=str(tmp_path))


def test_explicit_config_file(project, fake):
    project.write("a.c", LEAKY)
    project.write("strict.toml", "ignore = ['RC001']\n")
    assert project.run("check", "a.c").code == 1
    assert project.run("check", "--config", "strict.toml", "a.c").code == 0
    r = project.run("check", "--config", "nope.toml", "a.c")
    assert r.code == 2 and "nope.toml: configuration file not found" in r.err


def test_no_config_root_is_the_git_work_tree(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "x").mkdir()
    cfg = config.load(start=str(tmp_path / "x"))
    assert cfg.path is None and cfg.root == str(tmp_path)


def test_pattern_lists_replace_or_extend_the_preset():
    cfg = parse({"extend-release": [r"^dispose$"], "retain": [r"^grab$"]}, "t", "/p")
    conv = cfg.conventions
    assert conv.classify("dispose") == "release" and conv.classify("THFloatTensor_free") == "release"
    assert conv.classify("grab") == "retain" and conv.classify("THFloatTensor_retain") is None
    # The preset itself is untouched.
    assert PRESETS["th"].conventions.classify("dispose") is None


def test_paths_in_configuration_are_relative_to_its_file():
    cfg = parse({"include-dirs": ["include"], "defines": ["A=1"], "undefines": ["B"],
                 "std": "c99", "clang-args": ["-w"]}, "t", "/proj")
    assert cfg.fallback_args() == ["-I/proj/include", "-DA=1", "-UB", "-std=c99", "-w"]


def test_every_documented_key_is_accepted_and_every_key_documented():
    doc = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "configuration.md"),
               encoding="utf-8").read()
    for key in config.KEYS:
        assert f"`{key}`" in doc, key


def test_cpython_preset(project, fake):
    cfg = parse({"preset": "cpython"}, "t", "/p")
    conv = cfg.conventions
    assert conv.classify("Py_DECREF") == "release"
    assert conv.classify("Py_INCREF") == "retain"
    assert conv.classify("PyList_New") == "acquire"
    assert conv.classify("PyList_GetItem") is None  # borrowed
    # It steals the item (argument 2), not the container: a position of the record, no role.
    assert conv.summary("PyList_SET_ITEM").effect_of(2).value == "consume"
    assert conv.classify("PyList_SET_ITEM") is None
    assert "RC004" not in cfg.selection().selected
    assert "RC004" in parse({"preset": "cpython", "select": ["RC004"]}, "t", "/p").selection().selected


def test_glib_preset():
    conv = parse({"preset": "glib"}, "t", "/p").conventions
    assert conv.classify("g_object_unref") == "release"
    assert conv.classify("g_object_ref") == "retain"
    assert conv.classify("g_string_new") == "acquire"
    assert conv.classify("g_error") == "exit"


def test_errors_mode_from_config():
    assert parse({"errors": "unwind"}, "t", "/p").conventions.errors == "unwind"
    assert parse({}, "t", "/p").conventions.errors == "abort"


def test_per_path_ignores_and_exclude(project, fake):
    project.write("refcheck.toml", "exclude = ['third_party']\n"
                                   "[per-path-ignores]\n'tests/*' = ['RC001']\n")
    project.write("src/a.c", LEAKY)
    project.write("tests/t.c", LEAKY)
    project.write("third_party/lib/v.c", LEAKY)
    r = project.run("check", ".")
    assert r.code == 1
    assert "src/a.c" in r.out and "tests/t.c" not in r.out and "third_party" not in r.out
    from cli_helpers import analyzed
    assert analyzed(fake) == ["a.c", "t.c"]


def test_cli_select_overrides_config_select(project, fake):
    project.write("refcheck.toml", "select = ['RC002']\n")
    project.write("a.c", LEAKY)
    assert project.run("check", "a.c").code == 0
    assert project.run("check", "--select", "RC001", "a.c").code == 1


def test_cli_extend_select_adds_to_the_configured_selection(project, fake):
    project.write("refcheck.toml", "select = ['RC002']\n")
    project.write("a.c", LEAKY)
    assert project.run("check", "a.c").code == 0
    r = project.run("check", "--extend-select", "RC001", "a.c")
    assert r.code == 1 and "[RC001 leak]" in r.out
    # A prefix, as --select takes, and comma lists.
    assert project.run("check", "--extend-select", "RC003,RC00", "a.c").code == 1
    r = project.run("check", "--extend-select", "RC999", "a.c")
    assert r.code == 2 and "--extend-select: unknown rule code 'RC999'" in r.err


def test_cli_extend_select_reenables_a_configured_ignore_but_not_a_cli_ignore(project, fake):
    # The command line is a later layer than the file (ruff): its extend-select wins over the
    # file's ignore, and its own --ignore/--extend-ignore still remove.
    project.write("refcheck.toml", "ignore = ['RC001']\n")
    project.write("a.c", LEAKY)
    assert project.run("check", "a.c").code == 0
    assert project.run("check", "--extend-select", "RC001", "a.c").code == 1
    assert project.run("check", "--extend-select", "RC001", "--ignore", "RC001", "a.c").code == 0
    assert project.run("check", "--extend-select", "RC001", "--extend-ignore", "RC001",
                       "a.c").code == 0


def test_cli_exclude_adds_to_the_configured_exclude(project, fake):
    project.write("refcheck.toml", "exclude = ['third_party']\n")
    project.write("src/a.c", LEAKY)
    project.write("gen/g.c", LEAKY)
    project.write("third_party/v.c", LEAKY)
    r = project.run("check", "--exclude", "gen", "--exclude", "src/*.h", ".")
    assert r.code == 1
    assert "src/a.c" in r.out and "gen/g.c" not in r.out and "third_party" not in r.out
    from cli_helpers import analyzed
    assert analyzed(fake) == ["a.c"]
    r = project.run("check", "--exclude", "src", "--exclude", "gen", ".")
    assert r.code == 0 and "RC001" not in r.out
