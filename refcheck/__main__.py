"""`python -m refcheck` and the `refcheck` console script.

The CLI is imported inside the guard so that Ctrl-C while Python is still importing (libclang,
click) ends with the same exit code and one line as Ctrl-C during a run, not a traceback.
"""

import sys


def run() -> None:
    try:
        from refcheck.support import dccache

        dccache.install()  # @dataclass's compiles from the last run's (dccache.py)
        from refcheck.commands import prestart

        prestart.start(sys.argv)  # the first worker's imports beside the parent's (prestart.py)
        from refcheck.support.gcpause import paused_collector

        with paused_collector():  # see gcpause.py: the start's imports leave no garbage cycles
            from refcheck.commands.cli import main
    except KeyboardInterrupt:
        print("refcheck: interrupted", file=sys.stderr)
        sys.exit(130)
    try:
        main()
    except SystemExit as done:
        _exit(done)


def _exit(done: SystemExit) -> None:
    """Ends the process as `sys.exit` would, less the interpreter's teardown: freeing the check's
    250 modules and their objects one by one was 25-30 ms of CPU after the report was written,
    an eighth of a one-unit run's. Threads are waited for, the exit handlers run and the standard
    streams are flushed, as at Python's own exit; where a stream cannot be flushed before the
    handlers ran (a closed pipe), Python's own exit reports it."""
    import atexit
    import os

    code = done.code
    if code is not None and not isinstance(code, int):
        raise done  # a message: Python prints it
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - Python's own exit reports whatever this was
        raise done from None
    if "threading" in sys.modules:
        sys.modules["threading"]._shutdown()  # the non-daemon threads, as Python's exit waits for them
    atexit._run_exitfuncs()  # once: the process then ends by os._exit, not by Python's exit
    try:
        sys.stdout.flush()  # what the handlers printed
        sys.stderr.flush()
    except (OSError, ValueError):
        os._exit(120)  # Python's own status when it cannot flush stdout at exit
    os._exit(code or 0)


if __name__ == "__main__":
    run()
