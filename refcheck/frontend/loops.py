"""The parts of a for statement (init, condition, increment, body): libclang lists only those
present, so which child is which is read from the source's semicolons, else from their shapes."""

from __future__ import annotations

from refcheck.frontend.clangutil import K, binop, kind_of, strip, unop
from refcheck.frontend.clangutil import kids as children_of


def for_parts(c):
    """(init, cond, inc, body) of a for statement; libclang leaves out the missing ones."""
    kids = list(children_of(c))
    body = kids[-1]
    rest = kids[:-1]
    if len(rest) == 3:
        return rest[0], rest[1], rest[2], body
    if not rest:
        return None, None, None, body
    roles = _roles_from_source(c, rest)
    if roles is None:
        roles = _roles_by_shape(rest)
    parts = {"init": None, "cond": None, "inc": None}
    for role, child in zip(roles, rest):
        parts[role] = child
    return parts["init"], parts["cond"], parts["inc"], body


def _roles_from_source(c, rest):
    """Place each child between the semicolons of `for ( ; ; )` in the source text."""
    try:
        tokens = list(c.get_tokens())
    except Exception:  # noqa: BLE001
        return None
    if not tokens or tokens[0].spelling != "for":
        return None  # expanded from a macro: the tokens are the macro call's
    depth, semis = 0, []
    for tok in tokens[1:]:
        s = tok.spelling
        if s in "([{":
            depth += 1
        elif s in ")]}":
            depth -= 1
            if depth == 0:
                break
        elif s == ";" and depth == 1:
            semis.append(tok.extent.start.offset)
    if len(semis) != 2:
        return None
    roles = []
    for child in rest:
        off = child.extent.start.offset
        roles.append("init" if off < semis[0] else "cond" if off < semis[1] else "inc")
    if len(set(roles)) != len(roles):
        return None
    return roles


def _roles_by_shape(rest):
    def looks_inc(x):
        x = strip(x)
        if kind_of(x) == K.UNARY_OPERATOR and unop(x) in ("++", "--", "post++", "post--"):
            return True
        if kind_of(x) == K.COMPOUND_ASSIGNMENT_OPERATOR:
            return True
        return kind_of(x) == K.BINARY_OPERATOR and binop(x) == ","

    def looks_init(x):
        x = strip(x)
        return kind_of(x) == K.DECL_STMT or (kind_of(x) == K.BINARY_OPERATOR and binop(x) == "=")

    if len(rest) == 1:
        x = rest[0]
        return ["init"] if looks_init(x) else ["inc"] if looks_inc(x) else ["cond"]
    a, b = rest
    if looks_init(a):
        return ["init", "inc"] if looks_inc(b) else ["init", "cond"]
    return ["cond", "inc"]
