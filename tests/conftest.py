"""Settings for the whole suite.

Many tests run refcheck as a process (`python -m refcheck`, the `refcheck` script, the
pre-commit hook). That process must run this checkout's code: with only `pip install .` behind
it, it imports whichever copy was installed last, so a worktree's or an edited checkout's
subprocess tests would pass or fail on other code than the in-process tests beside them.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
os.environ["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])


import pytest  # noqa: E402 - after the environment above, which subprocesses must inherit


@pytest.fixture
def c_unit(tmp_path: Path):
    """Write C into tmp_path, parse, build and check it there (tests/cunit.py)."""
    from cunit import CUnit

    return CUnit(tmp_path)
