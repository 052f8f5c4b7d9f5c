"""Bounds of a stepped integer past the constants it is compared with.

`Transfer.op_shift` keeps a stepped variable's value only where it is one the variable is
compared with (finitely many states per loop). A counter that leaves them (`for (i = 0; ...;
i++)` tested `if (i > 0)`) still stays on one side of them: after `i++` from 0, i > 0 on every
later trip. That side is kept as an exclusion of a half-line, `Above(k)` (every value <= k ruled
out: var > k) or `Below(k)` (var < k), k one of the compared constants, beside the excluded
values in `Facts.excluded`: facts are copied, met and forgotten as those are, and the marks are
finitely many. Stepping up keeps `Above` (a larger value stays above), stepping down keeps
`Below`; the other side is lost. This is what lets a chain walk that borrows its start and owns
every later link (`if (i > 0) Py_DECREF (cur);`, Cheetah's PyNamemapper_valueForName) pair its
releases with its trips.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Above:
    """The variable is greater than k."""

    k: int

    def __str__(self) -> str:
        return f"<={self.k}"


@dataclass(frozen=True)
class Below:
    """The variable is less than k."""

    k: int

    def __str__(self) -> str:
        return f">={self.k}"


def _numbers(compared: frozenset) -> list:
    return [c for c in compared if isinstance(c, int) and not isinstance(c, bool)]


def shifted(known, excluded: frozenset, delta: int, compared: frozenset) -> frozenset:
    """The half-line marks that hold of `src + delta`, given src's known value (or None) and its
    exclusions, where the sum is not itself one of the compared constants."""
    numbers = _numbers(compared)
    if known is not None and isinstance(known, int):
        value = known + delta
        lower = [c for c in numbers if c < value]
        upper = [c for c in numbers if c > value]
        out = set()
        if lower and delta > 0:
            out.add(Above(max(lower)))
        if upper and delta < 0:
            out.add(Below(min(upper)))
        return frozenset(out)
    keep = Above if delta > 0 else Below if delta < 0 else None
    return frozenset(m for m in excluded if keep is not None and type(m) is keep)


def decide(excluded: frozenset, op: str, k) -> bool | None:
    """Whether `var op k` holds where var's exclusions carry a half-line mark that decides it."""
    if not isinstance(k, int) or isinstance(k, bool):
        return None
    for m in excluded:
        if type(m) is Above and k <= m.k:  # var > m.k >= k
            return op in (">", ">=", "!=")
        if type(m) is Below and k >= m.k:  # var < m.k <= k
            return op in ("<", "<=", "!=")
    return None
