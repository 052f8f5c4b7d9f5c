"""Helpers for the CLI tests: a throwaway project directory, the CLI in-process and as a process.

A module of its own (not conftest) because `from conftest import` is ambiguous when several test
directories put their conftest on sys.path in one pytest session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from refcheck.commands.cli import cli

HERE = Path(__file__).parent


@dataclass
class Ran:
    code: int
    out: str
    err: str


class Project:
    """A directory with a refcheck.toml, so that it is its own root and holds its own cache."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.write("refcheck.toml", "")

    def write(self, name: str, text: str | bytes) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def run(self, *args: str, input: str | bytes | None = None) -> Ran:
        """The CLI in this process (workers fork from it, so monkeypatches reach them); `input`
        is its stdin."""
        old = os.getcwd()
        os.chdir(self.root)
        try:
            r = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
        finally:
            os.chdir(old)
        return Ran(r.exit_code, r.stdout, r.stderr)

    def spawn(self, *args: str, fake: bool = True, env: dict | None = None, **kw):
        """The CLI as a real process: `python fake_main.py` or `python -m refcheck`."""
        cmd = [sys.executable, str(HERE / "fake_main.py")] if fake else [sys.executable, "-m", "refcheck"]
        full_env = {**os.environ, **(env or {})}
        full_env.pop("CI", None)
        streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **kw}
        return subprocess.Popen(cmd + list(args), cwd=self.root, env=full_env, text=True, **streams)

    def call(self, *args: str, fake: bool = True, env: dict | None = None, timeout: float = 120) -> Ran:
        p = self.spawn(*args, fake=fake, env=env)
        out, err = p.communicate(timeout=timeout)
        return Ran(p.returncode, out, err)




def analyzed(log: Path) -> list[str]:
    """Units the engine was called on since the log was last cleared, as base names."""
    if not log.exists():
        return []
    return sorted(os.path.basename(line) for line in log.read_text().splitlines())


def jobs(log: Path) -> list[dict]:
    """The job log's lines so far (the `sharding` fixture's file), emptied for the next run."""
    out = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    log.unlink(missing_ok=True)
    return [e for e in out if "event" not in e]


def events(log: Path) -> dict:
    """The pool's events (start, drained, end) in the job log so far, by name: their times."""
    out = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return {e["event"]: e["at"] for e in out if "event" in e}


def log_calls(patch, owner, name: str, log: Path, line) -> None:
    """Replaces `owner.name` (within `patch`, a monkeypatch or its context) by a wrapper that
    appends `line(*args)` to `log` before each call: the calls a worker process makes, which the
    test reads back with `logged_lines`."""
    real = getattr(owner, name)

    def logged(*args):
        with open(log, "a") as f:
            f.write(f"{line(*args)}\n")
        return real(*args)

    patch.setattr(owner, name, logged)


def logged_lines(log: Path) -> list[str]:
    """The lines `log_calls` wrote so far, emptied for the next run."""
    out = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return out
