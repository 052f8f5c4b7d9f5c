from refcheck.rules.events import EventKind
from refcheck.rules import Rule

RULE = Rule(
    "RC004", "owned-return-from-non-new",
    "a function whose name does not begin with `new` returns an owned reference",
    "{what} {origin} is returned owned from a function whose name does not begin with 'new'",
    reports=lambda ev: ev.kind is EventKind.RETURNED_OWNED and not ev.from_new,
    note=lambda ev: "returned here",
    merged="{refs} are returned owned from a function whose name does not begin with 'new'",
)
