"""Integer flags set from a test (`own = !p;`, `c->f = (p == NULL);`) lowered as a branch whose
arms store the constant, so that a later test of the flag takes the edge the first test took."""

from __future__ import annotations

from refcheck import ir
from refcheck.findings import Location
from refcheck.frontend.clangutil import K, binop, converted_constant, has_pointer_type, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import expr_vars, has_side_effects, is_null_constant, key_of, singleton_address


class FlagLowering:
    """The part of `expressions.ExpressionLowerer` that lowers flags (it needs the lowerer's
    `b`, `branch` and `lvalue_base`)."""

    def assign_flag(self, loc: Location, v: str, rhs) -> bool:
        """`own = !p;` (an integer local set from a null test of a local pointer) lowered as
        `if (!p) own = 1; else own = 0;`, so that `if (own) free(p)` after `if (!p) p = newX();`
        is decided by the constant on each path, although p has changed since. Likewise `has =
        (s->hook != Py_None);` (a comparison of a side-effect-free value with a constant or a
        singleton): the branch records the comparison's fact, so a later `if (has)` and a later
        retest of `s->hook != Py_None` (s and the field unchanged) agree on each path."""
        if not self.flag_test(rhs):
            return False

        def arm(truth: bool) -> None:
            self.b.emit(ir.Assign(loc, v, None))
            self.b.emit(ir.Const(loc, v, int(truth)))
        self.split_on(rhs, arm)
        return True

    def store_flag(self, loc: Location, target, rhs) -> bool:
        """`c->f = (p == NULL);` (an integer field with a fact key set from a null test of a local
        pointer or a constant comparison, as `assign_flag`) lowered as `if (p == NULL) c->f = 1;
        else c->f = 0;` whose stores carry their truth: a later `if (c->f)` (c unchanged, the
        field not written since) takes the edge the test took, where p's nullness is known
        (totem-pl-parser's `cache->self_mounted = (mount == NULL); if (cache->self_mounted) ...`)."""
        if kind_of(target) != K.MEMBER_REF_EXPR or has_pointer_type(target) or not self.flag_test(rhs):
            return False
        key = key_of(self.b, target)
        if key is None:
            return False
        self.lvalue_base(target)
        deps = frozenset(expr_vars(target, self.b))
        self.split_on(rhs, lambda truth: self.b.emit(ir.Store(loc, None, key[0], deps, truth=truth)))
        return True

    def flag_test(self, rhs) -> bool:
        """`!x` or `x == k` / `x != k` at the top of `rhs`, a null test of a local pointer or a
        comparison with a constant: what `assign_flag` and `store_flag` lower as a branch."""
        c = strip(rhs)
        top = (kind_of(c) == K.UNARY_OPERATOR and unop(c) == "!") or \
            (kind_of(c) == K.BINARY_OPERATOR and binop(c) in ("==", "!="))
        return top and (self.null_test_of_local(c) or self.constant_comparison(c))

    def split_on(self, rhs, arm) -> None:
        """`rhs` lowered as a branch into two blocks that join again; `arm(truth)` emits each
        block's ops (True where `rhs` holds)."""
        one, zero, join = self.b.node("block"), self.b.node("block"), self.b.node("block")
        self.branch(rhs, one, zero)
        for n, truth in ((one, True), (zero, False)):
            self.b.cur = n
            arm(truth)
            self.b.goto(join)
        self.b.cur = join

    def constant_comparison(self, c) -> bool:
        """`x == k` / `x != k` (any nesting of `!`) for x a side-effect-free expression with a
        fact key (a local, a field, `s->a->b`) and k an integer constant, NULL or a singleton."""
        c = strip(c)
        if kind_of(c) == K.UNARY_OPERATOR and unop(c) == "!":
            return self.constant_comparison(next(iter(children_of(c))))
        if kind_of(c) != K.BINARY_OPERATOR or binop(c) not in ("==", "!=") or has_side_effects(c):
            return False
        lhs, rhs = list(children_of(c))
        fixed = lambda x: (is_null_constant(x) or singleton_address(x, self.b) is not None  # noqa: E731
                           or (not has_pointer_type(x) and converted_constant(x) is not None))
        return any(fixed(b) and not fixed(a) and key_of(self.b, a) is not None
                   for a, b in ((lhs, rhs), (rhs, lhs)))

    def null_test_of_local(self, c) -> bool:
        """`p`, `!p`, `p == NULL`, `NULL != p` (any nesting of `!`) for a local pointer p."""
        c = strip(c)
        if kind_of(c) == K.UNARY_OPERATOR and unop(c) == "!":
            return self.null_test_of_local(next(iter(children_of(c))))
        if kind_of(c) == K.BINARY_OPERATOR and binop(c) in ("==", "!="):
            lhs, rhs = list(children_of(c))
            return any(is_null_constant(b) and self.null_test_of_local(a) and not is_null_constant(a)
                       for a, b in ((lhs, rhs), (rhs, lhs)))
        return kind_of(c) == K.DECL_REF_EXPR and has_pointer_type(c) and self.b.var(referenced(c)) is not None
