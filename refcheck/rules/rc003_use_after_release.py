from refcheck.rules.events import EventKind, Via
from refcheck.rules import Rule

_NOTES = {Via.USE: "used here", Via.RETAIN: "retained here after release", Via.RETURN: "returned here after release"}

RULE = Rule(
    "RC003", "use-after-release",
    "a reference is used after it was released or handed over",
    "{what} {origin} is used after it was released",
    reports=lambda ev: ev.kind is EventKind.USED_AFTER_RELEASE,
    note=lambda ev: _NOTES[ev.via],
    shows_release=True,
    per_line=True,
    per_release=True,
)
