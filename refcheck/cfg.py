"""A control-flow graph (networkx) per function definition, with statements lowered to IR ops.

Statements become nodes; short-circuit operators, `?:`, comma and GNU statement expressions are
split into branches wherever they appear, so an acquisition inside a condition sits on its own
path. Calls are classified here, by the conventions, into acquire/retain/release/... ops; calls
that do not return end their path in an `error` node (errors mode decides what that means) or a
`stop` node.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import clang.cindex as ci
import networkx as nx

from refcheck import ir
from refcheck.clangutil import (K, binop, constant, end_location, is_noreturn, is_pointer, is_scalar,
                                location, qualified_name, reset_kids, strip, unop)
from refcheck.clangutil import kids as children_of
from refcheck.clangutil import read_source
from refcheck.conventions import Conventions
from refcheck.model import Location

FUNCTION_KINDS = {K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.FUNCTION_TEMPLATE,
                  K.CONVERSION_FUNCTION, K.LAMBDA_EXPR}
NULL_KINDS = {K.GNU_NULL_EXPR, K.CXX_NULL_PTR_LITERAL_EXPR}
STMT_EXPR = ci.CursorKind.from_id(121)  # GNU ({ ... }); the binding names it "StmtExpr"


@dataclass
class Node:
    kind: str  # entry, block, branch, switch, return, exit, error, stop
    loc: Location | None = None
    ops: list = field(default_factory=list)
    cond: object = None  # ir.NullTest | ir.Fact | ir.Opaque, for branch nodes
    value: str | None = None  # the returned value, for return nodes
    post: list = field(default_factory=list)  # ops after the test (temporaries of the condition dying)
    text: str = ""


@dataclass
class FunctionCFG:
    name: str
    graph: nx.DiGraph
    entry: int
    exit: int
    loc: Location
    params: list[tuple[str, bool]]  # (value name, is a pointer)
    names: dict[str, str]  # value name -> what the user wrote
    incomplete: str = ""  # why the graph may be missing parts (an unsupported construct)
    lambdas: list = field(default_factory=list)  # lambda expressions in the body


class Builder:
    def __init__(self, fn, conv: Conventions):
        self.fn = fn
        self.conv = conv
        self.g = nx.DiGraph()
        self.names: dict[str, str] = {}
        self.temps = 0
        self.breaks: list[int] = []
        self.continues: list[int] = []
        self.switches: list[list] = []  # [dispatch node, has default]
        self.labels: dict[str, int] = {}
        self.handlers: list[list[int]] = []  # entry nodes of the catch blocks of enclosing trys
        self.lambdas: list = []  # lambda expressions met in the body: checked as functions
        self.pending_temps: list[str] = []
        self.noreturn_cache: dict[int, bool] = {}
        self.var_cache: dict[int, str | None] = {}  # by declaration hash: the binding's calls are slow
        self.keys: dict = {}  # fact_key per cursor
        self.entry = self.node("entry", location(fn))
        self.exit = self.node("exit", end_location(fn))
        self.cur: int | None = self.node("block")
        self.g.add_edge(self.entry, self.cur)

    # -- graph plumbing -------------------------------------------------------------------------
    def node(self, kind: str, loc: Location | None = None, **kw) -> int:
        n = self.g.number_of_nodes()
        self.g.add_node(n, data=Node(kind, loc, **kw))
        return n

    def edge(self, a: int | None, b: int, branch: bool | None = None, label: str = "") -> None:
        if a is not None:
            self.g.add_edge(a, b, branch=branch, label=label)

    def emit(self, op) -> None:
        if self.cur is None:  # dead code after return/goto: build it, unreachable
            self.cur = self.node("block")
        self.g.nodes[self.cur]["data"].ops.append(op)

    def goto(self, target: int) -> None:
        self.edge(self.cur, target)
        self.cur = None

    def start(self, n: int) -> None:
        self.edge(self.cur, n)
        self.cur = n

    def temp(self, display: str) -> str:
        self.temps += 1
        name = f"${self.temps}"
        self.names[name] = display
        self.pending_temps.append(name)
        return name

    def kill_temps(self, loc: Location, keep: str | None = None) -> list:
        ops = [ir.Kill(loc, t) for t in self.pending_temps if t != keep]
        self.pending_temps = [keep] if keep in self.pending_temps else []
        return ops

    def full_expression_end(self, loc: Location) -> None:
        for op in self.kill_temps(loc):
            self.emit(op)

    # -- names ----------------------------------------------------------------------------------
    def var(self, decl) -> str | None:
        """The value name of a local variable or parameter, None for globals and functions."""
        if decl is None:
            return None
        h = decl.hash
        if h in self.var_cache:
            return self.var_cache[h]
        name = self._var(decl)
        self.var_cache[h] = name
        return name

    def _var(self, decl) -> str | None:
        if decl.type.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
            return None  # `T *&out = ...; out = t;` writes through to the caller
        if decl.kind == K.PARM_DECL:
            pass
        elif decl.kind == K.VAR_DECL:
            parent = decl.semantic_parent
            if parent is None or parent.kind not in FUNCTION_KINDS or \
                    decl.storage_class in (ci.StorageClass.STATIC, ci.StorageClass.EXTERN):
                return None
        else:
            return None
        name = f"{decl.spelling}#{decl.hash}"
        self.names.setdefault(name, decl.spelling)
        return name

    def callee_of(self, call):
        ref = call.referenced
        if ref is not None and ref.kind in FUNCTION_KINDS | {K.FUNCTION_DECL}:
            return ref, qualified_name(ref)
        if call.spelling:
            return ref, call.spelling
        # A call in a template that depends on its parameters names an overload set.
        kids = list(children_of(call))
        stack = kids[:1]
        while stack:
            x = stack.pop()
            if x.kind in (K.OVERLOADED_DECL_REF, K.DECL_REF_EXPR, K.MEMBER_REF_EXPR) and x.spelling:
                return ref, x.spelling
            stack.extend(children_of(x))
        return ref, ""

    def noreturn(self, decl) -> bool:
        if decl is None:
            return False
        h = decl.hash
        if h not in self.noreturn_cache:
            self.noreturn_cache[h] = is_noreturn(decl)
        return self.noreturn_cache[h]

    # -- statements -----------------------------------------------------------------------------
    def build(self) -> FunctionCFG:
        body = None
        params = []
        for c in children_of(self.fn):
            if c.kind == K.PARM_DECL:
                v = self.var(c)
                params.append((v, is_pointer(c.type)))
            elif c.kind == K.COMPOUND_STMT:
                body = c
            elif c.kind == K.CXX_TRY_STMT:  # function-try-block
                body = c
        if body is not None:
            self.stmt(body)
        self.edge(self.cur, self.exit)
        # Unreachable code (after a return, or dead labels) plays no part.
        reachable = nx.descendants(self.g, self.entry) | {self.entry}
        self.g.remove_nodes_from([n for n in list(self.g.nodes) if n not in reachable])
        if self.exit not in self.g:
            self.g.add_node(self.exit, data=Node("exit", end_location(self.fn)))
        name = self.fn.spelling or f"lambda at line {self.fn.location.line}"
        return FunctionCFG(name, self.g, self.entry, self.exit, location(self.fn), params,
                           self.names, lambdas=self.lambdas)

    def stmt(self, c) -> None:
        k = c.kind
        handler = STMT_HANDLERS.get(k)
        if handler is not None:
            handler(self, c)
        elif k.is_expression():
            self.value(c)
            self.full_expression_end(location(c))
        elif k in (K.NULL_STMT, K.DECL_STMT) or k.is_declaration():
            if k == K.DECL_STMT:
                self.decl_stmt(c)
        else:
            for child in children_of(c):
                self.stmt(child)

    def compound(self, c) -> None:
        for child in children_of(c):
            self.stmt(child)

    def decl_stmt(self, c) -> None:
        for d in children_of(c):
            if d.kind != K.VAR_DECL:
                continue
            v = self.var(d)
            init = None
            for child in children_of(d):
                if child.kind.is_expression():
                    init = child
            loc = location(d)
            if v is None:  # a static local: its initializer runs once, before us
                continue
            if init is None:
                self.emit(ir.Assign(loc, v, None))
                continue
            src = self.value(init)
            self.assign_local(loc, v, src, init)
            self.full_expression_end(loc)

    def assign_local(self, loc: Location, v: str, src, src_cursor) -> None:
        if src == NULL:
            # `t = NULL` makes t a known NULL; `i = 0` on an integer is just untracked.
            null = src_cursor is None or is_pointer(src_cursor.type)
            self.emit(ir.Assign(loc, v, None, null=null))
        else:
            self.emit(ir.Assign(loc, v, src))
        if src in (None, NULL) and src_cursor is not None and not is_pointer(src_cursor.type):
            k = constant(strip(src_cursor)) if not has_side_effects(src_cursor) else None
            if k is not None:
                self.emit(ir.Const(loc, v, k))

    def if_stmt(self, c) -> None:
        kids = list(children_of(c))
        # C++17 if-with-initializer and condition variables come first.
        while len(kids) > 3 or (kids and kids[0].kind in (K.DECL_STMT, K.VAR_DECL) and len(kids) > 2):
            first = kids.pop(0)
            if first.kind == K.VAR_DECL:
                self.decl_stmt_single(first)
            else:
                self.stmt(first)
        cond, then = kids[0], kids[1]
        other = kids[2] if len(kids) > 2 else None
        t, f, join = self.node("block"), self.node("block"), self.node("block")
        self.branch(cond, t, f)
        self.cur = t
        self.stmt(then)
        self.edge(self.cur, join)
        self.cur = f
        if other is not None:
            self.stmt(other)
        self.edge(self.cur, join)
        self.cur = join

    def decl_stmt_single(self, d) -> None:
        v = self.var(d)
        init = [x for x in children_of(d) if x.kind.is_expression()]
        if v is not None and init:
            self.assign_local(location(d), v, self.value(init[-1]), init[-1])
            self.full_expression_end(location(d))

    def loop(self, cond, body, inc=None, test_first=True) -> None:
        head, body_n, after = self.node("block"), self.node("block"), self.node("block")
        cont = self.node("block") if inc is not None or not test_first else head
        if test_first:
            self.start(head)
            self.cond_or_true(cond, body_n, after)
        else:
            self.start(body_n)
        self.cur = body_n
        self.breaks.append(after)
        self.continues.append(cont)
        self.stmt(body)
        self.breaks.pop()
        self.continues.pop()
        self.edge(self.cur, cont)
        if cont != head:
            self.cur = cont
            if inc is not None:
                self.value(inc)
                self.full_expression_end(location(inc))
            if test_first:
                self.goto(head)
            else:
                self.cond_or_true(cond, body_n, after)
        self.cur = after

    def cond_or_true(self, cond, t: int, f: int) -> None:
        if cond is None:
            self.goto(t)
        else:
            self.branch(cond, t, f)

    def while_stmt(self, c) -> None:
        kids = list(children_of(c))
        for extra in kids[:-2]:  # while (T *x = ...) condition variables
            self.stmt(extra)
        self.loop(kids[-2], kids[-1])

    def do_stmt(self, c) -> None:
        body, cond = list(children_of(c))
        self.loop(cond, body, test_first=False)

    def for_stmt(self, c) -> None:
        init, cond, inc, body = for_parts(c)
        if init is not None:
            self.stmt(init)
        self.loop(cond, body, inc=inc)

    def range_for(self, c) -> None:
        kids = list(children_of(c))
        body = kids[-1]
        for k in kids[:-1]:
            if k.kind.is_expression():
                self.value(k)
                self.full_expression_end(location(k))
        head, body_n, after = self.node("branch", location(c), cond=ir.Opaque("more elements"),
                                        text="more elements"), self.node("block"), self.node("block")
        self.start(head)
        self.edge(head, body_n, True)
        self.edge(head, after, False)
        self.cur = body_n
        for k in kids[:-1]:
            if k.kind == K.VAR_DECL:
                v = self.var(k)
                if v is not None:
                    self.emit(ir.Assign(location(k), v, None))
        self.breaks.append(after)
        self.continues.append(head)
        self.stmt(body)
        self.breaks.pop()
        self.continues.pop()
        self.goto(head)
        self.cur = after

    def switch_stmt(self, c) -> None:
        kids = list(children_of(c))
        cond, body = kids[-2], kids[-1]
        for extra in kids[:-2]:
            self.stmt(extra)
        self.value(cond)
        self.full_expression_end(location(cond))
        inner = strip(cond)
        svar = self.var(inner.referenced) if inner.kind == K.DECL_REF_EXPR else None
        dispatch = self.node("switch", location(c), value=svar)
        self.start(dispatch)
        after = self.node("block")
        self.switches.append([dispatch, False])
        self.breaks.append(after)
        self.cur = None
        self.stmt(body)
        self.breaks.pop()
        _, has_default = self.switches.pop()
        self.edge(self.cur, after)
        if not has_default:
            self.edge(dispatch, after, label="no case")
        self.cur = after

    def case_stmt(self, c, default=False) -> None:
        n = self.node("block", location(c))
        self.edge(self.cur, n)
        if self.switches:
            self.switches[-1][1] |= default
            self.edge(self.switches[-1][0], n, label="default" if default else f"case line {c.location.line}")
            if not default:
                value = constant(next(iter(children_of(c))))
                self.g.edges[self.switches[-1][0], n]["case"] = value
        self.cur = n
        kids = list(children_of(c))
        if kids:
            self.stmt(kids[-1])

    def label_stmt(self, c) -> None:
        n = self.label(c.spelling)
        self.start(n)
        for child in children_of(c):
            self.stmt(child)

    def label(self, name: str) -> int:
        if name not in self.labels:
            self.labels[name] = self.node("block", text=f"{name}:")
        return self.labels[name]

    def goto_stmt(self, c) -> None:
        for child in children_of(c):
            if child.kind == K.LABEL_REF:
                self.goto(self.label(child.spelling))
                return
        self.cur = None

    def indirect_goto(self, c) -> None:
        for child in children_of(c):
            self.value(child)
        src = self.cur
        for n in list(self.labels.values()):
            self.edge(src, n)
        self.cur = None

    def break_stmt(self, c) -> None:
        if self.breaks:
            self.goto(self.breaks[-1])

    def continue_stmt(self, c) -> None:
        if self.continues:
            self.goto(self.continues[-1])

    def return_stmt(self, c) -> None:
        kids = [k for k in children_of(c) if k.kind.is_expression()]
        v = self.value(kids[0]) if kids else None
        if v == NULL:
            v = None
        n = self.node("return", location(c), value=v)
        self.goto(n)
        self.pending_temps = []
        self.g.add_edge(n, self.exit, branch=None, label="")

    def try_stmt(self, c) -> None:
        kids = list(children_of(c))
        before = self.cur
        after = self.node("block")
        entries = [self.node("block", text="catch") for _ in kids[1:]]
        self.handlers.append(entries)
        self.stmt(kids[0])
        self.handlers.pop()
        self.edge(self.cur, after)
        # A throw in the try block reaches the handlers; calls that may throw are not modelled, but
        # the handlers are also reachable from the try's start so that their code is checked.
        for handler, entry in zip(kids[1:], entries):
            self.cur = entry
            self.edge(before, entry, label="exception")
            for child in children_of(handler):
                if child.kind == K.COMPOUND_STMT:
                    self.stmt(child)
            self.edge(self.cur, after)
        self.cur = after

    # -- expressions ----------------------------------------------------------------------------
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
            elif strip(operand).kind != K.DECL_REF_EXPR:
                pass
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

    # -- conditions -----------------------------------------------------------------------------
    def branch(self, c, t: int, f: int) -> None:
        """Lower a condition so that control reaches t when it holds and f when it does not."""
        c = strip(c)
        k = c.kind
        if k == K.UNARY_OPERATOR and unop(c) == "!":
            self.branch(next(iter(children_of(c))), f, t)
            return
        if k == K.BINARY_OPERATOR:
            op = binop(c)
            lhs, rhs = list(children_of(c))
            if op == "&&":
                mid = self.node("block")
                self.branch(lhs, mid, f)
                self.cur = mid
                self.branch(rhs, t, f)
                return
            if op == "||":
                mid = self.node("block")
                self.branch(lhs, t, mid)
                self.cur = mid
                self.branch(rhs, t, f)
                return
            if op == ",":
                self.value(lhs)
                self.branch(rhs, t, f)
                return
            if op in ("==", "!="):
                for a, b in ((lhs, rhs), (rhs, lhs)):
                    if is_null_constant(b) and is_pointer(a.type):
                        mark = len(self.pending_temps)
                        v = self.value(a)
                        yes, no = (f, t) if op == "==" else (t, f)
                        self.test(c, v, yes, no, pointer=True, mark=mark)
                        return
                if is_pointer(lhs.type) and is_pointer(rhs.type):
                    mark = len(self.pending_temps)
                    a, b = self.value(lhs), self.value(rhs)
                    if a not in (None, NULL) and b not in (None, NULL):
                        yes, no = (t, f) if op == "==" else (f, t)
                        self.test(c, None, yes, no, pointer=False, fact=ir.SameObject(a, b), mark=mark,
                                  shown_inverted=op == "!=")
                        return
        value = constant(c) if k in (K.INTEGER_LITERAL, K.CHARACTER_LITERAL, K.BINARY_OPERATOR,
                                     K.CXX_BOOL_LITERAL_EXPR, K.UNARY_OPERATOR, K.UNEXPOSED_EXPR) else None
        if value is not None and not has_side_effects(c):
            self.goto(t if value else f)
            return
        key = self.key_of(c)
        mark = len(self.pending_temps)
        v = self.value(c)
        if is_pointer(c.type) and v not in (None, NULL) and not (key and v.startswith("$")):
            self.test(c, v, t, f, pointer=True, mark=mark)
        elif key is not None:
            fact = ir.Fact(key[0], frozenset(key[1]), simple_condition(c, self))
            self.test(c, None, t, f, pointer=False, fact=fact, mark=mark)
        else:
            self.test(c, None, t, f, pointer=False, mark=mark)

    def test(self, c, v, t: int, f: int, pointer: bool, fact=None, mark: int = 0,
             shown_inverted: bool = False) -> None:
        loc = location(c)
        if pointer and v not in (None, NULL):
            cond = ir.NullTest(v)
        elif isinstance(fact, ir.SameObject):
            cond = fact
        elif fact is not None:
            cond = fact
        else:
            cond = ir.Opaque(expr_text(c))
        n = self.node("branch", loc, cond=cond, text=expr_text(c))
        self.start(n)
        # Temporaries of the condition die once it is tested (on both edges).
        self.g.nodes[n]["data"].post = [ir.Kill(loc, x) for x in self.pending_temps[mark:]]
        del self.pending_temps[mark:]
        self.edge(n, t, True)
        self.edge(n, f, False)
        if shown_inverted:  # the node tests a == b for the source's a != b: notes quote the source
            self.g.edges[n, t]["shown"] = False
            self.g.edges[n, f]["shown"] = True
        self.cur = None


NULL = "$null"


def is_null_constant(c) -> bool:
    c = strip(c)
    if c.kind in NULL_KINDS:
        return True
    if c.kind == K.INTEGER_LITERAL:
        return constant(c) == 0
    return False


SIDE_EFFECT_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="}


FLIP = {"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}


def simple_condition(c, b: "Builder"):
    """(var, op, k) for `v`, `v OP k` or `k OP v` over an integer local and a constant."""
    c = strip(c)
    if c.kind == K.DECL_REF_EXPR:
        v = b.var(c.referenced)
        return (v, "!=", 0) if v is not None else None
    if c.kind == K.BINARY_OPERATOR and binop(c) in FLIP:
        op = binop(c)
        lhs, rhs = (strip(x) for x in children_of(c))
        for a, k_expr, o in ((lhs, rhs, op), (rhs, lhs, FLIP[op])):
            if a.kind == K.DECL_REF_EXPR:
                v = b.var(a.referenced)
                k = constant(k_expr)
                if v is not None and k is not None and not is_pointer(a.type):
                    return (v, o, k)
    return None


def has_side_effects(c) -> bool:
    stack = [c]
    while stack:
        x = stack.pop()
        if x.kind in (K.CALL_EXPR, K.CXX_NEW_EXPR, K.CXX_DELETE_EXPR, STMT_EXPR):
            return True
        if x.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and binop(x) in SIDE_EFFECT_OPS:
            return True
        if x.kind == K.UNARY_OPERATOR and unop(x) in ("++", "--", "post++", "post--"):
            return True
        stack.extend(children_of(x))
    return False


def fact_key(c, b: Builder):
    """(normalized text, variables) of a side-effect-free condition, or None."""
    vars_: set[str] = set()
    parts: list[str] = []
    stack = [(c, 0)]
    while stack:
        x, depth = stack.pop()
        x = strip(x)
        k = x.kind
        if k == K.DECL_REF_EXPR:
            ref = x.referenced
            v = b.var(ref)
            if v is not None:
                vars_.add(v)
                parts.append(v)
            elif ref is not None and ref.kind == K.ENUM_CONSTANT_DECL:
                parts.append(str(ref.enum_value))
            elif ref is not None and ref.kind == K.VAR_DECL:
                parts.append(f"global:{x.spelling}")
            elif ref is not None and ref.kind in FUNCTION_KINDS:
                parts.append(f"fn:{x.spelling}")
            else:
                return None
            continue
        if k == K.CALL_EXPR:
            _, name = b.callee_of(x)
            if not b.conv.matches("pure", name):
                return None
            parts.append(f"call:{name}(")
        elif k in (K.BINARY_OPERATOR,):
            op = binop(x)
            if op in SIDE_EFFECT_OPS:
                return None
            parts.append(f"({op}")
        elif k == K.COMPOUND_ASSIGNMENT_OPERATOR:
            return None
        elif k == K.UNARY_OPERATOR:
            op = unop(x)
            if op in ("++", "--", "post++", "post--", "&"):
                return None
            parts.append(f"({op}")
        elif k == K.MEMBER_REF_EXPR:
            parts.append(f".{x.spelling}(")
        elif k == K.ARRAY_SUBSCRIPT_EXPR:
            parts.append("[")
        elif k in (K.INTEGER_LITERAL, K.CHARACTER_LITERAL, K.CXX_BOOL_LITERAL_EXPR):
            parts.append(f"#{constant(x)}")
            continue
        elif k in NULL_KINDS:
            parts.append("#0")
            continue
        elif k in (K.FLOATING_LITERAL, K.STRING_LITERAL):
            return None
        elif k == K.CONDITIONAL_OPERATOR:
            parts.append("(?")
        else:
            return None
        kids = list(children_of(x))
        parts.append(str(len(kids)))
        for child in reversed(kids):
            stack.append((child, depth + 1))
    return " ".join(parts), vars_


def expr_vars(c, b: Builder) -> set[str]:
    """The local variables an expression mentions."""
    out: set[str] = set()
    stack = [c]
    while stack:
        x = stack.pop()
        if x.kind == K.DECL_REF_EXPR:
            v = b.var(x.referenced)
            if v is not None:
                out.add(v)
        stack.extend(children_of(x))
    return out


def expr_text(c, limit: int = 60) -> str:
    """The source text of an expression, for messages (macro bodies show as their call site)."""
    text = ""
    start, end = c.extent.start, c.extent.end
    if start.file is not None and end.file is not None and start.file.name == end.file.name \
            and end.offset > start.offset:
        text = read_source(start.file.name)[start.offset:end.offset].decode("utf-8", "replace")
        text = " ".join(text.split())
    if not text:
        text = c.spelling or c.kind.name.lower()
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
        if x.kind == K.UNARY_OPERATOR and unop(x) in ("++", "--", "post++", "post--"):
            return True
        if x.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
            return True
        return x.kind == K.BINARY_OPERATOR and binop(x) == ","

    def looks_init(x):
        x = strip(x)
        return x.kind == K.DECL_STMT or (x.kind == K.BINARY_OPERATOR and binop(x) == "=")

    if len(rest) == 1:
        x = rest[0]
        return ["init"] if looks_init(x) else ["inc"] if looks_inc(x) else ["cond"]
    a, b = rest
    if looks_init(a):
        return ["init", "inc"] if looks_inc(b) else ["init", "cond"]
    return ["cond", "inc"]


STMT_HANDLERS = {
    K.COMPOUND_STMT: Builder.compound,
    K.DECL_STMT: Builder.decl_stmt,
    K.IF_STMT: Builder.if_stmt,
    K.WHILE_STMT: Builder.while_stmt,
    K.DO_STMT: Builder.do_stmt,
    K.FOR_STMT: Builder.for_stmt,
    K.SWITCH_STMT: Builder.switch_stmt,
    K.CASE_STMT: Builder.case_stmt,
    K.DEFAULT_STMT: lambda b, c: b.case_stmt(c, default=True),
    K.LABEL_STMT: Builder.label_stmt,
    K.GOTO_STMT: Builder.goto_stmt,
    K.INDIRECT_GOTO_STMT: Builder.indirect_goto,
    K.BREAK_STMT: Builder.break_stmt,
    K.CONTINUE_STMT: Builder.continue_stmt,
    K.RETURN_STMT: Builder.return_stmt,
    K.CXX_TRY_STMT: Builder.try_stmt,
    K.CXX_FOR_RANGE_STMT: Builder.range_for,
    K.NULL_STMT: lambda b, c: None,
    K.ASM_STMT: lambda b, c: None,
    K.MS_ASM_STMT: lambda b, c: None,
}

EXPR_HANDLERS = {
    K.DECL_REF_EXPR: Builder.decl_ref,
    K.MEMBER_REF_EXPR: Builder.member,
    K.ARRAY_SUBSCRIPT_EXPR: Builder.subscript,
    K.UNARY_OPERATOR: Builder.unary,
    K.BINARY_OPERATOR: Builder.binary,
    K.COMPOUND_ASSIGNMENT_OPERATOR: Builder.binary,
    K.CONDITIONAL_OPERATOR: Builder.conditional,
    STMT_EXPR: Builder.stmt_expr,
    K.CALL_EXPR: Builder.call,
    K.CXX_NEW_EXPR: Builder.new_expr,
    K.CXX_DELETE_EXPR: Builder.delete_expr,
    K.CXX_THROW_EXPR: Builder.throw_expr,
    K.LAMBDA_EXPR: lambda b, c: b.lambdas.append(c),
}


def build_cfg(fn, conv: Conventions) -> FunctionCFG:
    reset_kids()
    try:
        return Builder(fn, conv).build()
    finally:
        reset_kids()
