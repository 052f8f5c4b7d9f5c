"""The typed summary record of a callee: what a call does to the references it is given and
returns (issue 25), wherever it comes from: the conventions' names, a configured table, or the
analysis of the callee's body (issue 26, `refcheck.analysis.summarize`).

Libclang-free plain data; imports nothing from refcheck but model-level data.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from enum import Enum


class Effect(Enum):
    """What a call does to the reference passed in one argument."""

    BORROW = "borrow"
    RELEASE = "release"
    CONSUME = "consume"
    SINK = "sink"
    RETAIN = "retain"
    ACQUIRE_OUT = "acquire-out"
    CONSUME_ON_SUCCESS = "consume-on-success"


class Returns(Enum):
    BORROWED = "borrowed"
    OWNED = "owned"
    REALLOCATED = "reallocated"
    ARGUMENT = "argument"
    UNKNOWN = "unknown"


class Ends(Enum):
    RETURNS = "returns"
    ERROR = "error"
    EXIT = "exit"


class Tracked(Enum):
    """Positions relative to the call's tracked (reference-carrying) arguments."""

    EVERY = "every"
    FIRST = "first"


Position = int | Tracked


class Source(Enum):
    CONVENTIONS = "conventions"
    CONFIGURED = "configured"
    INFERRED = "inferred"
    DEFAULT = "default"


@dataclass(frozen=True)
class ErrorCondition:
    """A call that raises when argument `index` has truth value `raises_when`, else returns."""

    index: int
    raises_when: bool


@dataclass(frozen=True)
class Summary:
    returns: Returns = Returns.BORROWED
    arguments: tuple[tuple[Position, Effect], ...] = ()  # positions not listed borrow
    returned: Position | None = None
    ends: Ends = Ends.RETURNS
    error_condition: ErrorCondition | None = None
    may_fail: bool = False
    may_raise: bool = False
    pure: bool = False
    family: str | None = None
    source: Source = Source.DEFAULT

    def effects(self, nargs: int) -> dict[int | Tracked, Effect]:
        """The listed effects, integer positions resolved against nargs (out of range: dropped)."""
        out: dict[int | Tracked, Effect] = {}
        for pos, effect in self.arguments:
            if isinstance(pos, Tracked):
                out[pos] = effect
            else:
                i = pos + nargs if pos < 0 else pos
                if 0 <= i < nargs:
                    out[i] = effect
        return out

    @property
    def role(self) -> str | None:
        """The old `Conventions.classify` string: the most specific role, None for a borrow."""
        effects = {e for _, e in self.arguments}
        for effect, role in ((Effect.RELEASE, "release"), (Effect.CONSUME, "consume"), (Effect.RETAIN, "retain")):
            if effect in effects:
                return role
        if self.returns is Returns.REALLOCATED:
            return "reallocate"
        if self.ends is Ends.ERROR:
            return "error"
        if self.ends is Ends.EXIT:
            return "exit"
        if self.returns is Returns.OWNED:
            return "acquire"
        return None

    @property
    def says_something(self) -> bool:
        """Anything but the default record (a borrowing call that returns): worth handing on."""
        return replace_source(self, Source.DEFAULT) != DEFAULT

    def digest(self) -> str:
        """Stable text of the record, for cache keys."""
        return hashlib.sha256(repr(record_table(self)).encode()).hexdigest()[:16]


DEFAULT = Summary()


class SummaryTable:
    """The inferred summaries a unit's check may use, by callee name, filling as callees are
    analysed; it notes every name asked for (where the names said nothing), so that the engine
    knows which summaries a function's check used (its cache key, a re-check when one changes).
    Mutable on purpose: one per unit, owned by the engine."""

    def __init__(self, known: dict[str, Summary] | None = None):
        self.known: dict[str, Summary] = dict(known or {})
        self.asked: set[str] = set()
        self.ever: set[str] = set()  # every name asked for during the unit's check

    def get(self, name: str) -> Summary | None:
        self.asked.add(name)
        self.ever.add(name)
        return self.known.get(name)

    def used(self, names) -> tuple[tuple[str, str], ...]:
        """(name, digest) of each name's summary now (\"-\": none), sorted: what a check used."""
        return tuple(sorted((n, self.known[n].digest() if n in self.known else "-") for n in names))


def replace_source(s: Summary, source: Source) -> Summary:
    from dataclasses import replace

    return replace(s, source=source)


# -- tables ([tool.refcheck.summaries.NAME], generated presets) --------------------------------
_FIELDS = ("returns", "arguments", "returned", "ends", "error-condition", "may-fail", "may-raise", "pure", "family")


class SummaryError(ValueError):
    """A summary table that cannot be read: the message says where and why."""


def _position(text, where: str) -> Position:
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    if isinstance(text, str):
        for t in Tracked:
            if text == t.value:
                return t
        try:
            return int(text)
        except ValueError:
            pass
    raise SummaryError(f"{where}: argument position {text!r} is not an integer, 'every' or 'first'")


def _enum(cls, value, where: str):
    for member in cls:
        if value == member.value:
            return member
    names = [m.value for m in cls]
    near = difflib.get_close_matches(str(value), names, n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    raise SummaryError(f"{where}: {value!r} is not one of {', '.join(names)}{hint}")


def _flag(table: dict, key: str, where: str) -> bool:
    v = table.get(key, False)
    if not isinstance(v, bool):
        raise SummaryError(f"{where}.{key}: expected true or false")
    return v


def parse_record(table: dict, where: str, source: Source = Source.CONFIGURED) -> Summary:
    """One `[tool.refcheck.summaries.NAME]` table as a record; SummaryError says what is wrong."""
    if not isinstance(table, dict):
        raise SummaryError(f"{where}: expected a table")
    for key in table:
        if key not in _FIELDS:
            near = difflib.get_close_matches(key, _FIELDS, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise SummaryError(f"{where}: unknown key {key!r}{hint}")
    args = table.get("arguments", {})
    if not isinstance(args, dict):
        raise SummaryError(f"{where}.arguments: expected a table of position = effect")
    arguments = tuple((_position(k, f"{where}.arguments"), _enum(Effect, v, f"{where}.arguments.{k}"))
                      for k, v in args.items())
    returned = table.get("returned")
    cond = table.get("error-condition")
    if cond is not None:
        if not (isinstance(cond, dict) and isinstance(cond.get("index"), int)
                and isinstance(cond.get("raises-when"), bool)):
            raise SummaryError(f"{where}.error-condition: expected {{ index = N, raises-when = true|false }}")
        cond = ErrorCondition(cond["index"], cond["raises-when"])
    family = table.get("family")
    if family is not None and not isinstance(family, str):
        raise SummaryError(f"{where}.family: expected a string")
    return Summary(
        returns=_enum(Returns, table.get("returns", "borrowed"), f"{where}.returns"),
        arguments=arguments,
        returned=_position(returned, f"{where}.returned") if returned is not None else None,
        ends=_enum(Ends, table.get("ends", "returns"), f"{where}.ends"),
        error_condition=cond,
        may_fail=_flag(table, "may-fail", where), may_raise=_flag(table, "may-raise", where),
        pure=_flag(table, "pure", where), family=family, source=source)


def record_table(s: Summary) -> dict:
    """The record as a table `parse_record` reads back (defaults left out)."""
    out: dict = {}
    if s.returns is not Returns.BORROWED:
        out["returns"] = s.returns.value
    if s.arguments:
        out["arguments"] = {(p.value if isinstance(p, Tracked) else str(p)): e.value for p, e in s.arguments}
    if s.returned is not None:
        out["returned"] = s.returned.value if isinstance(s.returned, Tracked) else s.returned
    if s.ends is not Ends.RETURNS:
        out["ends"] = s.ends.value
    if s.error_condition is not None:
        out["error-condition"] = {"index": s.error_condition.index, "raises-when": s.error_condition.raises_when}
    for key, v in (("may-fail", s.may_fail), ("may-raise", s.may_raise), ("pure", s.pure)):
        if v:
            out[key] = True
    if s.family is not None:
        out["family"] = s.family
    return out
