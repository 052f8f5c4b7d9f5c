"""prepass._Ends stands in for the Summarizer on the path `_returns` follows: every attribute the
transfer functions reach through `self.summarizer` must exist on it too (a set added to the
Summarizer alone was an internal error on BTrees, gom, libgusb: AttributeError in the prepass).
Both derive from observer.PathObserver, which holds what the transfer fills."""

from __future__ import annotations

import re
from pathlib import Path

from refcheck.analysis.observer import PathObserver
from refcheck.analysis.prepass import _Ends
from refcheck.analysis.summarize import Summarizer

ANALYSIS = Path(__file__).resolve().parents[2] / "refcheck" / "analysis"
# The modules whose code runs under Transfer (its mixins): the summarizer module itself excluded.
_USES = re.compile(r"self\.summarizer\.([A-Za-z_]\w*)")


def test_every_summarizer_attribute_the_transfer_reaches_is_on_the_stand_in():
    used = set()
    for path in ANALYSIS.glob("*.py"):
        if path.name == "summarize.py":
            continue
        used.update(_USES.findall(path.read_text()))
    assert used, "no use of self.summarizer found: the pattern is stale"
    ends = _Ends()
    missing = sorted(a for a in used if not hasattr(ends, a))
    assert not missing, missing


def test_the_summarizer_and_the_stand_in_share_the_observer_base():
    assert issubclass(_Ends, PathObserver) and issubclass(Summarizer, PathObserver)
    fresh = PathObserver()
    ends = _Ends()
    assert all(getattr(ends, a) == v for a, v in vars(fresh).items())
