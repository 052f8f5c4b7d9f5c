"""Runs one command and measures it: wall time and the peak resident memory of its process tree."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass


@dataclass
class Run:
    argv: list[str]
    returncode: int
    seconds: float
    # ru_maxrss of wait4: the largest of the process and every descendant it waited for, so for
    # refcheck (whose parent never loads libclang) it is the biggest worker.
    peak_rss_mb: float
    stdout: str
    stderr: str
    # User + system CPU of the process and the descendants it waited for (the workers): what a
    # loaded machine's walls blur.
    cpu_seconds: float = 0.0


def run(argv: list[str], cwd: str, env: dict | None = None) -> Run:
    with open(os.devnull, "rb") as devnull:
        started = time.perf_counter()
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=devnull, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        out, err = _communicate(p)
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - started
    p.returncode = os.waitstatus_to_exitcode(status)
    return Run(argv, p.returncode, seconds, usage.ru_maxrss / 1024.0,
               out.decode(errors="replace"), err.decode(errors="replace"), usage.ru_utime + usage.ru_stime)


def _communicate(p: subprocess.Popen) -> tuple[bytes, bytes]:
    """Reads both pipes to the end without reaping the child (wait4 must do that, for rusage)."""
    import selectors

    chunks = {p.stdout: [], p.stderr: []}
    sel = selectors.DefaultSelector()
    for f in chunks:
        sel.register(f, selectors.EVENT_READ)
    while sel.get_map():
        for key, _ in sel.select():
            data = os.read(key.fileobj.fileno(), 65536)
            if data:
                chunks[key.fileobj].append(data)
            else:
                sel.unregister(key.fileobj)
                key.fileobj.close()
    return b"".join(chunks[p.stdout]), b"".join(chunks[p.stderr])


def which(name: str) -> str | None:
    import shutil

    return shutil.which(name)
