"""The shared parse's fork mechanics (refcheck/driver/forking.py) without libclang: children wait
for their slot, send their part or die, and are all reaped."""

from __future__ import annotations

import os
import threading

import pytest

from refcheck.driver import forking

pytestmark = pytest.mark.skipif(not forking.available(), reason="no os.fork")


class _Conn:
    def __init__(self) -> None:
        self.sent = []

    def send(self, message) -> None:
        self.sent.append(message)


def _work(number: int):
    if number == 2:
        os._exit(3)
    if number == 3:
        raise ValueError("bad share")
    if number == 4:
        os.kill(os.getpid(), 9)
    return {"share": number, "pid": os.getpid()}


def test_children_wait_for_a_slot_report_and_are_reaped():
    r, w = os.pipe()
    os.write(w, b"\x01")  # a token left from an earlier job: drained, it starts nobody
    conn = _Conn()
    lender = forking.Lender(conn, r, 7)
    running = forking.start([1, 2, 3, 4], _work, lender)
    assert conn.sent == [(forking.LEND, 7, 4)]
    assert os.get_blocking(r)  # drained before the fork: the children share the pipe's mode
    # No child has its slot yet: none has written anything.
    os.set_blocking(running[0].fd, False)
    with pytest.raises(BlockingIOError):
        os.read(running[0].fd, 1)
    os.set_blocking(running[0].fd, True)
    os.write(w, b"\x01" * 4)
    got = forking.collect(running)
    os.close(r)
    os.close(w)
    assert [c.number for c in got] == [1, 2, 3, 4]
    assert got[0].part["share"] == 1 and got[0].part["pid"] != os.getpid() and got[0].died is None
    assert got[1].part is None and got[1].died == 3
    assert got[2].part is None and "internal error: ValueError: bad share" in got[2].error
    assert got[3].part is None and got[3].died == -9
    for c in running:  # reaped: no zombie left
        with pytest.raises(ChildProcessError):
            os.waitpid(c.pid, os.WNOHANG)


def test_a_failed_lead_kills_and_reaps_its_waiting_children():
    r, w = os.pipe()
    running = forking.start([1], _work, forking.Lender(_Conn(), r, 1))
    got = forking.collect(running, kill=True)  # never granted: killed where it waits
    os.close(r)
    os.close(w)
    assert got[0].part is None and got[0].died == -9
    with pytest.raises(ChildProcessError):
        os.waitpid(running[0].pid, os.WNOHANG)


def test_native_threads_are_counted():
    assert forking.native_threads_only_python()
    if not os.path.isdir("/proc/self/task"):
        return
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert forking.native_threads_only_python()  # a Python thread is one of them
    finally:
        stop.set()
        t.join()
    # A thread Python does not know of (as libclang's would be): a fork is refused.
    import ctypes

    libc = ctypes.CDLL(None)
    thread = ctypes.c_ulong()
    sleep = ctypes.cast(libc.sleep, ctypes.c_void_p)
    assert libc.pthread_create(ctypes.byref(thread), None, sleep, ctypes.c_void_p(1)) == 0
    try:
        assert not forking.native_threads_only_python(tries=2)
    finally:
        libc.pthread_join(thread, None)
    assert forking.native_threads_only_python()
