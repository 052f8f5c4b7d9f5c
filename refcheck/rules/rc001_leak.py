from refcheck.rules.events import EventKind, Via
from refcheck.rules import Rule

_NOTES = {
    Via.DISCARD: "the result is not kept",
    Via.RETURN: "not released before this return",
    Via.END: "not released before the end of the function",
}


def _note(ev):
    return f"not released before {ev.text} unwinds" if ev.via is Via.UNWIND else _NOTES[ev.via]


RULE = Rule(
    "RC001", "leak",
    "an owned reference is not released or handed over on some path",
    "{what} {origin} is not released on this path",
    reports=lambda ev: ev.kind is EventKind.LOST,
    note=_note,
)
