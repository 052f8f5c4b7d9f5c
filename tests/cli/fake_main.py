"""`python fake_main.py ARGS`: the refcheck command with the fake engine, for subprocess tests."""

import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])

import fake_engine  # noqa: E402

fake_engine.install()

from refcheck.commands.cli import main  # noqa: E402

main(sys.argv[1:])
