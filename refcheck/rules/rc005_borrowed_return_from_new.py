from refcheck.rules.events import EventKind, Origin
from refcheck.rules import Rule

# Returning NULL, or a pointer this function acquired and handed over, is not a missing retain.
_BORROWED = (Origin.PARAM, Origin.FIELD, Origin.RETAIN)

RULE = Rule(
    "RC005", "borrowed-return-from-new",
    "a `new*` function returns a reference it does not own (a missing retain)",
    "{what} {origin} is returned from a 'new' function without being owned (missing retain?)",
    reports=lambda ev: ev.kind is EventKind.RETURNED_BORROWED and ev.from_new and ev.obj.origin in _BORROWED,
    note=lambda ev: "returned here without retain",
)
