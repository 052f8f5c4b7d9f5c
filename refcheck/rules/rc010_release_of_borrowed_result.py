from refcheck.rules.events import EventKind, Via
from refcheck.rules import Rule

RULE = Rule(
    "RC010", "release-of-borrowed-result",
    "the result of a call that gives no reference (a getter, luaT_checkudata) is released",
    "{what} {origin} is released but its caller holds no reference to it",
    reports=lambda ev: ev.kind is EventKind.RELEASED_BORROWED_RESULT,
    note=lambda ev: f"{'consumed' if ev.via is Via.CONSUME else 'released'} here without a retain",
)
