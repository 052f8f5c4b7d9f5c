"""The `project` fixture; the helpers live in robust_cli.py (a name no other suite uses)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from robust_cli import Project  # noqa: E402

from refcheck.caches import sealed  # noqa: E402


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.fixture
def own_key_home(tmp_path: Path, monkeypatch) -> Path:
    """Each test its own user cache directory, hence its own cache key (none in the real home)."""
    home = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv(sealed.KEY_ENV, raising=False)
    return home
