"""A Summary as a TOML table and back: `[tool.refcheck.summaries.NAME]`, the generated preset
tables and the caches all write and read records through here."""

from __future__ import annotations

from dataclasses import fields
from enum import Enum

from refcheck.conventions.summary import (CONDITIONAL_EFFECTS, DEFAULT, Effect, Ends, ErrorCondition, Returns, Source,
                                          Summary, Tracked, When)

_NAMED = {"consume-on-success": (Effect.CONSUME, When.ZERO)}

def _close_matches(word: str, names, n: int = 1) -> list[str]:
    import difflib  # only for a typo's message

    return difflib.get_close_matches(word, names, n=n)


# -- configuration: one table per callee ---------------------------------------------------------

# The record's fields a table may set, and the key spelling of each.
# Conditional effects are written in `arguments` (`2 = { effect = "release", when = "zero" }`).
_KEYS = {f.name.replace("_", "-"): f.name for f in fields(Summary)
         if f.name not in ("source", "conditional", "assumed", "leans")}


class RecordError(ValueError):
    """A summary table that does not describe a record; the message says which key and why."""


def parse_record(table: object, where: str, source: Source = Source.CONFIGURED) -> Summary:
    """A Summary from one `[tool.refcheck.summaries.NAME]` table (or a generated preset entry)."""
    if not isinstance(table, dict):
        raise RecordError(f"{where}: expected a table, got {type(table).__name__}")
    values: dict = {"source": source}
    for key, value in table.items():
        name = _KEYS.get(key)
        if name is None:
            close = _close_matches(str(key), _KEYS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise RecordError(f"{where}: unknown key '{key}'{hint}")
        try:
            values[name] = _READERS[name](value)
        except (ValueError, TypeError) as e:
            raise RecordError(f"{where}: key '{key}': {e}") from None
    if "owned_if_null" in values and values.get("returns") is not Returns.OWNED:
        raise RecordError(f"{where}: key 'owned-if-null' needs returns = \"owned\"")
    if "owned_if_flag" in values and values.get("returns") is not Returns.OWNED:
        raise RecordError(f"{where}: key 'owned-if-flag' needs returns = \"owned\"")
    if "owned_by_flag" in values and values.get("returns") is not Returns.OWNED:
        raise RecordError(f"{where}: key 'owned-by-flag' needs returns = \"owned\"")
    if "argument_when" in values and values.get("returns") is not Returns.OWNED:
        raise RecordError(f"{where}: key 'argument-when' needs returns = \"owned\"")
    if "unless_singleton" in values and values.get("returns") is not Returns.OWNED:
        raise RecordError(f"{where}: key 'unless-singleton' needs returns = \"owned\"")
    if "arguments" in values:
        read = values["arguments"]
        values["arguments"] = tuple((p, e) for p, e, w in read if w is None)
        values["conditional"] = tuple((p, e, w) for p, e, w in read if w is not None)
        if any(not isinstance(p, int) for p, _, _ in values["conditional"]):
            raise RecordError(f"{where}: key 'arguments': a conditional effect's position is an argument index")
    outs = {p for p, e, _ in values.get("conditional", ()) if e is Effect.ACQUIRE_OUT}
    if not set(values.get("fills_kept", ())) <= outs:
        raise RecordError(f"{where}: key 'fills-kept' names an argument without a conditional \"acquire-out\"")
    fills = {p for p, e in values.get("arguments", ()) if e is Effect.ACQUIRE_OUT}
    if not {x for pair in values.get("fills_with", ()) for x in pair} <= fills:
        raise RecordError(f"{where}: key 'fills-with' names an argument without a plain \"acquire-out\"")
    given = {p for p, e, _ in values.get("conditional", ()) if e in (Effect.RELEASE, Effect.CONSUME)}
    if not set(values.get("maybe_given", ())) <= given:
        raise RecordError(f"{where}: key 'maybe-given' names an argument without a conditional "
                          "\"release\" or \"consume\"")
    return Summary(**values)


def record_table(s: Summary) -> dict:
    """The table `parse_record` reads back as `s` (fields at their default are left out)."""
    out: dict = {}
    for key, name in _KEYS.items():
        value = getattr(s, name)
        if name == "arguments":
            value = value + s.conditional
        if value == getattr(DEFAULT, name):
            continue
        out[key] = _WRITERS.get(name, _plain)(value)
    return out


def _enum(kind):
    def read(v):
        try:
            return kind(v)
        except ValueError:
            names = [m.value for m in kind]
            close = _close_matches(str(v), names, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ValueError(f"expected one of {', '.join(map(repr, names))}, got {v!r}{hint}") from None
    return read


def _position(v) -> int | Tracked:
    if isinstance(v, str):
        try:
            return Tracked(v)
        except ValueError:
            pass
        try:
            return int(v)
        except ValueError:
            raise ValueError(f"a position is an argument index or 'every'/'first', got {v!r}") from None
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise ValueError(f"a position is an argument index or 'every'/'first', got {v!r}")


def _arguments(v) -> tuple:
    """(position, effect, When or None) triples: an effect's name, a conditional effect's name
    (`"consume-on-success"`) or its table (`{ effect = "release", when = "zero" }`)."""
    if not isinstance(v, dict):
        raise ValueError("expected a table of position = effect")
    return tuple((_position(p), *_effect(e)) for p, e in v.items())


def _effect(v) -> tuple[Effect, When | None]:
    if isinstance(v, dict):
        for key in v:
            if key not in ("effect", "when"):
                close = _close_matches(str(key), ["effect", "when"], n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                raise ValueError(f"unknown key '{key}' in a conditional effect{hint}")
        if set(v) != {"effect", "when"}:
            raise ValueError('a conditional effect is { effect = "release", when = "zero"|"nonzero"|"positive"|"negative"|"nonnegative" }')
        effect, when = _enum(Effect)(v["effect"]), _enum(When)(v["when"])
        if effect not in CONDITIONAL_EFFECTS:
            names = ", ".join(repr(e.value) for e in CONDITIONAL_EFFECTS)
            raise ValueError(f"a conditional effect is one of {names}, got {effect.value!r}")
        if when is When.POSITIVE and effect is not Effect.ACQUIRE_OUT:
            raise ValueError('when = "positive" is for an "acquire-out" effect only')
        return effect, when
    if isinstance(v, str) and v in _NAMED:
        return _NAMED[v]
    try:
        return Effect(v), None
    except ValueError:
        names = [m.value for m in Effect] + list(_NAMED)
        close = _close_matches(str(v), names, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise ValueError(f"expected one of {', '.join(map(repr, names))}, got {v!r}{hint}") from None


def _write_effect(e: Effect, w: When | None):
    if w is None:
        return e.value
    named = next((n for n, ew in _NAMED.items() if ew == (e, w)), None)
    return named or {"effect": e.value, "when": w.value}


def _bool(v) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"expected true or false, got {v!r}")
    return v


def _condition(v) -> ErrorCondition:
    if not isinstance(v, dict) or set(v) != {"index", "raises-when"}:
        raise ValueError("expected { index = N, raises-when = true|false }")
    index = _position(v["index"])
    if not isinstance(index, int):
        raise ValueError("the condition's index is an argument index")
    return ErrorCondition(index, _bool(v["raises-when"]))


def _index(v) -> int:
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise ValueError(f"expected an argument index, got {v!r}")


def _family(v) -> str:
    if not isinstance(v, str) or not v:
        raise ValueError(f"expected a non-empty string, got {v!r}")
    return v


def _flag(v) -> tuple:
    if not isinstance(v, (list, tuple)) or len(v) != 2 or not isinstance(v[0], int) or isinstance(v[0], bool) \
            or v[0] < 0 or not isinstance(v[1], bool):
        raise ValueError("expected [argument index, true|false]")
    return (v[0], v[1])


def _test(v) -> tuple:
    """(index, condition key) from `[1, "call:... @ ..."]` (`Summary.argument_when`)."""
    if not isinstance(v, (list, tuple)) or len(v) != 2 or not isinstance(v[0], int) or isinstance(v[0], bool) \
            or v[0] < 0 or not isinstance(v[1], str) or "@" not in v[1].split(" "):
        raise ValueError('expected [argument index, "test key with @ for the argument"]')
    return (v[0], v[1])


def _indices(v) -> tuple:
    """Sorted argument indices from a list of them (`unkept = [1, 2]`)."""
    if not isinstance(v, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in v):
        raise ValueError(f"expected a list of argument indices, got {v!r}")
    return tuple(sorted(set(v)))


def _fields(v) -> tuple:
    """Sorted (index, field) pairs from `[[0, "route_state"]]`."""
    if not isinstance(v, list) or not all(isinstance(x, list) and len(x) == 2 and isinstance(x[0], int)
                                          and not isinstance(x[0], bool) and x[0] >= 0
                                          and isinstance(x[1], str) and x[1].isidentifier() for x in v):
        raise ValueError(f"expected a list of [argument index, field name] pairs, got {v!r}")
    return tuple(sorted({(x[0], x[1]) for x in v}))


def _pairs(v) -> tuple:
    """Sorted (index, leader) pairs from `[[1, 0], [2, 0]]`."""
    if not isinstance(v, list) or not all(isinstance(x, list) and len(x) == 2 and all(
            isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in x) for x in v):
        raise ValueError(f"expected a list of [argument index, leader index] pairs, got {v!r}")
    return tuple(sorted({(x[0], x[1]) for x in v}))


def _constants(v) -> tuple:
    """Sorted (index, constant) pairs from `[[1, 0]]`: the result where that argument is NULL."""
    if not isinstance(v, list) or not all(isinstance(x, list) and len(x) == 2 and all(
            isinstance(i, int) and not isinstance(i, bool) for i in x) and x[0] >= 0 for x in v):
        raise ValueError(f"expected a list of [argument index, integer result] pairs, got {v!r}")
    return tuple(sorted({(x[0], x[1]) for x in v}))


def _variadic(v) -> tuple:
    """(index, Effect) from `{ from = 1, effect = "consume" }`."""
    if not isinstance(v, dict) or set(v) != {"from", "effect"}:
        raise ValueError('expected { from = N, effect = "consume" }')
    index, (effect, when) = _index(v["from"]), _effect(v["effect"])
    if index < 0 or when is not None:
        raise ValueError("the variadic arguments start at an index >= 0 and have a plain effect")
    return (index, effect)


def _members(v) -> tuple:
    """(field, Returns) pairs from `{ chunk = "owned" }`, sorted by field."""
    if not isinstance(v, dict) or not all(isinstance(k, str) and k for k in v):
        raise ValueError('expected a table of field = "owned"|"borrowed"')
    return tuple(sorted((k, _enum(Returns)(r)) for k, r in v.items()))


_READERS = {
    "returns": _enum(Returns), "arguments": _arguments, "returned": _position,
    "ends": _enum(Ends), "error_condition": _condition, "may_fail": _bool, "may_raise": _bool,
    "pure": _bool, "floating": _bool, "family": _family, "any_family": _bool, "owned_if_null": _index,
    "owned_if_flag": _index,
    "unless_singleton": _family, "members": _members, "unkept": _indices,
    "frees_contents": _indices, "owned_by_flag": _flag, "argument_when": _test, "fills_kept": _indices, "variadic": _variadic,
    "maybe_given": _indices, "fills_with": _pairs, "given_some": _indices,
    "forwards": _pairs,
    "null_when_flags": _fields, "null_when_nonzero": _indices, "result_kept": _bool, "result_held": _bool,
    "result_constant": _index, "constant_if_null": _constants,
}


def _plain(v):
    if isinstance(v, Enum):
        return v.value
    return v


_WRITERS = {
    "arguments": lambda v: {str(_plain(a[0])): _write_effect(a[1], a[2] if len(a) > 2 else None) for a in v},
    "error_condition": lambda c: {"index": c.index, "raises-when": c.raises_when},
    "members": lambda v: {f: r.value for f, r in v},
    "unkept": list,
    "frees_contents": list,
    "owned_by_flag": list,
    "argument_when": list,
    "fills_kept": list,
    "maybe_given": list,
    "given_some": list,
    "null_when_nonzero": list,
    "fills_with": lambda v: [list(x) for x in v],
    "constant_if_null": lambda v: [list(x) for x in v],
    "forwards": lambda v: [list(x) for x in v],
    "null_when_flags": lambda v: [list(x) for x in v],
    "variadic": lambda v: {"from": v[0], "effect": v[1].value},
}
