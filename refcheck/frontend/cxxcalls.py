"""C++ shapes of a call: whether it may throw (and the split to the enclosing try's handlers),
placement `new`'s arguments, a member container's insert that keeps its arguments, and the
`new`, `delete` and `throw` expressions."""

from __future__ import annotations

import re

import clang.cindex as ci

from refcheck import ir
from refcheck.findings import Location
from refcheck.frontend.clangutil import K, is_expression, kind_of, location, referenced, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.cleanups import releases
from refcheck.frontend.conditions import NULL
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
        unwind(b, n, entry, loc)
    b.cur = b.node("block")
    b.edge(n, b.cur)


def unwind(b, src: int, entry: int, loc: Location) -> None:
    """The edge of a throw from `src` to a handler's `entry`: C++ runs the destructors of the
    locals whose scopes the throw leaves (a RAII holder declared in the try block), as a return
    or a break does, before the handler runs."""
    mark = b.jump_marks.get(entry)
    cleanups = b.scopes.leaving(mark) if mark is not None and b.scopes.any() else []
    if not cleanups:
        b.edge(src, entry, label="throw")
        return
    n = b.node("block", loc, text="unwind")
    b.data[n].ops.extend(releases(cleanups, loc, b.members))
    b.edge(src, n, label="throw")
    b.edge(n, entry)


class CxxExpressions:
    """`new`, `delete` and `throw`, mixed into `expressions.ExpressionLowerer` (whose `value` and
    builder `b` they use)."""

    def new_expr(self, c):
        placed = None
        for child in children_of(c):
            if is_expression(child):
                v = self.value(child)
                if placed is None and placement(c, child):
                    placed = v if v is not None else NULL
        if placed is not None:  # `new (buf) T()` constructs in buf: it allocates nothing
            return None if placed == NULL else placed
        if self.b.handlers:
            throw_split(self.b, location(c), "new")  # std::bad_alloc, before anything is owned
        t = self.b.temp("new")
        self.b.emit(ir.Acquire(location(c), t, "new"))
        return t

    def delete_expr(self, c):
        vals = [self.value(child) for child in children_of(c) if is_expression(child)]
        tracked = tuple(v for v in vals if v not in (None, NULL))
        self.b.emit(ir.Release(location(c), tracked, "delete"))
        return None

    def throw_expr(self, c):
        for child in children_of(c):
            self.value(child)
        if self.b.handlers:
            src = self.b.cur
            for entry in self.b.handlers[-1]:
                unwind(self.b, src, entry, location(c))
            self.b.cur = None
        else:
            self.b.goto(self.b.error_node(location(c), "throw"))
        return None
