"""A one-line progress bar on stderr, for people at a terminal waiting on a long run.

It stays silent for the first second (a warm run should print nothing extra), when stderr is not
a terminal, and under CI, where carriage returns make logs unreadable.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import TextIO


def wanted(stream: TextIO) -> bool:
    return stream.isatty() and not os.environ.get("CI")


class Progress:
    def __init__(self, total: int, enabled: bool, stream: TextIO | None = None,
                 delay: float = 1.0) -> None:
        self.total = total
        self.enabled = enabled and total > 0
        self.stream = stream or sys.stderr
        self.done = 0
        self.start = time.monotonic()
        self.delay = delay
        self._last_draw = 0.0
        self._drawn = False

    def advance(self, label: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay or (now - self._last_draw < 0.1 and self.done < self.total):
            return
        self._last_draw = now
        width = shutil.get_terminal_size((80, 20)).columns
        counter = f" {self.done}/{self.total} "
        bar_width = max(10, min(40, width // 3))
        filled = bar_width * self.done // self.total
        bar = "[" + "=" * filled + " " * (bar_width - filled) + "]"
        room = width - len(bar) - len(counter) - 1
        text = (bar + counter + (label[-room:] if room > 0 else ""))[:width - 1]
        self.stream.write("\r" + text.ljust(width - 1))
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            width = shutil.get_terminal_size((80, 20)).columns
            self.stream.write("\r" + " " * (width - 1) + "\r")
            self.stream.flush()
            self._drawn = False
