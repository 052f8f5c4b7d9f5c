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




def _build_the_compiled_walk() -> None:
    """The tests import this checkout, not the installed copy, so `pip install .` leaves them
    without the compiled walk it built into site-packages: build it here, in place, where it is
    missing or older than its sources (an edited _cwalk.c or _ckeys.c), so that the suite runs both paths
    (tests/test_native.py compares them). A failure only warns: the compiled tests then skip.
    REFCHECK_PURE_PYTHON=1 or REFCHECK_NO_EXTENSION=1 leave the checkout as it is."""
    import subprocess
    import sys
    import sysconfig

    if any(os.environ.get(v, "") not in ("", "0") for v in ("REFCHECK_PURE_PYTHON", "REFCHECK_NO_EXTENSION")):
        return
    # native.SOURCES, not imported: importing native chooses the module before it is built.
    names = ("_cwalk.c", "_ckeys.c", "_cconds.c", "_ctokens.c", "_cquery.c", "_cseqs.c", "_cgraph.c", "_ckeys.h", "_ctokens.h", "_cwalk.h")
    sources = [REPO / "refcheck" / "frontend" / name for name in names]
    built = sources[0].with_name("_cwalk" + sysconfig.get_config_var("EXT_SUFFIX"))
    if not all(s.exists() for s in sources) or \
            (built.exists() and built.stat().st_mtime >= max(s.stat().st_mtime for s in sources)):
        return
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=REPO,
                          capture_output=True, text=True)
    if done.returncode or not built.exists():
        sys.stderr.write(f"conftest: the compiled walk was not built; its tests skip:\n{done.stderr[-2000:]}\n")


_build_the_compiled_walk()


def _quiet_without_the_compiled_walk() -> None:
    """Where the walk could not be built, the suite runs the Python path; REFCHECK_PURE_PYTHON=1
    says it was chosen, so that the processes the tests start print no notice about it on stderr
    (which many tests read line by line). tests/test_native.py starts its own without it."""
    from refcheck.frontend import native

    if native.CHOICE.module is None:
        os.environ[native.PURE_ENV] = "1"


_quiet_without_the_compiled_walk()

import pytest  # noqa: E402 - after the environment above, which subprocesses must inherit


@pytest.fixture
def c_unit(tmp_path: Path):
    """Write C into tmp_path, parse, build and check it there (tests/cunit.py)."""
    from cunit import CUnit

    return CUnit(tmp_path)
