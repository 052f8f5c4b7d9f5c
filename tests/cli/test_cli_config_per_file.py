"""Configuration found per file, as ruff does: each file under the nearest refcheck.toml or
pyproject.toml with [tool.refcheck]; `--config` forces one for all."""

from __future__ import annotations

from cli_helpers import analyzed

HEAD = "typedef struct T T;\nT *T_new(void);\nT *make_T(void);\nvoid T_free(T *t);\nvoid use(T *t);\n"
MAKE_LEAK = HEAD + "void f(void) {\n  T *t = make_T();\n  use(t);\n}\n"


def monorepo(project):
    project.write("a/refcheck.toml", 'defines = ["IN_A"]\nignore = ["RC002"]\nexclude = ["gen"]\n')
    project.write("a/x.c", "void f(void) { LEAK_IF_IN_A; }\n")
    project.write("a/gen/q.c", "void f(void) { t = LEAK(1); }\n")
    project.write("b/y.c", "void f(void) { LEAK_IF_IN_A; }\n")
    project.write("b/gen/q.c", "void f(void) { t = LEAK(1); }\n")


def test_each_file_is_checked_with_its_nearest_configuration(project, fake):
    monorepo(project)
    r = project.run("check", ".")
    assert r.code == 1
    # a/x.c gets a's -DIN_A; b/y.c gets the root's (none). a's exclude covers a/gen only.
    assert [line.split(": error")[0] for line in r.out.splitlines() if ": error" in line] == \
        ["a/x.c:1:16", "b/gen/q.c:1:20"]
    assert analyzed(fake) == ["q.c", "x.c", "y.c"]


def test_files_under_different_configurations_in_one_run_as_pre_commit_passes_them(project, fake):
    monorepo(project)
    r = project.run("check", "a/x.c", "b/y.c")  # pre-commit passes changed files, not dirs
    assert r.code == 1 and r.out.startswith("a/x.c:1:16: error:") and "b/y.c" not in r.out


def test_run_from_inside_a_subproject(project, fake, monkeypatch):
    monorepo(project)
    monkeypatch.chdir(project.root / "a")
    from click.testing import CliRunner

    from refcheck.commands.cli import cli

    r = CliRunner().invoke(cli, ["check", "."], catch_exceptions=False)
    assert r.exit_code == 1 and r.stdout.startswith("x.c:1:16: error:")  # a is the root now


def test_explicit_config_forces_one_configuration(project, fake):
    monorepo(project)
    r = project.run("check", "--config", "refcheck.toml", ".")
    lines = [line for line in r.out.splitlines() if ": error" in line]
    assert [line.split(": error")[0] for line in lines] == ["a/gen/q.c:1:20", "b/gen/q.c:1:20"]


def test_nested_rule_selection_and_per_path_ignores_are_relative_to_their_file(project, fake):
    project.write("a/refcheck.toml", '[per-path-ignores]\n"sub/*" = ["RC001"]\n')
    project.write("a/sub/x.c", "void f(void) { t = LEAK(1); }\n")
    project.write("sub/x.c", "void f(void) { t = LEAK(1); }\n")  # the root's: no ignores
    project.write("c/refcheck.toml", 'ignore = ["RC001"]\n')
    project.write("c/x.c", "void f(void) { t = LEAK(1); }\n")
    r = project.run("check", ".")
    assert [line.split(": error")[0] for line in r.out.splitlines() if ": error" in line] == \
        ["sub/x.c:1:20"]
    # Command-line selection still applies on top of every file's configuration.
    r = project.run("check", "--select", "RC001", ".")
    assert "c/x.c" not in r.out  # c ignores RC001; --select does not undo a file's ignore
    r = project.run("check", "--ignore", "RC001", ".")
    assert r.code == 0


def test_pyproject_without_the_table_is_passed_over_per_file(project, fake):
    project.write("a/pyproject.toml", '[project]\nname = "x"\n')
    project.write("a/x.c", "void f(void) { LEAK_IF_IN_A; }\n")
    project.write("refcheck.toml", 'defines = ["IN_A"]\n')
    assert project.run("check", "a/x.c").code == 1  # the root's configuration governs it
    project.write("a/pyproject.toml", '[project]\nname = "x"\n[tool.refcheck]\n')
    assert project.run("check", "a/x.c").code == 0  # now a's own, without IN_A


def test_a_broken_nested_configuration_is_a_clear_error(project, fake):
    project.write("a/refcheck.toml", "aquire = []\n")
    project.write("a/x.c", "int g(void) { return 0; }\n")
    r = project.run("check", ".")
    assert r.code == 2 and "a/refcheck.toml: unknown key 'aquire'" in r.err
    assert "Traceback" not in r.err


def test_nested_conventions_reach_the_analysis_and_the_cache_key(project):
    """The real engine: make_T is an acquire only under b's configuration."""
    project.write("a/x.c", MAKE_LEAK)
    project.write("b/refcheck.toml", 'extend-acquire = ["^make_"]\n')
    project.write("b/x.c", MAKE_LEAK)
    r = project.run("check", "-j", "2", ".")
    assert r.code == 1, r.out + r.err
    assert [line.split(": error")[0] for line in r.out.splitlines() if ": error" in line] == \
        ["b/x.c:9:1"]
    # Changing b's conventions gives a fresh result, not the cached one.
    project.write("b/refcheck.toml", "")
    assert project.run("check", ".").code == 0
