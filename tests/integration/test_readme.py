"""The README's commands, run as written: its first command on the bundled runtime, and its
example (the C file it shows, the commands of its console block with their output, the `refcheck
cfg` line). Only the wall time in the summary line is allowed to differ.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text("utf-8")
SECONDS = re.compile(r"\d+\.\d\d s$")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", README, flags=re.S | re.M)


def _refcheck(command: str, cwd: Path) -> subprocess.CompletedProcess:
    argv = shlex.split(command)
    assert argv[0] == "refcheck", command
    # The installed `refcheck` script runs refcheck.__main__; so does this, in the test's Python.
    env = {k: v for k, v in os.environ.items() if k not in ("REFCHECK_RESOURCE_DIR", "NO_COLOR", "FORCE_COLOR")}
    return subprocess.run([sys.executable, "-m", "refcheck", *argv[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> Path:
    """A directory laid out like a clone's root: the runtime, and the files the README shows."""
    root = tmp_path_factory.mktemp("readme")
    (root / "runtime").symlink_to(REPO / "runtime", target_is_directory=True)
    written = 0
    for block in _blocks("c"):
        m = re.match(r"// (\S+)\n", block)
        if m:
            (root / m.group(1)).write_text(block, "utf-8")
            written += 1
    assert written, "the README shows no named C file"
    return root


def _console_sessions() -> list[tuple[str, list[str]]]:
    sessions = []
    for block in _blocks("console"):
        for chunk in re.split(r"^(?=\$ )", block, flags=re.M):
            if chunk.startswith("$ "):
                command, *output = chunk.rstrip("\n").split("\n")
                sessions.append((command[2:], output))
    return sessions


def test_the_readme_has_an_example_session():
    assert [c for c, _ in _console_sessions() if c.startswith("refcheck check")]


@pytest.mark.parametrize("command, expected", _console_sessions())
def test_example_commands_print_what_the_readme_shows(example, command, expected):
    p = _refcheck(command, example)
    got = (p.stdout + p.stderr).rstrip("\n").split("\n")
    normalize = lambda lines: [SECONDS.sub("N s", line) for line in lines]  # noqa: E731
    assert normalize(got) == normalize(expected), p.stdout + p.stderr
    assert p.returncode == (1 if any(": error: " in line for line in expected) else 0)


def test_inline_refcheck_commands_of_the_example_run(example):
    inline = [c for c in re.findall(r"`(refcheck [^`]+)`", README.replace("\n", " "))
              if c.startswith("refcheck cfg") and "leak.c" in c]
    assert inline
    for command in inline:
        p = _refcheck(command, example)
        assert p.returncode == 0, p.stderr
        assert "function THFloatTensor_sumPositive" in p.stdout and "[acquire]" in p.stdout


def test_the_first_command_checks_the_runtime_clean(tmp_path):
    first = _blocks("sh")[0].splitlines()[0]
    install, command = first.split(" && ")
    assert install == "pip install ."  # the install itself is what CI's fresh clone proves
    p = _refcheck(command + " --cache-dir " + str(tmp_path), REPO)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stderr.startswith("refcheck: 0 findings in ") and p.stdout == ""
