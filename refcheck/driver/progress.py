"""The progress line on stderr, for people at a terminal waiting on a long run.

It counts what the summary line counts, in the same word: the files the run will report, cache
hits included. A unit another unit includes (TH's generic/*.c) is reported through its includer,
so once a finished unit is seen to include it, it leaves the total (`(N included by others)`).

It names the unit in flight (the oldest, when several workers run) with its own elapsed time,
and estimates the time left by work, not by unit counts: each unit's estimate is its previous
analysis time when the cache has one (scaled by how this run compares), else its size in bytes
at the (median) seconds per byte this run has measured so far. A unit running past its estimate has no
known remaining time: the ETA then reads `over` the work still known, never a small fixed
number while one large unit runs.

Drawn by rich's Live, whose refresh thread redraws several times a second, so the elapsed
times keep ticking while one long unit runs. It appears only after the first second (a warm run
prints nothing extra), only when stderr is a terminal, and never under CI, where redraws make
logs unreadable; `-q` turns it off.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Callable, Iterable, Sequence, TextIO


def wanted(stream: TextIO) -> bool:
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return tty and not os.environ.get("CI") and os.environ.get("TERM") != "dumb"


def _median(values: list[float]) -> float:
    # statistics.median's answer without importing statistics (fractions, decimal: 2 ms of each start).
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def clock_text(seconds: float) -> str:
    s = max(0, int(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class Estimates:
    """Seconds of work per unit: previous analysis times where known, else bytes times the
    seconds per byte this run's finished units took (before any finishes, the units with a
    previous time); None where nothing is known yet. The median rate: a small file that
    includes much (TH's THTensor.c) is slow for its size, and must not make every small unit
    after it look slow too."""

    def __init__(self, sizes: dict[str, int], previous: dict[str, float | None],
                 took: dict[str, float]) -> None:
        self.sizes, self.previous = sizes, previous
        rates = [took[p] / sizes[p] for p in took if sizes.get(p)]
        if not rates:
            rates = [t / sizes[p] for p, t in previous.items() if t is not None and sizes.get(p)]
        self.per_byte = _median(rates) if rates else None
        # This run against the last (another machine, load, -j): applied to previous times.
        again = [p for p in took if previous.get(p)]
        self.scale = (sum(took[p] for p in again) / sum(previous[p] for p in again)) if again else 1.0

    def of(self, path: str) -> float | None:
        before = self.previous.get(path)
        if before is not None:
            return before * self.scale
        if self.per_byte is None:
            return None
        return self.sizes.get(path, 0) * self.per_byte


class Progress:
    """A run's `jobs` (pool.Job: path, display) on `workers` processes. `finished`: the units
    already done (cache hits), with what each includes. The pool calls `start` as a job starts
    and `skip` for one it drops (its includer covered it); `advance` as each finishes.
    `previous(path)`: the unit's last analysis time in seconds, or None.
    `auto`: a timer shows the line after `delay` and a thread redraws it; without, the caller
    calls show() and refresh() (tests, with a fake `clock`)."""

    def __init__(self, jobs: Sequence = (), enabled: bool = False, stream: TextIO | None = None,
                 delay: float = 1.0, workers: int = 1,
                 finished: Iterable[tuple[str, Sequence[str]]] = (),
                 previous: Callable[[str], float | None] = lambda path: None,
                 clock: Callable[[], float] = time.monotonic, auto: bool = True) -> None:
        self.workers = max(1, workers)
        self.enabled = enabled and len(jobs) > 0
        self.stream = stream or sys.stderr
        self._clock, self._previous_of = clock, previous
        self._began = clock()
        self._jobs = {j.path: j.display for j in jobs}
        self._units = set(self._jobs)
        self._finished: set[str] = set()
        self._included: set[str] = set()
        for path, includes in finished:
            self._finish(path, includes)
        self._started: dict[str, float] = {}
        self._took: dict[str, float] = {}
        self._skipped: set[str] = set()
        self._sizes: dict[str, int] = {}
        self._previous: dict[str, float | None] = {}
        # Re-entrant: Live.start() draws once, asking text() from the thread that holds it.
        self._lock = threading.RLock()
        self._live = None
        self._closed = False
        self._timer: threading.Timer | None = None
        if self.enabled and auto:
            self._timer = threading.Timer(delay, self.show)
            self._timer.daemon = True
            self._timer.start()

    # --- what the pool and the runner report ---------------------------------------------------

    def _finish(self, path: str, includes: Iterable[str]) -> None:
        self._units.add(path)
        self._finished.add(path)
        self._included.update(p for p in map(os.path.normpath, includes) if p != path)

    def start(self, job) -> None:
        with self._lock:
            self._started[job.path] = self._clock()

    def skip(self, job) -> None:
        with self._lock:
            self._skipped.add(job.path)

    def advance(self, job, includes: Iterable[str] = ()) -> None:
        with self._lock:
            began = self._started.get(job.path)
            if began is not None:
                self._took[job.path] = self._clock() - began
            self._finish(job.path, includes)

    # --- what the line says --------------------------------------------------------------------

    @property
    def total(self) -> int:
        """The files the run will report as far as known now: the summary's count at the end."""
        with self._lock:
            return len(self._units - self._included)

    @property
    def done(self) -> int:
        with self._lock:
            return len(self._finished - self._included)

    def in_flight(self) -> list[str]:
        """The units running now, oldest first."""
        with self._lock:
            return sorted((p for p in self._started if p not in self._finished),
                          key=lambda p: self._started[p])

    def eta(self) -> tuple[float | None, bool]:
        """(seconds left, whether that is only a lower bound); (None, _) when unknown."""
        with self._lock:
            now = self._clock()
            est = Estimates(self._sizes, self._previous, self._took)
            running = self.in_flight()
            # A unit a finished one includes is skipped when its turn comes (runner._analyze).
            waiting = [p for p in self._jobs if p not in self._started and p not in self._skipped
                       and p not in self._finished and p not in self._included]
            left, over = [], False
            for path in running + waiting:
                seconds = est.of(path)
                if seconds is None:
                    return None, False
                if path in self._started:
                    seconds -= now - self._started[path]
                    over = over or seconds < 0
                left.append(max(0.0, seconds))
            if not left:
                return 0.0, False
            # Spread over the workers, but never less than the longest single unit still to go.
            spread = sum(left) / min(self.workers, len(left))
            return max(spread, max(left)), over

    def text(self) -> str:
        """Two lines: the counts and times, then the unit in flight (the oldest, when several)."""
        with self._lock:
            now = self._clock()
            parts = [f"checking {self.done}/{self.total} files"]
            included = len(self._units & self._included)
            if included:
                parts[0] += f" ({included} included by others)"
            parts.append(f"elapsed {clock_text(now - self._began)}")
            seconds, over = self.eta()
            if seconds is None or (over and seconds < 1):
                parts.append("ETA unknown")
            else:
                parts.append(f"ETA {'over ' if over else ''}{clock_text(seconds)}")
            lines = [" | ".join(parts)]
            running = self.in_flight()
            if running:
                oldest = running[0]
                took = now - self._started[oldest]
                text = f"in flight: {self._jobs[oldest]} {clock_text(took)}"
                guess = Estimates(self._sizes, self._previous, self._took).of(oldest)
                if guess is not None and took > guess:
                    text += (f" (past its estimate of "
                             f"{clock_text(guess) if guess >= 1 else 'under a second'})")
                if len(running) > 1:
                    text += f" +{len(running) - 1} more"
                lines.append(text)
            return "\n".join(lines)

    # --- drawing -------------------------------------------------------------------------------

    def _measure(self) -> tuple[dict[str, int], dict[str, float | None]]:
        """Each unit's bytes and previous time (files read: done once, off the lock)."""
        sizes, previous = {}, {}
        for path in self._jobs:
            try:
                sizes[path] = os.stat(path).st_size
            except OSError:
                sizes[path] = 0
            previous[path] = self._previous_of(path)
        return sizes, previous

    def show(self) -> None:
        if self._closed:
            return
        sizes, previous = self._measure()
        with self._lock:
            if self._closed:
                return
            self._sizes, self._previous = sizes, previous
            try:
                from rich.console import Console
                from rich.live import Live
                from rich.text import Text
            except ImportError:  # a broken install: lose the line, never the run
                return
            console = Console(file=self.stream, highlight=False)
            self._live = Live(console=console, transient=True, auto_refresh=self._timer is not None,
                              refresh_per_second=4, redirect_stdout=False,
                              redirect_stderr=self.stream is sys.stderr,
                              get_renderable=lambda: Text(self.text(), no_wrap=True,
                                                          overflow="ellipsis"))
            self._live.start(refresh=True)

    def refresh(self) -> None:
        live = self._live
        if live is not None:
            live.refresh()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            live, self._live = self._live, None
        # Off the lock: stopping joins the refresh thread, which may be waiting on it in text().
        if live is not None:
            live.stop()
