"""The `project` fixture; the helpers live in robust_cli.py (a name no other suite uses)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from robust_cli import Project  # noqa: E402


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)
