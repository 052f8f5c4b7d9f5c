from refcheck.rules.events import EventKind, Via
from refcheck.rules import Rule

RULE = Rule(
    "RC002", "double-release",
    "a reference is released twice",
    "{what} {origin} is released again after it was already released",
    reports=lambda ev: ev.kind is EventKind.RELEASED_TWICE,
    note=lambda ev: f"{'consumed' if ev.via is Via.CONSUME else 'released'} again here",
    shows_release=True,
)
