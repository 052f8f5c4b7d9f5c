"""C++ shapes of a call: whether it may throw (and the split to the enclosing try's handlers),
placement `new`'s arguments, and a member container's insert that keeps its arguments."""

from __future__ import annotations

import re

import clang.cindex as ci

from refcheck.findings import Location
from refcheck.frontend.clangutil import K, kind_of, referenced, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.graph import GraphBuilder

_INSERTS = re.compile(r"(?:^|::)(?:push_back|emplace_back|push_front|emplace_front|push|emplace|insert|append)$")
# `noexcept(expr)` counts as noexcept: glibc's __THROW is `noexcept(true)` in C++.
_NOTHROW = {ci.ExceptionSpecificationKind.BASIC_NOEXCEPT, ci.ExceptionSpecificationKind.DYNAMIC_NONE,
            ci.ExceptionSpecificationKind.COMPUTED_NOEXCEPT}


def member_insert(b: GraphBuilder, kids: list, name: str, args: list) -> frozenset[int]:
    """The argument positions a member (or global) container's insert keeps."""
    if not kids or not name or not _INSERTS.search(name) or kind_of(strip(kids[0])) != K.MEMBER_REF_EXPR:
        return frozenset()
    obj = next(iter(children_of(strip(kids[0]))), None)
    obj = strip(obj) if obj is not None else None
    ref = referenced(obj) if obj is not None else None
    if ref is None:
        return frozenset()
    owned_elsewhere = kind_of(ref) == K.FIELD_DECL or (kind_of(ref) == K.VAR_DECL and b.var(ref) is None)
    return frozenset(range(len(args))) if owned_elsewhere else frozenset()


def may_throw(decl) -> bool:
    """A C++ callee not declared noexcept (`throw()`, `noexcept`) may throw; C has no exceptions."""
    try:
        return decl is None or decl.exception_specification_kind not in _NOTHROW
    except ValueError:  # a kind this binding does not know
        return True


def placement(new, child) -> bool:
    """`child` is a placement argument of `new`: it lies between the parentheses right after the
    `new` token (`new (buf) T()`), not in the initializer (`new T(buf)`)."""
    depth, inside, start = 0, False, child.extent.start.offset
    tokens = list(new.get_tokens())
    for i, tok in enumerate(tokens):
        if not inside:
            if tok.spelling == "new" and i + 1 < len(tokens) and tokens[i + 1].spelling == "(":
                inside = True
            continue
        if tok.spelling == "(":
            depth += 1
        elif tok.spelling == ")":
            depth -= 1
            if depth == 0:
                return start < tok.extent.start.offset
    return False


def throw_split(b: GraphBuilder, loc: Location, name: str) -> None:
    """Inside a try: the call may throw before it returns, to the enclosing try's handlers."""
    n = b.node("block", loc, text=f"{name} may throw")
    b.start(n)
    for entry in b.handlers[-1]:
        b.edge(n, entry, label="throw")
    b.cur = b.node("block")
    b.edge(n, b.cur)
