"""The record a callee's name gives through the configured patterns (`Conventions`' regular
expressions: the Golden Rule's `new*`, `free`, `retain` and the rest), where no table names it."""

from __future__ import annotations

from refcheck.conventions.summary import DEFAULT, Effect, Ends, Returns, Source, Summary, Tracked


def from_patterns(conv, name: str) -> Summary:
    """What the configured name patterns say of `name`: a releaser, a consumer, a retainer, a
    reallocator, an acquirer (`new`), an error or exit, a frame allocation; its sinks and flags."""
    arguments: list = []
    returns, returned, ends = Returns.BORROWED, None, Ends.RETURNS
    role = conv.pattern_role(name)
    if role == "release":
        arguments.append((Tracked.EVERY, Effect.RELEASE))
    elif role == "consume":
        arguments.append((Tracked.FIRST, Effect.CONSUME))
        if conv.matches("consume_owned", name):
            returns = Returns.OWNED
    elif role == "retain":
        arguments.append((Tracked.EVERY, Effect.RETAIN))
        returns, returned = Returns.ARGUMENT, Tracked.FIRST
    elif role == "reallocate":
        returns = Returns.REALLOCATED
    elif role in ("error", "exit"):
        ends = Ends(role)
    elif role == "acquire":
        returns, returned = Returns.OWNED, conv.pattern_value("may_return_argument", name)
    elif conv.matches("frame", name):
        returns = Returns.UNKNOWN  # stack memory: the frame's, no reference to anyone
    arguments.extend((i, Effect.SINK) for i in conv.pattern_value("sinks", name) or ())
    s = Summary(returns=returns, arguments=tuple(arguments), returned=returned, ends=ends,
                error_condition=conv.pattern_error_condition(name), may_fail=conv.matches("may_fail", name),
                may_raise=conv.matches("may_raise", name), pure=conv.matches("pure", name))
    return s if s == DEFAULT else Summary(**{**s.__dict__, "source": Source.CONVENTIONS})
