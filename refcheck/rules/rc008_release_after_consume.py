from refcheck.rules.events import EventKind, Via
from refcheck.rules import Rule

RULE = Rule(
    "RC008", "release-after-consume",
    "a reference is released after it was consumed (move, freeCopyTo)",
    "{what} {origin} is released after it was consumed",
    reports=lambda ev: ev.kind is EventKind.RELEASED_AFTER_CONSUME,
    note=lambda ev: f"{'consumed' if ev.via is Via.CONSUME else 'released'} here after it was consumed",
    shows_release=True,
)
