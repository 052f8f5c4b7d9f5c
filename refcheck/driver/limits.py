"""A worker's memory bound, and how the parent tells what killed a worker: LLVM's out-of-memory
message on fd 2, a signal, an exit status."""

from __future__ import annotations

import os
import signal

OUT_OF_MEMORY = "not checked: out of memory (over the per-worker bound of {} MiB, max-memory)"


def bound_memory(limit: int | None) -> None:
    if not limit:
        return
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError, AttributeError):  # pragma: no cover - no RLIMIT_AS
        pass


class StderrWatch:
    """Captures what libclang writes to fd 2 during one unit, passes it on afterwards, and says
    whether LLVM reported a failed allocation ("LLVM ERROR: out of memory"): libclang's crash
    recovery turns that into a failed parse that looks like any other."""

    def __enter__(self):
        import tempfile

        try:
            self.file = tempfile.TemporaryFile()
            self.saved = os.dup(2)
            os.dup2(self.file.fileno(), 2)
        except OSError:
            self.file = None
        return self

    def __exit__(self, *exc) -> None:
        self.text = b""
        if self.file is None:
            return
        os.dup2(self.saved, 2)
        os.close(self.saved)
        try:
            self.file.seek(0)
            self.text = self.file.read(1 << 20)
            self.file.close()
            if self.text:
                os.write(2, self.text)
        except OSError:
            pass

    @property
    def out_of_memory(self) -> bool:
        return b"LLVM ERROR: out of memory" in self.text


def default_memory(workers: int) -> int | None:
    """The machine's memory shared among the workers (and the parent), in bytes, at least
    1 GiB each; None where the machine's memory cannot be found."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return None
    # A worker maps ~0.7 GiB before its first unit (libclang, the engine's 512 MiB stack).
    return max(2 << 30, total // (max(1, workers) + 1))


def signal_name(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"
