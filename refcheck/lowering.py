"""Expressions lowered to IR ops: values, loads and stores, and calls classified by the
conventions into acquire/retain/release/consume ops (or borrowing calls, error exits, stops).

Values are named by strings (locals, parameters, temporaries), NULL, or None for what is not
tracked; `&&`, `||`, `?:`, comma and statement expressions split the graph where they occur.
"""

from __future__ import annotations

import clang.cindex as ci

from refcheck import ir
from refcheck.clangutil import (STMT_EXPR, K, binop, constant, expr_text, is_pointer, is_scalar, location, strip,
                                unop)
from refcheck.clangutil import kids as children_of
from refcheck.conditions import NULL, NULL_KINDS, expr_vars, fact_key
from refcheck.model import Location


class ExpressionLowering:
    """The expression half of the CFG builder (`refcheck.cfg.Builder`)."""

    def value(self, c):
        """Lower an expression for its value: a value name, NULL, or None (untracked)."""
        c = strip(c)
        handler = EXPR_HANDLERS.get(c.kind)
        if handler is not None:
            return handler(self, c)
        if c.kind == K.INTEGER_LITERAL:
            return NULL if constant(c) == 0 else None
        if c.kind in NULL_KINDS:
            return NULL
        for child in children_of(c):
            if child.kind.is_expression() or child.kind == K.COMPOUND_STMT:
                self.value(child) if child.kind.is_expression() else self.stmt(child)
        return None

    def decl_ref(self, c):
        ref = c.referenced
        v = self.var(ref)
        if v is not None:
            return v
        if ref is not None and ref.kind in (K.VAR_DECL, K.PARM_DECL) and is_pointer(c.type):
            return self.load(c, location(c))
        if ref is not None and ref.kind == K.ENUM_CONSTANT_DECL:
            return None
        return None

    def member(self, c):
        kids = list(children_of(c))
        loc = location(c)
        if kids:
            base = self.value(kids[0])
            if base not in (None, NULL) and is_pointer(kids[0].type):
                self.emit(ir.Use(loc, base))
        if is_pointer(c.type):
            return self.load(c, loc)
        return None

    def load(self, c, loc):
        text = expr_text(c)
        t = self.temp(text)
        key = self.key_of(c)
        deps = key[1] if key else expr_vars(c, self)
        self.emit(ir.Load(loc, t, text, frozenset(deps), key[0] if key else ""))
        return t

    def key_of(self, c):
        """fact_key, once per cursor (loads of a->b->c ask for a->b's key again)."""
        h = (c.hash, c._kind_id, c.xdata)
        if h not in self.keys:
            self.keys[h] = fact_key(c, self)
        return self.keys[h]

    def subscript(self, c):
        kids = list(children_of(c))
        loc = location(c)
        base = self.value(kids[0]) if kids else None
        for idx in kids[1:]:
            self.value(idx)
        if base not in (None, NULL):
            self.emit(ir.Use(loc, base))
        if is_pointer(c.type):
            return self.load(c, loc)
        return None

    def unary(self, c):
        op = unop(c)
        kids = list(children_of(c))
        if not kids:
            return None
        operand = kids[0]
        loc = location(c)
        if op == "&":
            inner = strip(operand)
            if inner.kind == K.DECL_REF_EXPR:
                v = self.var(inner.referenced)
                if v is not None:
                    self.emit(ir.Escape(loc, v))
                return None
            self.lvalue_base(inner)
            return None
        if op == "*":
            v = self.value(operand)
            if v not in (None, NULL):
                self.emit(ir.Use(loc, v))
            if is_pointer(c.type):
                return self.load(c, loc)
            return None
        if op in ("++", "--", "post++", "post--"):
            v = self.value(operand)
            if v not in (None, NULL) and not v.startswith("$"):
                self.emit(ir.Touch(loc, v))
            return v if is_pointer(c.type) else None
        if op == "!":
            self.value(operand)
            return None
        v = self.value(operand)
        return v if op in ("+", "__extension__") else None

    def lvalue_base(self, c) -> None:
        """Evaluate the address computation of an lvalue (its base pointers are used)."""
        c = strip(c)
        if c.kind == K.MEMBER_REF_EXPR:
            kids = list(children_of(c))
            if kids:
                base = self.value(kids[0])
                if base not in (None, NULL) and is_pointer(kids[0].type):
                    self.emit(ir.Use(location(c), base))
        elif c.kind == K.ARRAY_SUBSCRIPT_EXPR:
            kids = list(children_of(c))
            base = self.value(kids[0]) if kids else None
            for idx in kids[1:]:
                self.value(idx)
            if base not in (None, NULL):
                self.emit(ir.Use(location(c), base))
        elif c.kind == K.UNARY_OPERATOR and unop(c) == "*":
            kids = list(children_of(c))
            base = self.value(kids[0]) if kids else None
            if base not in (None, NULL):
                self.emit(ir.Use(location(c), base))

    def binary(self, c):
        op = binop(c)
        kids = list(children_of(c))
        if len(kids) != 2:
            for k in kids:
                self.value(k)
            return None
        lhs, rhs = kids
        loc = location(c)
        if op == "=":
            return self.assignment(loc, lhs, rhs)
        if op in ("&&", "||"):
            t, f, join = self.node("block"), self.node("block"), self.node("block")
            self.branch(c, t, f)
            self.cur = t
            self.goto(join)
            self.cur = f
            self.goto(join)
            self.cur = join
            return None
        if op == ",":
            self.value(lhs)
            return self.value(rhs)
        a = self.value(lhs)
        self.value(rhs)
        if op.endswith("=") and op not in ("==", "!=", "<=", ">="):  # compound assignment
            target = strip(lhs)
            if target.kind == K.DECL_REF_EXPR:
                v = self.var(target.referenced)
                if v is not None:
                    self.emit(ir.Touch(loc, v))
                    return v if is_pointer(c.type) else None
            else:
                self.lvalue_base(target)
            return None
        if op in ("+", "-") and is_pointer(c.type) and a not in (None, NULL):
            return a  # pointer arithmetic stays within the object
        return None

    def assignment(self, loc: Location, lhs, rhs):
        target = strip(lhs)
        src = self.value(rhs)
        if target.kind == K.DECL_REF_EXPR:
            v = self.var(target.referenced)
            if v is not None:
                self.assign_local(loc, v, src, rhs)
                return v
        # A store to memory: a field, *p, an array element or a global hands the reference over.
        self.lvalue_base(target)
        key = self.key_of(target)
        self.emit(ir.Store(loc, src if src not in (None, NULL) else None, key[0] if key else "",
                           frozenset(expr_vars(target, self))))
        return src

    def conditional(self, c):
        kids = list(children_of(c))
        t_n, f_n, join = self.node("block"), self.node("block"), self.node("block")
        result = self.temp("?:")
        loc = location(c)
        if len(kids) == 2:  # GNU a ?: b
            cond_v = self.value(kids[0])
            if cond_v in (None, NULL):
                self.goto(t_n)
                self.edge(self.cur, f_n)
            else:
                n = self.node("branch", loc, cond=ir.NullTest(cond_v) if is_pointer(kids[0].type) else ir.Opaque())
                self.start(n)
                self.edge(n, t_n, True)
                self.edge(n, f_n, False)
                self.cur = None
            arms = [(t_n, None, cond_v), (f_n, kids[1], None)]
        else:
            self.branch(kids[0], t_n, f_n)
            arms = [(t_n, kids[1], None), (f_n, kids[2], None)]
        for n, expr, known in arms:
            self.cur = n
            v = known if expr is None else self.value(expr)
            self.emit(ir.Assign(loc, result, None if v == NULL else v, null=v == NULL and is_pointer(c.type)))
            self.goto(join)
        self.cur = join
        return result

    def stmt_expr(self, c):
        body = next(iter(children_of(c)), None)
        if body is None:
            return None
        kids = list(children_of(body))
        for s in kids[:-1]:
            self.stmt(s)
        if kids and kids[-1].kind.is_expression():
            return self.value(kids[-1])
        if kids:
            self.stmt(kids[-1])
        return None

    def call(self, c):
        decl, name = self.callee_of(c)
        loc = location(c)
        args = list(c.get_arguments())
        kids = list(children_of(c))
        if not args and len(kids) > 1 and c.type.kind == ci.TypeKind.DEPENDENT:
            args = kids[1:]
        # A member call's object and a call through a pointer are evaluated (and used) first.
        if kids and strip(kids[0]).kind not in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF):
            callee_expr = strip(kids[0])
            if callee_expr.kind == K.MEMBER_REF_EXPR:
                self.member(callee_expr)
        cond_index = self.conv.condition_argument(name)
        if cond_index is not None and cond_index < len(args):
            for i, a in enumerate(args):
                if i != cond_index:
                    self.value(a)
            ok, fail = self.node("block"), self.error_node(loc, name)
            self.branch(args[cond_index], ok, fail)
            self.cur = ok
            return None
        role = self.conv.classify(name)
        if role in ("acquire", "reallocate") and is_scalar(c.type):
            role = None  # a status code (cudaError_t) from a function pointer named malloc, say
        values = [self.argument(a, role) for a in args]
        tracked = [v for v, a in zip(values, args)
                   if v not in (None, NULL) and not self.is_context(a) and not is_scalar(a.type)]
        if role == "release":
            self.emit(ir.Release(loc, tuple(tracked), name))
            return None
        if role == "consume":  # freeCopyTo(src, dst), move(src): the source is taken over
            self.emit(ir.Release(loc, tuple(tracked[:1]), name, consume=True))
            for v in tracked[1:]:
                self.emit(ir.Use(loc, v))
            return None
        if role == "retain":
            for v in tracked:
                self.emit(ir.Retain(loc, v, name))
            return tracked[0] if tracked and is_pointer(c.type) else None
        for v in tracked if role != "reallocate" else tracked[1:]:
            self.emit(ir.Use(loc, v))
        if role in ("error", "exit") or self.noreturn(decl):
            n = self.error_node(loc, name) if role == "error" else self.node("stop", loc, text=name)
            self.goto(n)
            return None
        if role == "reallocate":
            t = self.temp(f"{name}(...)")
            may_fail = self.conv.matches("may_fail", name)
            self.emit(ir.Realloc(loc, t, tracked[0] if tracked else None, name, may_fail))
            if may_fail:  # split at once into success and failure (NULL, old block still ours)
                n = self.node("branch", loc, cond=ir.NullTest(t), text=f"{name} succeeded")
                yes, no, join = self.node("block"), self.node("block"), self.node("block")
                self.start(n)
                self.edge(n, yes, True)
                self.edge(n, no, False)
                self.edge(yes, join)
                self.edge(no, join)
                self.cur = join
            return t
        if role == "acquire":
            t = self.temp(f"{name}(...)")
            self.emit(ir.Acquire(loc, t, name))
            return t
        launch = any(strip(k).kind == K.CALL_EXPR and strip(k).spelling == "__cudaPushCallConfiguration"
                     for k in kids[1:])
        self.emit(ir.Call(loc, f"{name}<<<...>>>" if launch else name or "(indirect)", tuple(tracked)))
        return None

    def argument(self, a, role):
        inner = strip(a)
        if inner.kind == K.UNARY_OPERATOR and unop(inner) == "&":
            self.value(inner)
            return None
        return self.value(a)

    def is_context(self, arg) -> bool:
        """THC's `THCState *state` and similar handles are not the references being counted."""
        t = arg.type.get_canonical()
        if t.kind != ci.TypeKind.POINTER:
            return False
        pointee = t.get_pointee().spelling.replace("const ", "").replace("struct ", "").strip()
        return self.conv.matches("context", pointee)

    def error_node(self, loc: Location, name: str) -> int:
        return self.node("error", loc, text=name)

    def new_expr(self, c):
        for child in children_of(c):
            if child.kind.is_expression():
                self.value(child)
        t = self.temp("new")
        self.emit(ir.Acquire(location(c), t, "new"))
        return t

    def delete_expr(self, c):
        vals = [self.value(child) for child in children_of(c) if child.kind.is_expression()]
        tracked = tuple(v for v in vals if v not in (None, NULL))
        self.emit(ir.Release(location(c), tracked, "delete"))
        return None

    def throw_expr(self, c):
        for child in children_of(c):
            self.value(child)
        if self.handlers:
            src = self.cur
            for entry in self.handlers[-1]:
                self.edge(src, entry, label="throw")
            self.cur = None
        else:
            self.goto(self.error_node(location(c), "throw"))
        return None


EXPR_HANDLERS = {
    K.DECL_REF_EXPR: ExpressionLowering.decl_ref,
    K.MEMBER_REF_EXPR: ExpressionLowering.member,
    K.ARRAY_SUBSCRIPT_EXPR: ExpressionLowering.subscript,
    K.UNARY_OPERATOR: ExpressionLowering.unary,
    K.BINARY_OPERATOR: ExpressionLowering.binary,
    K.COMPOUND_ASSIGNMENT_OPERATOR: ExpressionLowering.binary,
    K.CONDITIONAL_OPERATOR: ExpressionLowering.conditional,
    STMT_EXPR: ExpressionLowering.stmt_expr,
    K.CALL_EXPR: ExpressionLowering.call,
    K.CXX_NEW_EXPR: ExpressionLowering.new_expr,
    K.CXX_DELETE_EXPR: ExpressionLowering.delete_expr,
    K.CXX_THROW_EXPR: ExpressionLowering.throw_expr,
    K.LAMBDA_EXPR: lambda b, c: b.lambdas.append(c),
}
