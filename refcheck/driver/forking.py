"""A parse shared between the shards of one unit: the worker that checks shard 1 of K parses the
unit and does its fixed work once, then forks K-1 children that check the other shares in the
same parsed unit (copy-on-write), each once the pool lends it a slot.

The pool's accounting stays at -j busy processes: the lead announces its children on its pipe
(`Lender.announce`), and the parent grants each one a slot as a worker goes idle, by writing a
token to the lead's gate pipe (pool.run); a child waits for its token before any work. A child
sends its shard's Part (or why it failed) back to the lead through a pipe of its own and always
ends in os._exit: it never returns into the worker's job loop. The lead reads every child's
pipe, then reaps it (no zombie), and sends all the parts in its one result message.

POSIX only (os.fork); no libclang here.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
from dataclasses import dataclass

# The pool's message for "this job forked N children that wait for a slot": (LEND, index, N).
LEND = "lend"
# A lead started before the units ahead of it (pool.run: Job.early): (READY, index) from the
# worker once it has parsed, (TABLE, index, summaries) from the parent once those units are done.
READY = "ready"
TABLE = "table"
# A lead whose children are all done, before its fixup (leading.fixed): (RETURN, index); the
# parent takes the slots it lent them back at once.
RETURN = "return"


@dataclass(frozen=True)
class Child:
    """What a forked shard sends back: its Part, or why there is none (a Python exception in its
    check as `error`, or its exit status / -signal as `died`)."""

    number: int
    part: object = None
    cpu: float = 0.0
    error: str = ""
    died: int | None = None
    # When its slot was granted and when it sent its Part (time.monotonic: one clock for every
    # process on the machine), for the job log's trace.
    began: float = 0.0
    ended: float = 0.0


@dataclass
class Running:
    number: int
    pid: int
    fd: int  # the read end of the child's result pipe


class Lender:
    """The worker's side of the slot accounting for one lead job: its pipe to the parent and
    the read end of its gate pipe."""

    def __init__(self, conn, gate: int, index: int, early: bool = False) -> None:
        self.conn, self.gate, self.index, self.early = conn, gate, index, early
        # The Child of the helper its fixup's second round forked (fixsplit.py), for the job log.
        self.helped: Child | None = None

    def table(self):
        """An early lead, parsed: asks the parent for the summaries of the units ahead of it in
        the run's order and blocks until they are all checked (None: the job's own table)."""
        self.conn.send((READY, self.index))
        while True:
            message = self.conn.recv()
            if isinstance(message, tuple) and message[:2] == (TABLE, self.index):
                return message[2]

    def drain(self) -> None:
        """Drops tokens a previous job's children left unread: all were written before this job
        began (the parent writes them only while that job runs), so none is this job's. Before
        the fork: the gate's non-blocking mode belongs to the pipe, which the children share."""
        os.set_blocking(self.gate, False)
        try:
            while os.read(self.gate, 64):
                pass
        except (BlockingIOError, InterruptedError):
            pass
        finally:
            os.set_blocking(self.gate, True)

    def announce(self, count: int) -> None:
        """Asks the parent for `count` slots."""
        self.conn.send((LEND, self.index, count))

    def give_back(self) -> None:
        """Says that this job's children are done: the slots lent them are free again."""
        self.conn.send((RETURN, self.index))

    def wait(self) -> None:
        """A child: blocks until the parent grants it a slot (EOF: the parent is gone)."""
        import select

        while True:
            try:
                select.select([self.gate], [], [])
                got = os.read(self.gate, 1)
            except (InterruptedError, BlockingIOError):  # another child took the token
                continue
            if not got:
                os._exit(1)
            return


def die_with_parent(parent: int) -> None:
    """A worker must not outlive a parent killed with SIGKILL: it would hold the run's stdout
    open (`refcheck check | cat` never ends) and keep parsing for nobody. Linux delivers a
    signal on the parent's death (PR_SET_PDEATHSIG); elsewhere a thread watches getppid()."""
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            PR_SET_PDEATHSIG = 1
            armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:  # died before the signal was armed
        os._exit(1)
    if not armed:
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()


def available() -> bool:
    """Whether this platform can fork a worker (the shared parse; else each shard parses)."""
    return hasattr(os, "fork") and sys.platform != "win32"


def native_threads_only_python(tries: int = 40) -> bool:
    """Whether every OS thread of this process is a Python thread (Linux: /proc/self/task): a
    thread of libclang's (a parse's crash-recovery thread) alive at a fork could leave a lock
    held in the child. A Python thread just joined may still be listed while it exits: asked
    again a few times, 5 ms apart. Elsewhere nothing to count: assumed, as libclang joins its
    threads before a parse returns."""
    for attempt in range(tries):
        try:
            tasks = {int(t) for t in os.listdir("/proc/self/task")}
        except (OSError, ValueError):
            return True
        if tasks <= {t.native_id for t in threading.enumerate()}:
            return True
        time.sleep(0.005)
    return False


def start(numbers: list[int], work, lender: Lender) -> list[Running]:
    """Forks one child per shard number; each waits for its slot, runs `work(number)` (a
    shards.Part) and sends it back. Returns the running children (the caller must `collect`)."""
    running = []
    lead = os.getpid()
    lender.drain()
    try:
        for number in numbers:
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns
                os.close(r)
                _child(number, work, lender, w, lead)
            os.close(w)
            running.append(Running(number, pid, r))
    except BaseException:
        collect(running, kill=True)
        raise
    if running:
        lender.announce(len(running))
    return running


def _child(number: int, work, lender: Lender, fd: int, lead: int) -> None:
    code = 0
    try:
        die_with_parent(lead)
        lender.wait()
        cpu, began = time.process_time(), time.monotonic()
        try:
            part = work(number)
            data = pickle.dumps(Child(number, part, time.process_time() - cpu, began=began, ended=time.monotonic()),
                                protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:  # a bug in refcheck: reported for this shard, as a worker reports it
            data = pickle.dumps(Child(number, error=f"internal error: {type(e).__name__}: {e}"))
        _write_all(fd, data)
    except BaseException:  # noqa: BLE001 - the lead reports a child that sent nothing as dead
        if os.environ.get("REFCHECK_DEBUG"):
            import traceback

            traceback.print_exc()
        code = 1
    finally:
        os._exit(code)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.close(fd)


def collect(running: list[Running], kill: bool = False) -> tuple[Child, ...]:
    """Each child's Child, in order, once its pipe ends; every child reaped. `kill`: stop them
    first (the lead's own check failed)."""
    out = []
    for c in running:
        if kill:
            try:
                os.kill(c.pid, 9)
            except OSError:
                pass
        chunks = []
        try:
            while True:
                got = os.read(c.fd, 1 << 20)
                if not got:
                    break
                chunks.append(got)
        except OSError:
            chunks = []
        finally:
            os.close(c.fd)
        status = _reap(c.pid)
        out.append(_decoded(c.number, b"".join(chunks), status))
    return tuple(out)


def _reap(pid: int) -> int | None:
    """The child's exit status, or -signal (as multiprocessing's exitcode)."""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            return None
        return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _decoded(number: int, data: bytes, status: int | None) -> Child:
    if status == 0 and data:
        try:
            got = pickle.loads(data)
            if isinstance(got, Child) and got.number == number:
                return got
        except Exception:  # noqa: BLE001 - a torn message: the child died writing it
            pass
    return Child(number, died=status if status else 1)
