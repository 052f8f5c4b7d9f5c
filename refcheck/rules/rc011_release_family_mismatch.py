from refcheck.rules.events import EventKind, Via
from refcheck.rules import Rule

RULE = Rule(
    "RC011", "release-family-mismatch",
    "an owned reference is released by a releaser of another family than its acquirer's",
    "{what} {origin} is released by a function of another family",
    reports=lambda ev: ev.kind is EventKind.RELEASED_WRONG_FAMILY,
    note=lambda ev: f"{'consumed' if ev.via is Via.CONSUME else 'released'} here by {ev.text}, "
                    "which does not release what its acquirer made",
)
