"""What the terminal on the other end wants: colour (--color, NO_COLOR, FORCE_COLOR)."""

from __future__ import annotations

import os
from typing import TextIO


def use_color(mode: str, stream: TextIO | None) -> bool:
    """`--color` resolved against the environment, by the conventions most tools share.

    "always"/"never" win over the environment (an explicit flag is the user's last word).
    For "auto": NO_COLOR set and non-empty turns colour off (https://no-color.org), FORCE_COLOR
    set (other than "0"/"false") turns it on for a pipe (CI log viewers that render ANSI), else colour
    goes to a terminal only (a file given with -o, `stream` None, never is one). TERM=dumb
    terminals get none.
    """
    if mode == "always":
        return True
    if mode == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "0").lower() not in ("", "0", "false"):
        return True
    if stream is None or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False
