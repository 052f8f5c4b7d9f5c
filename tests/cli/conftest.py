"""Fixtures for the CLI tests; the helpers themselves live in cli_helpers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import fake_engine  # noqa: E402
from cli_helpers import Project  # noqa: E402


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.fixture
def fake(monkeypatch, tmp_path: Path) -> Path:
    """The fake engine in this process; returns the log file of analyzed units."""
    monkeypatch.setattr("refcheck.driver.engine.check_unit", fake_engine.check_unit)
    log = tmp_path / "engine.log"
    monkeypatch.setenv("REFCHECK_FAKE_LOG", str(log))
    return log
