"""THError and THArgCheck: the default handler prints and aborts; a handler that longjmps
lets the caller recover; one that returns still ends in abort, since THError never returns.
Argument checks run before allocations, so a recovered error leaves nothing behind (the
autouse live-object check)."""

import signal
import subprocess
import sys
import textwrap

import pytest

from th_ctypes import ROOT, THRaised


def run_python(th, body):
    """Runs body in a fresh interpreter with `th` bound to the same build."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / 'tests' / 'runtime')!r})
        from th_ctypes import TH
        th = TH({str(th.build_dir)!r})
    """) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)


def test_default_handler_prints_and_aborts(th):
    done = run_python(th, """
        T = th.tensor("Float")
        t = T.newWithSize2d(2, 3)
        T.newSelect(t, 5, 0)
        print("not reached")
    """)
    assert done.returncode == -signal.SIGABRT
    assert "TH error: invalid argument 2: dimension 5 out of range of 2D tensor" in done.stderr
    assert "THTensor.c:" in done.stderr
    assert "not reached" not in done.stdout


def test_a_handler_that_returns_still_aborts(th):
    done = run_python(th, """
        import ctypes
        HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)
        seen = []
        handler = HANDLER(lambda msg, data: seen.append(msg.decode()) or print("handled", seen[-1], flush=True))
        th.lib.THSetErrorHandler.argtypes = [HANDLER, ctypes.c_void_p]
        th.lib.THSetErrorHandler(handler, None)
        th.storage("Int").newWithSize(-1)
        print("not reached")
    """)
    assert done.returncode == -signal.SIGABRT
    assert "handled invalid argument 1: size must be non-negative, got -1" in done.stdout
    assert "TH error handler returned; aborting" in done.stderr


def test_recovering_handler_reports_the_message_and_location(th):
    T = th.tensor("Double")
    t = T.newWithSize1d(4)
    with pytest.raises(THRaised) as raised:
        th.catch(T.newNarrow, t, 0, 3, 2)
    message = str(raised.value)
    assert message.startswith("invalid argument 4: size 2 from 3 out of range for size 4")
    assert "generic/THTensor.c:" in message
    # The default handler is back and the library works on.
    n = T.newNarrow(t, 0, 1, 2)
    assert T.nElement(n) == 2
    T.free(n)
    T.free(t)


def test_recovery_can_repeat(th):
    """Each recovered error restores the default handler; the next one recovers as well."""
    S = th.storage("Byte")
    s = S.new()
    for _ in range(3):
        with pytest.raises(THRaised, match="index 0 out of bounds for size 0"):
            th.catch(S.get, s, 0)
    S.free(s)


@pytest.mark.parametrize("real", ["Byte", "Float"])
def test_failed_constructors_allocate_nothing(th, real):
    T, S = th.tensor(real), th.storage(real)
    vec = T.newWithSize1d(3)
    mat = T.newWithSize2d(2, 3)
    bad_size = th.long_storage([4, -1, -1])
    bad_stride = th.long_storage([1, 2])
    size3 = th.long_storage([1, 2, 3])
    calls = [
        (S.newWithSize, -5), (S.newWithAllocator, 3, None, None),
        (T.newWithSize4d, 1, 2, -3, 4), (T.newSelect, vec, 0, 1), (T.newNarrow, mat, 2, 0, 1),
        (T.newTranspose, mat, -1, 0), (T.newUnfold, mat, 1, 4, 1), (T.newView, mat, bad_size),
        (T.newExpand, mat, bad_stride), (T.newWithStorage, None, -1, None, None),
        (T.newWithStorage, None, 0, size3, bad_stride), (T.newWithStorage1d, None, 0, 2, -1),
    ]
    for fn, *args in calls:
        with pytest.raises(THRaised):
            th.catch(fn, *args)
    for s in (bad_size, bad_stride, size3):
        th.storage("Long").free(s)
    T.free(vec)
    T.free(mat)
