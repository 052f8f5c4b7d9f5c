"""Compiled bytecode for the runs of a source checkout, as an installed refcheck has it.

A checkout run with PYTHONDONTWRITEBYTECODE=1 (this machine's setting; the runners set it too, so
that no checkout gets __pycache__ folders) compiles every module it imports from source at every
run, in the parent and again in each worker. On a small unit that is most of what its stages
measure: the worker's background imports (driver/preloading.py) compete with the parse, and the
modules imported later land in the analysis stage. `prime` compiles them once into a cache folder
of their own (PYTHONPYCACHEPREFIX) and `env` points a run at it: nothing is written into a
checkout, and a run reads bytecode as an installed package's does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Imports every module of the checkout's refcheck package (each alone: one that fails, such as a
# GPU-only helper, is skipped), which writes the bytecode of refcheck's modules and of every
# standard-library and site-packages module they import.
_IMPORT_ALL = """
import importlib, pkgutil, refcheck
for m in pkgutil.walk_packages(refcheck.__path__, "refcheck."):
    try:
        importlib.import_module(m.name)
    except Exception:
        pass
"""


def prime(checkout: Path, cache: Path) -> None:
    """Writes the bytecode of what a run of `checkout` imports under `cache`."""
    cache.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(checkout), PYTHONPYCACHEPREFIX=str(cache.resolve()))
    subprocess.run([sys.executable, "-c", _IMPORT_ALL], env=env, check=True, cwd=str(cache),
                   stdin=subprocess.DEVNULL, capture_output=True)


def env(base: dict, cache: Path | None) -> dict:
    """`base` reading bytecode from `cache` (primed), or unchanged without one."""
    return base if cache is None else {**base, "PYTHONPYCACHEPREFIX": str(cache.resolve())}
