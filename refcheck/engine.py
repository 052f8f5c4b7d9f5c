"""One translation unit in, one UnitResult out: frontend -> CFG -> analysis -> findings."""

from __future__ import annotations

from dataclasses import dataclass, field

from refcheck.conventions import Conventions
from refcheck.model import UnitResult


@dataclass
class Settings:
    conventions: Conventions = field(default_factory=Conventions)
    # Arguments for clang (-I, -D, -U, -std=, -x ...), as the CLI or a compile database gives them.
    clang_args: list[str] = field(default_factory=list)
    # Paths in results are made relative to this directory when they lie under it.
    root: str = "."
    # Per-function bounds: states explored and seconds spent before giving up on it.
    max_states: int = 50_000
    function_seconds: float = 10.0


def check_unit(path: str, settings: Settings) -> UnitResult:
    raise NotImplementedError("being written")
