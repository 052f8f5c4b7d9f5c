"""Text output at the command line: source snippets and --color with NO_COLOR / FORCE_COLOR."""

from __future__ import annotations

import pytest

from refcheck.support.terminal import use_color

LEAKY = "void f(void) {\n  t = LEAK(1);\n}\n"


def test_snippet_and_caret_by_default_and_not_with_no_show_source(project, fake):
    project.write("a.c", LEAKY)
    r = project.run("check", "a.c")
    assert r.out.splitlines()[:3] == ["a.c:2:7: error: `t` acquired by THFloatTensor_new() is not "
                                      "released on this path [RC001 leak]",
                                      "    2 |   t = LEAK(1);", "      |       ^"]
    r = project.run("check", "--no-show-source", "a.c")
    assert "|" not in r.out and r.out.startswith("a.c:2:7: error:")


@pytest.mark.parametrize("args, env, coloured", [
    ([], {}, False),                                   # a pipe: no colour
    (["--color", "always"], {}, True),
    (["--color", "always"], {"NO_COLOR": "1"}, True),  # the flag is the user's last word
    (["--color", "never"], {"FORCE_COLOR": "1"}, False),
    ([], {"FORCE_COLOR": "1"}, True),
    ([], {"FORCE_COLOR": "0"}, False),
    ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
])
def test_color_option_and_environment(project, fake, monkeypatch, args, env, coloured):
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    project.write("a.c", LEAKY)
    r = project.run("check", *args, "a.c")
    assert r.code == 1
    assert ("\x1b[" in r.out) is coloured
    # Machine formats never carry colour.
    assert "\x1b[" not in project.run("check", *args, "--format", "json", "a.c").out


class _Tty:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_auto_colours_a_terminal_only(monkeypatch):
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    assert use_color("auto", _Tty(True)) and not use_color("auto", _Tty(False))
    assert not use_color("auto", None)  # -o FILE
    monkeypatch.setenv("NO_COLOR", "")  # empty: not set, per no-color.org
    assert use_color("auto", _Tty(True))
    monkeypatch.setenv("NO_COLOR", "yes")
    assert not use_color("auto", _Tty(True))
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert not use_color("auto", _Tty(True))


@pytest.mark.parametrize("fmt", ["json", "sarif", "html", "text"])
def test_a_report_in_a_file_still_says_on_the_console_what_went_wrong(project, fake, fmt):
    project.write("a.c", LEAKY)
    project.write("boom.c", "void f(void) { CRASH; }\n")
    r = project.run("check", "--format", fmt, "-o", "report.out", "a.c", "boom.c")
    assert r.code == 2 and r.out == ""
    lines = r.err.splitlines()
    assert any(line.startswith("boom.c: error: ") for line in lines), r.err
    assert lines[-1].startswith("refcheck: 1 finding, 1 tool error in 2 files")
    assert (project.root / "report.out").stat().st_size > 0


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "html"])
def test_the_summary_goes_to_stderr_in_every_format(project, fake, fmt):
    project.write("a.c", LEAKY)
    r = project.run("check", "--format", fmt, "a.c")
    assert r.code == 1
    assert r.err.splitlines()[-1].startswith("refcheck: 1 finding in 1 file")
    assert "refcheck: 1 finding" not in r.out
    assert project.run("check", "-q", "--format", fmt, "a.c").err == ""


def test_a_text_report_on_stdout_does_not_repeat_tool_errors_on_stderr(project, fake):
    project.write("boom.c", "void f(void) { CRASH; }\n")
    r = project.run("check", "boom.c")
    assert r.code == 2 and "boom.c: error:" in r.out and "boom.c: error:" not in r.err
