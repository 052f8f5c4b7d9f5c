"""The robustness suite's helpers: a throwaway project and the real `refcheck` as a process.

Every test here runs the real engine (libclang included) in a real `python -m refcheck`
process, because the failures this suite is about (a segfault in libclang, a recursion limit,
a stray traceback on stderr) are exactly the ones an in-process fake would hide.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from pathological import GOOD, GOOD_FINDING


@dataclass
class Ran:
    code: int
    out: str
    err: str

    def lines_about(self, name: str) -> list[str]:
        """Every stdout/stderr line that names the file `name`."""
        return [line for line in (self.out + self.err).splitlines() if name in line]


class Project:
    """A directory with a refcheck.toml (its own root and cache) and the known-leaky good.c."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.write("refcheck.toml", "")
        self.write("good.c", GOOD)

    def write(self, name: str, text: str | bytes) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def check(self, *args: str, cwd: Path | None = None, timeout: float = 120) -> Ran:
        env = {k: v for k, v in os.environ.items() if k not in ("CI", "REFCHECK_DEBUG")}
        p = subprocess.run([sys.executable, "-m", "refcheck", "check", *args],
                           cwd=cwd or self.root, env=env, text=True, capture_output=True,
                           timeout=timeout)
        return Ran(p.returncode, p.stdout, p.stderr)



def assert_good_intact(r: Ran) -> None:
    """good.c's leak is reported whatever happened to the other files of the run."""
    assert GOOD_FINDING in r.out, f"good.c's finding lost:\n{r.out}\n{r.err}"


def assert_no_traceback(r: Ran) -> None:
    assert "Traceback" not in r.err + r.out, r.err
    assert "internal error" not in r.err + r.out, r.err


def assert_one_line_error(r: Ran, name: str, problem: str) -> None:
    """Exactly one tool-error line names `name`, and it says `problem`."""
    lines = [line for line in r.lines_about(name) if "error" in line and "[RC" not in line]
    assert len(lines) == 1, f"expected one error line for {name}, got {lines}\n{r.out}\n{r.err}"
    assert problem in lines[0], lines[0]


def gcc_accepts(path: Path) -> None:
    """Generated pathological C must be real C: gcc is the referee (skipped where it is absent)."""
    gcc = shutil.which("gcc")
    if gcc is None:
        return
    p = subprocess.run([gcc, "-fsyntax-only", "-w", str(path)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, f"gcc rejects generated {path.name}:\n{p.stderr[:2000]}"
