"""Fixtures for the CLI tests; the helpers themselves live in cli_helpers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from refcheck.driver import shards

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


@pytest.fixture
def sharding(monkeypatch, tmp_path: Path) -> Path:
    """Sharding from any size (the test units are small), a shared parse's lead given its share
    whatever its parse cost (a test unit's parse outweighs its definitions); returns the pool's
    job log (`cli_helpers.jobs` reads it)."""
    monkeypatch.setattr(shards, "MIN_BYTES", 0)
    monkeypatch.setattr(shards, "ESTIMATE_SECONDS", 1e9)
    monkeypatch.setenv(shards.SWITCH, "1")
    log = tmp_path / "jobs.jsonl"
    monkeypatch.setenv("REFCHECK_JOB_LOG", str(log))
    return log
