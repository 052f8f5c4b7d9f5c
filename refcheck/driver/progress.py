"""The progress bar on stderr, for people at a terminal waiting on a long run.

Drawn by rich's Progress, whose refresh thread redraws the bar several times a second: elapsed
time keeps ticking while one long unit runs (a bar redrawn only when a unit finishes looks hung
on torch7's THTensorMath.c), and rich already does the ETA, terminal width, and clearing itself
on exit. It appears only after the first second (a warm run should print nothing extra), only
when stderr is a terminal, and never under CI, where redraws make logs unreadable; `-q` turns
it off.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TextIO


def wanted(stream: TextIO) -> bool:
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return tty and not os.environ.get("CI") and os.environ.get("TERM") != "dumb"


class Progress:
    """`total` units on `workers` processes; `advance` as each finishes, `skip` for a unit that
    no longer needs analysis (its includer already covered it)."""

    def __init__(self, total: int, enabled: bool, stream: TextIO | None = None,
                 delay: float = 1.0, workers: int = 1) -> None:
        self.total = total
        self.workers = max(1, workers)
        self.enabled = enabled and total > 0
        self.stream = stream or sys.stderr
        self.done = 0
        self.skipped = 0
        self._lock = threading.Lock()
        self._bar = None
        self._task = None
        self._closed = False
        self._timer: threading.Timer | None = None
        if self.enabled:
            self._timer = threading.Timer(delay, self._start)
            self._timer.daemon = True
            self._timer.start()

    @property
    def in_flight(self) -> int:
        # The pool keeps every worker busy while units are pending.
        return min(self.workers, max(0, self.total - self.done - self.skipped))

    def _start(self) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                from rich.console import Console
                from rich.progress import (BarColumn, MofNCompleteColumn, TextColumn,
                                           TimeElapsedColumn, TimeRemainingColumn)
                from rich.progress import Progress as Bar
            except ImportError:  # a broken install: lose the bar, never the run
                return
            console = Console(file=self.stream, highlight=False)
            self._bar = Bar(
                TextColumn("checking"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[in_flight]} in flight"),
                TextColumn("elapsed"), TimeElapsedColumn(),
                TextColumn("ETA"), TimeRemainingColumn(),
                console=console, transient=True, refresh_per_second=4)
            self._task = self._bar.add_task("units", total=self.total - self.skipped,
                                            completed=self.done, in_flight=self.in_flight)
            self._bar.start()

    def _update(self) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, total=self.total - self.skipped,
                             in_flight=self.in_flight)

    def advance(self, label: str = "") -> None:
        with self._lock:
            self.done += 1
            self._update()

    def skip(self) -> None:
        with self._lock:
            self.skipped += 1
            self._update()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._bar is not None:
                self._bar.stop()
                self._bar = None
