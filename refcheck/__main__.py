"""`python -m refcheck` and the `refcheck` console script.

The CLI is imported inside the guard so that Ctrl-C while Python is still importing (libclang,
click) ends with the same exit code and one line as Ctrl-C during a run, not a traceback.
"""

import sys


def run() -> None:
    try:
        from refcheck.support.gcpause import paused_collector

        with paused_collector():  # see gcpause.py: the start's imports leave no garbage cycles
            from refcheck.commands.cli import main
    except KeyboardInterrupt:
        print("refcheck: interrupted", file=sys.stderr)
        sys.exit(130)
    main()


if __name__ == "__main__":
    run()
