"""A failure told by a flag field beside a NULL result (`Summary.null_when_flags`).

mwparserfromhell's tokenizer fails a route by setting `self->route_state` (its `BAD_ROUTE`
macro) and returning NULL: `Tokenizer_fail_route (self)` stores 1 there and returns NULL, and
`Tokenizer_parse (self, ...)` returns its result. Callers test the flag before the result
(`stack = Tokenizer_parse (self, ...); if (BAD_ROUTE) { ...; return 0; } if (!stack) return -1;`):
where the flag is set, the result is NULL and nothing leaks.

Inferred from the body (`null_when_flags`): a function returning a pointer, some path of which
sets the integer field `F` of a pointer parameter `p` (a store of a non-zero constant, or a call
whose record says it sets it, handed `p`), where every return reachable from each such place
returns NULL or the result of such a call. At a call whose record has it, the result's non-NULL
edge writes the flag's fact false (`ir.Store` with `truth=False`): the call did not set it, and a
caller testing it right after the call expects it clear before. The NULL edge leaves the flag
unknown (the call may have failed otherwise, `if (!stack) return -1;`).
"""

from __future__ import annotations

from refcheck import ir
from refcheck.frontend.aliases import plain_local


def field_key(field: str, var: str) -> str:
    """The condition key of `var->field` (`conditions.fact_key`'s text of a member of a local)."""
    return f".{field}( 1 {var}"


def keys_at_call(b, summary, args: list) -> dict:
    """The keys of the flags this call may set, each with the local handed there."""
    out = {}
    for index, field in summary.null_when_flags:
        v = plain_local(b, args[index]) if index < len(args) else None
        if v is not None:
            out[field_key(field, v)] = v
    return out


def split_result(b, loc, name: str, t: str, keys: dict) -> None:
    """After `t = name (...)`: on t's non-NULL edge the call set none of these flags."""
    join = b.non_null_arm(loc, t, f"{name} returned a value, its flag clear")
    for key, v in keys.items():
        b.emit(ir.Store(loc, None, key, frozenset((v,)), truth=False))
    b.goto(join)
    b.cur = join


def inferred(b, params: list, returns_pointer: bool) -> tuple:
    """(parameter index, field) pairs the body sets only on its way to a NULL return."""
    if not returns_pointer or not b.flag_sets:
        return ()
    index = {v: i for i, (v, pointer) in enumerate(params) if pointer}
    sets: dict = {}
    for node, key in b.flag_sets:
        if node in b.g:  # not in dead code (removed with the unreachable nodes)
            sets.setdefault(key, set()).add(node)
    out = []
    for key, nodes in sets.items():
        field, _, rest = key[1:].partition("( 1 ")
        if rest not in index or not field.isidentifier():
            continue
        if all(null_return(b, r, key) for n in nodes for r in returns_from(b, n)):
            out.append((index[rest], field))
    return tuple(sorted(out))


def returns_from(b, start: int) -> list:
    """The return nodes reachable from `start`."""
    seen, todo, found = {start}, [start], []
    while todo:
        n = todo.pop()
        if b.data[n].kind == "return":
            found.append(n)
            continue
        for m in b.g.successors(n):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return found


def null_return(b, n: int, key: str) -> bool:
    """`return NULL;`, or the result of a call that sets this flag only when it returns NULL."""
    d = b.data[n]
    return (d.value is None and d.const == 0) or key in b.flag_returns.get(n, ())
