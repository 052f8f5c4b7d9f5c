"""Shared helpers: a throwaway project directory, the CLI in-process and as a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import fake_engine  # noqa: E402

from refcheck.cli import cli  # noqa: E402


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

    def run(self, *args: str) -> Ran:
        """The CLI in this process (workers fork from it, so monkeypatches reach them)."""
        old = os.getcwd()
        os.chdir(self.root)
        try:
            r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
        finally:
            os.chdir(old)
        return Ran(r.exit_code, r.stdout, r.stderr)

    def spawn(self, *args: str, fake: bool = True, env: dict | None = None, **kw):
        """The CLI as a real process: `python fake_main.py` or `python -m refcheck`."""
        cmd = [sys.executable, str(HERE / "fake_main.py")] if fake else [sys.executable, "-m", "refcheck"]
        full_env = {**os.environ, **(env or {})}
        full_env.pop("CI", None)
        return subprocess.Popen(cmd + list(args), cwd=self.root, env=full_env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)

    def call(self, *args: str, fake: bool = True, env: dict | None = None, timeout: float = 120) -> Ran:
        p = self.spawn(*args, fake=fake, env=env)
        out, err = p.communicate(timeout=timeout)
        return Ran(p.returncode, out, err)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.fixture
def fake(monkeypatch, tmp_path: Path) -> Path:
    """The fake engine in this process; returns the log file of analyzed units."""
    monkeypatch.setattr("refcheck.engine.check_unit", fake_engine.check_unit)
    log = tmp_path / "engine.log"
    monkeypatch.setenv("REFCHECK_FAKE_LOG", str(log))
    return log


def analyzed(log: Path) -> list[str]:
    """Units the engine was called on since the log was last cleared, as base names."""
    if not log.exists():
        return []
    return sorted(os.path.basename(line) for line in log.read_text().splitlines())
