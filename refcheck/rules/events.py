"""What the ownership analysis observes, handed to the rules: the interface between the two.

The analysis turns ops into states and these events; it knows no rule codes. Each rule
(`refcheck/rules/`) says which events it reports and how to word them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from refcheck.findings import Location


class Nullness(enum.IntEnum):
    MAYBE = 0
    NULL = 1
    NONNULL = 2


class Gone(enum.IntEnum):
    """What happened to the last owned reference this function held to an object."""

    NO = 0
    RELEASED = 1
    CONSUMED = 2


class Origin(enum.IntEnum):
    """Where a tracked object came from, as messages and paths tell it."""

    ACQUIRE = 0  # the result of an acquire (or reallocate) call: owned
    PARAM = 1  # a pointer parameter: borrowed
    FIELD = 2  # loaded from memory: borrowed
    RETAIN = 3  # a borrowed object this function retained
    NULL = 4  # a known NULL assigned to a variable (never reported)
    RESULT = 5  # the pointer result of a call that is not an acquirer: borrowed
    HELD = 6  # the reference a location held from an earlier call (never tracked: a store's event)


class EventKind(enum.Enum):
    LOST = "lost"  # an owned reference is lost (no holder left, at a return, an exit, ...)
    OVERWRITTEN = "overwritten"  # its last holder was assigned while it was still owned
    RELEASED_TWICE = "released-twice"
    RELEASED_AFTER_CONSUME = "released-after-consume"
    RELEASED_BORROWED = "released-borrowed"  # released with no owned reference held
    USED_AFTER_RELEASE = "used-after-release"
    RETURNED_OWNED = "returned-owned"
    RETURNED_BORROWED = "returned-borrowed"  # returned with no owned reference, not released
    RELEASED_WRONG_FAMILY = "released-wrong-family"  # released by a releaser of another family
    RELEASED_BORROWED_RESULT = "released-borrowed-result"  # a borrowing call's result released
    SUNK_BORROWED = "sunk-borrowed"  # handed to a sink without an owned reference


class Via(enum.Enum):
    """How the event happened: the statement that caused it."""

    DISCARD = "discard"  # a temporary died, or a result was not kept
    ASSIGN = "assign"
    RETURN = "return"
    END = "end"  # falling off the end of the function
    UNWIND = "unwind"  # an error call that unwinds (errors = "unwind")
    USE = "use"
    RETAIN = "retain"
    RELEASE = "release"
    CONSUME = "consume"


@dataclass(frozen=True)
class Event:
    kind: EventKind
    via: Via
    loc: Location  # where it happened: the finding's primary location
    # The object as it was when the event happened (its origin, site, name, released_at).
    obj: object
    holder: str | None = None  # the variable that held it (raw value name), if any
    from_new: bool = False  # the current function is a `new*` function
    text: str = ""  # the error call's text, for UNWIND
