from refcheck.rules.events import EventKind
from refcheck.rules import Rule

RULE = Rule(
    "RC007", "overwritten-owner",
    "the only owner of a reference is overwritten while it still holds it",
    "{what} {origin} is overwritten while it still holds the only owned reference",
    reports=lambda ev: ev.kind is EventKind.OVERWRITTEN,
    note=lambda ev: "overwritten here",
)
