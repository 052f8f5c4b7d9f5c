"""Which implementation answers the graph build's per-cursor libclang queries: the compiled
`_cwalk` (refcheck/frontend/_cwalk.c, with the instance keys' passes of _ckeys.c, built at install
time where a C compiler is there) or the pure-Python twins in binding.py and refcheck/reuse, which
are the fallback and the oracle the tests compare it with.

Chosen once per process, at import: `REFCHECK_PURE_PYTHON=1` forces the Python path; a module
built from other versions of its sources than the ones beside it (an editable install whose source
changed since) is refused. Both paths give the same values; only the time differs.
"""

from __future__ import annotations

import enum
import hashlib
import os
from dataclasses import dataclass

PURE_ENV = "REFCHECK_PURE_PYTHON"


class Why(enum.Enum):
    COMPILED = "compiled"
    FORCED = "forced"
    NOT_BUILT = "not built"
    STALE = "stale"


@dataclass(frozen=True)
class Choice:
    module: object | None  # the extension module, None on the Python path
    why: Why
    detail: str = ""

    def describe(self) -> str:
        """One line for `refcheck doctor` and the CLI's notice."""
        if self.why is Why.COMPILED:
            return f"compiled ({self.detail})"
        if self.why is Why.FORCED:
            return f"pure Python ({PURE_ENV} is set)"
        if self.why is Why.STALE:
            return f"pure Python (the compiled walk is stale: {self.detail}; reinstall to rebuild it)"
        return f"pure Python (the compiled walk is not built: {self.detail})"


# The files the module is built from, in setup.py's order (SOURCES, HEADERS).
SOURCES = ("_cwalk.c", "_ckeys.c", "_cconds.c", "_ctokens.c", "_cquery.c", "_cseqs.c", "_cgraph.c", "_ckeys.h", "_ctokens.h", "_cwalk.h")


def _digest(paths: list[str]) -> str | None:
    """setup.py's source_digest of the sources beside the module, None where they are not shipped."""
    digest = hashlib.sha256()
    try:
        for path in paths:
            with open(path, "rb") as f:
                digest.update(f.read())
    except OSError:
        return None
    return digest.hexdigest()[:16]


def choose() -> Choice:
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return Choice(None, Why.FORCED)
    try:
        from refcheck.frontend import _cwalk
    except ImportError as e:
        return Choice(None, Why.NOT_BUILT, str(e) or type(e).__name__)
    source = _digest([os.path.join(os.path.dirname(__file__), name) for name in SOURCES])
    built = getattr(_cwalk, "SOURCE_DIGEST", "")
    if source is not None and built != source:
        return Choice(None, Why.STALE, f"built from {built or 'unknown'}, source is {source}")
    return Choice(_cwalk, Why.COMPILED, _cwalk.__file__)


CHOICE = choose()


def notice() -> str | None:
    """The one stderr line a run prints where the compiled walk was wanted but is missing; none
    where it runs or where the Python path was chosen (REFCHECK_PURE_PYTHON=1 also silences it)."""
    if CHOICE.why in (Why.NOT_BUILT, Why.STALE):
        what = "not built" if CHOICE.why is Why.NOT_BUILT else "stale"
        return (f"refcheck: note: the compiled libclang walk is {what} (refcheck doctor says why); "
                f"checks run at the pure-Python speed ({PURE_ENV}=1 chooses it and silences this line)")
    return None
