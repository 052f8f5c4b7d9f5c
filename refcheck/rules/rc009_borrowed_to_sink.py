from refcheck.rules.events import EventKind
from refcheck.rules import Rule

RULE = Rule(
    "RC009", "borrowed-to-sink",
    "a reference this function does not own is handed to a call that keeps it",
    "{what} {origin} is handed to a call that keeps it, but this function holds no reference to give",
    reports=lambda ev: ev.kind is EventKind.SUNK_BORROWED,
    note=lambda ev: f"kept here by {ev.text} without a retain first",
)
