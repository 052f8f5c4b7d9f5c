from refcheck.rules.events import EventKind, Via
from refcheck.rules import Rule

RULE = Rule(
    "RC006", "release-of-borrowed",
    "a reference this function does not own is released",
    "{what} {origin} is released but this function does not own a reference to it",
    reports=lambda ev: ev.kind is EventKind.RELEASED_BORROWED,
    note=lambda ev: f"{'consumed' if ev.via is Via.CONSUME else 'released'} here without an owned reference",
)
