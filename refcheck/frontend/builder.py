"""Builds a function's control-flow graph (`refcheck.ir.cfg.FunctionCFG`) from its libclang cursor.

Statements become nodes here; expressions are lowered by `ExpressionLowerer` (calls classified
by the conventions into acquire/retain/release/... ops; calls that do not return end their path
in an `error` node, which the errors mode interprets, or a `stop` node) and conditions by
`ConditionLowerer`. The three share one `GraphBuilder`; the builder hands each lowerer the
others' entry points (an expression can hold a condition, `a && b`, or a statement, `({ ... })`),
so none of the three modules imports another's lowerer.
"""

from __future__ import annotations

from refcheck.ir.digraph import descendants

from refcheck import ir
from refcheck.ir.cfg import FunctionCFG, Node
from refcheck.conventions import Conventions
from refcheck.frontend.clangutil import (K, binop, constant, constant_condition, converted_constant, end_location,
                                         has_pointer_type, has_scalar_type, location, referenced, reset_kids,
                                         strip, unop)
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.clangutil import (enumerators, is_expression, kind_of, points_to_const, returns_pointer,
                                         returns_truth, returns_value, unlike_result)
from refcheck.frontend.aliases import address_alias, interior_alias
from refcheck.frontend.cleanups import Scopes, cleanup_function, is_struct, releases
from refcheck.frontend import raii
from refcheck.frontend.handles import record_name
from refcheck.frontend.conditions import NULL, ConditionLowerer, child_arm
from refcheck.frontend.expressions import ExpressionLowerer
from refcheck.frontend.userdata import forwarded
from refcheck.frontend.binding import arguments, cursor_key
from refcheck.frontend.graph import GraphBuilder
from refcheck.frontend.longjmps import buffer_root, second_return
from refcheck.frontend.loops import for_parts
from refcheck.frontend.arrays import released_by
from refcheck.support.gcpause import paused_collector
from refcheck.frontend.sizes import element_count
from refcheck.frontend.relevance import can_find_anything
from refcheck.frontend import flagfail
from refcheck.frontend.intrusive import linking_parameters
from refcheck.frontend.replaced import replacing_parameters
from refcheck.frontend.ownedfields import owning_field_parameters
from refcheck.frontend.returnedvalues import constructed_from, lower_constructed
from refcheck.frontend.sameguard import same_guarded_parameters
from refcheck.frontend.setters import (closure_data, reaching_locals, stores_through_locals, takes_notify,
                                       untyped_parameters)


class Builder(GraphBuilder):
    """The statement half: one node per statement, loops and switches wired by hand."""

    def __init__(self, fn, conv: Conventions):
        super().__init__(fn, conv)
        self.exprs = ExpressionLowerer(self)
        self.conds = ConditionLowerer(self, self.exprs.value)
        self.exprs.connect(branch=self.conds.branch, stmt=self.stmt)
        self.entry = self.node("entry", location(fn))
        self.exit = self.node("exit", end_location(fn))
        self.cur = self.node("block")
        self.g.add_edge(self.entry, self.cur)
        self.scopes = Scopes()  # cleanup-attribute variables (frontend.cleanups)
        self.holders: dict = {}  # C++ RAII holder locals -> their raii.Holder (frontend.raii)
        self.raii_cache: dict = {}  # the holder classes and members read (frontend.raii)
        self.jump_marks: dict[int, dict] = {}  # break/continue target -> the scopes around it
        self.in_child = 0  # inside the arm a child-process test guards (conditions.child_arm)
        self.blocks: list = []  # the compound statements being lowered, innermost last
        self.statement = None  # the statement of the innermost block being lowered
        self.aliases: dict[str, str] = {}  # `T **pp = &v;` never written again: pp -> v (frontend.aliases)
        self.unions: dict[str, str] = {}  # `u.m = &v;` the one write of a local union u: u -> v (frontend.aliases)
        # `T *s = &x->f;` never written again: s -> x, an address inside x's object (frontend.aliases)
        self.interiors: dict[str, str] = {}
        # (interiors known then, the (holder, held) local pairs of the body) (frontend.parents)
        self.held: tuple[int, frozenset] | None = None
        # Retains a static counts (`frontend.statics`): call key -> the static; walked at the first retain.
        self.counted: dict | None = None
        self.held_elements: dict | None = None  # parameters removed from a field's list (frontend.heldelements)
        self.owner_gets: dict | None = None  # a transfer-none getter's owner acquisitions (frontend.ownergets)
        self.owner_lent: frozenset = frozenset()  # the locals holding one, lowered borrowed (same)
        self.holding_sites: list | None = None  # the body's assignments and calls, listed once (frontend.parents)
        self.parameter_vars: frozenset | None = None  # the parameters' variables (frontend.parents)
        self.weak_locations: frozenset | None = None  # keys given to g_object_add_weak_pointer (frontend.weak)
        self.weak_referenced: frozenset | None = None  # keys given to g_object_weak_ref (frontend.weak)
        self.shallow_calls: frozenset | None = None  # calls filling a list freed shallowly (frontend.shallow)
        self.bare_tables: dict | None = None  # tables made without destroy functions (frontend.bare_tables)
        self.owning: frozenset | None = None  # locals that own what is stored into them (frontend.owning)
        self.lent_structs: frozenset | None = None  # local structs whose address a call gets (frontend.owning)

    # -- statements -----------------------------------------------------------------------------
    def build(self) -> FunctionCFG:
        body = None
        params, read_only, unlike = [], set(), set()
        for c in children_of(self.fn):
            if kind_of(c) == K.PARM_DECL:
                v = self.var(c)
                params.append((v, has_pointer_type(c)))
                if params[-1][1] and points_to_const(c):
                    read_only.add(v)
                if params[-1][1] and unlike_result(self.fn, c):
                    unlike.add(v)
            elif kind_of(c) == K.COMPOUND_STMT:
                body = c
            elif kind_of(c) == K.CXX_TRY_STMT:  # function-try-block
                body = c
        if body is not None:
            self.stmt(body)
        self.edge(self.cur, self.exit)
        self.resolve_gotos()
        # Unreachable code (after a return, or dead labels) plays no part.
        reachable = descendants(self.g, self.entry) | {self.entry}
        self.g.remove_nodes_from([n for n in list(self.g.nodes) if n not in reachable])
        if self.exit not in self.g:
            self.g.add_node(self.exit, data=Node("exit", end_location(self.fn)))
        name = self.fn.spelling or f"lambda at line {self.fn.location.line}"
        steals = self.conv.infer_steals
        setters = steals and not self.conv.infer_setters
        reaching = self.vars_of(reaching_locals(self.fn, self.conv).values()) \
            if steals and stores_through_locals(self.g, params) else frozenset()
        # GLib's data/notify pair hands the data over, a `const gchar *` too (libxmlb's
        # `xb_opcode_init (self, kind, const gchar *str, val, destroy_func)`): not read-only there.
        notify = steals and takes_notify(self.fn)
        # A replacing setter under a same-pointer guard (bolt_set_str): handed over on every result.
        guarded = self.vars_of(same_guarded_parameters(self.fn, lambda n: self.conv.classify(n) == "release")) \
            if setters else frozenset()
        return FunctionCFG(name, self.g, self.entry, self.exit, location(self.fn), params,
                           self.names, lambdas=self.lambdas, role=self.role, reaching=reaching,
                           takes_notify=notify,
                           replaces=self.vars_of(replacing_parameters(self.fn, self.conv)
                                                 + owning_field_parameters(self.fn, self.conv)) | guarded
                           if setters else frozenset(),
                           same_guarded=guarded,
                           links=self.vars_of(linking_parameters(self.fn)) if setters else frozenset(),
                           closures=self.vars_of(closure_data(self.fn)) if steals else frozenset(),
                           untyped=self.vars_of(untyped_parameters(self.fn)) if steals else frozenset(),
                           forwards=frozenset((self.var(d), self.var(c)) for d, c in forwarded(self.fn))
                           if steals else frozenset(),
                           returns_value=returns_value(self.fn), returns_truth=returns_truth(self.fn),
                           returns_pointer=returns_pointer(self.fn),
                           read_only=frozenset(read_only) if steals and not notify else frozenset(),
                           null_when_flags=flagfail.inferred(self, params, returns_pointer(self.fn)),
                           hidden=frozenset(self.hidden), unlike_result=frozenset(unlike))

    def stmt(self, c) -> None:
        k = kind_of(c)
        handler = STMT_HANDLERS.get(k)
        if handler is not None:
            handler(self, c)
        elif is_expression(c):
            self.discarded = cursor_key(strip(c))  # a call whose result nobody reads (calls.py)
            self.exprs.value(c)
            self.expression_end(c)
        elif k in (K.NULL_STMT, K.DECL_STMT) or k.is_declaration():
            if k == K.DECL_STMT:
                self.decl_stmt(c)
        else:
            for child in children_of(c):
                self.stmt(child)

    def expression_end(self, c) -> None:
        """`full_expression_end` at the end of expression statement `c`; its location is asked
        only when a temporary dies there (74k expression statements in THTensor.c's build)."""
        if self.pending_temps:
            self.full_expression_end(location(c))

    def compound(self, c) -> None:
        prev = None
        self.scopes.push()
        self.blocks.append(c)
        outer = self.statement
        for child in children_of(c):
            self.statement = child
            self.stmt(child)
            count = element_count(self, prev, child)  # APPLY's element-count loop (frontend.sizes)
            if count is not None:
                self.emit(count)
            prev = child
        self.statement = outer
        self.blocks.pop()
        scope = self.scopes.pop()
        if scope.cleanups and self.cur is not None:  # falling off the end runs them
            for op in releases(list(reversed(scope.cleanups)), end_location(c), self.members):
                self.emit(op)

    def leave(self, cleanups, loc) -> None:
        """Run the cleanups of the scopes a jump or return leaves, before it."""
        for op in releases(cleanups, loc, self.members):
            self.emit(op)

    def jump(self, target: int, loc_of) -> None:
        """break/continue to `target`, leaving the scopes opened since it was set up."""
        mark = self.jump_marks.get(target)
        if mark is not None and self.scopes.any():
            self.leave(self.scopes.leaving(mark), location(loc_of))
        self.goto(target)

    def resolve_gotos(self) -> None:
        """Fill each goto's cleanup block, now that every label's scopes are known."""
        for n, snapshot, counts, name, loc in self.scopes.pending:
            target = self.scopes.labels.get(name, {})
            self.data[n].ops.extend(releases(self.scopes.leaving(target, snapshot, counts), loc, self.members))

    def decl_stmt(self, c) -> None:
        for d in children_of(c):
            if kind_of(d) != K.VAR_DECL:
                continue
            v = self.var(d)
            init = None
            for child in children_of(d):
                if is_expression(child):
                    init = child
            loc = location(d)
            if v is None:  # a static local: its initializer runs once, before us
                continue
            if raii.declare(self, d, v, init, loc):  # a C++ RAII holder (frontend.raii)
                continue
            alias = address_alias(self, d, init, self.blocks[-1] if self.blocks else None) if init is not None else None
            inner = interior_alias(self, d, init, self.blocks[-1] if self.blocks else None) if init is not None else None
            if inner is not None:
                self.interiors[v] = inner
            if alias is not None:
                self.aliases[v] = alias  # `*v` is `alias` from here on (no escape of `&alias`)
                self.emit(ir.Assign(loc, v, None))
            elif init is None:
                self.emit(ir.Assign(loc, v, None))
            else:
                self.exprs.initialize(loc, v, init)
                self.full_expression_end(loc)
            cleanup = cleanup_function(d)
            if cleanup is not None:
                self.scopes.declare(v, cleanup, shared=record_name(d.type) is not None, whole=is_struct(d))

    def if_stmt(self, c) -> None:
        kids = list(children_of(c))
        # C++17 if-with-initializer and condition variables come first.
        while len(kids) > 3 or (kids and kind_of(kids[0]) in (K.DECL_STMT, K.VAR_DECL) and len(kids) > 2):
            first = kids.pop(0)
            if kind_of(first) == K.VAR_DECL:
                self.decl_stmt_single(first)
            else:
                self.stmt(first)
        cond, then = constant_condition(kids[0]), kids[1]
        other = kids[2] if len(kids) > 2 else None
        t, f, join = self.node("block"), self.node("block"), self.node("block")
        # `if (setjmp(buf))`: calls after it may come back to one arm (frontend.longjmps); not the
        # calls of the test (png_jmpbuf's) or of that arm, and a setjmp inside an arm stays the
        # target after the if.
        second = second_return(cond)
        jump = None if second is None else (t if second else f)
        if jump is not None:
            self.longjmp_target = None
            root = buffer_root(self, cond)
            self.longjmp_context = (root, self.blocks[-1] if self.blocks else None) if root else None
        child = child_arm(self, cond)  # `if (g_test_subprocess ())`: which arm is the child
        self.conds.branch(cond, t, f)
        self.cur = t
        if jump is not None:
            self.longjmp_target = None if jump == t else jump
        self.arm(then, child is True)
        self.edge(self.cur, join)
        self.cur = f
        if jump is not None:
            self.longjmp_target = None if jump == f else jump
        if other is not None:
            self.arm(other, child is False)
        self.edge(self.cur, join)
        self.cur = join
        if jump is not None:
            self.longjmp_target = jump

    def decl_stmt_single(self, d) -> None:
        v = self.var(d)
        init = [x for x in children_of(d) if is_expression(x)]
        if v is not None and init:
            self.exprs.initialize(location(d), v, init[-1])
            self.expression_end(d)

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
        self.jump_marks[after] = self.jump_marks[cont] = self.scopes.mark()
        self.stmt(body)
        self.breaks.pop()
        self.continues.pop()
        self.edge(self.cur, cont)
        if cont != head:
            self.cur = cont
            if inc is not None:
                self.exprs.value(inc)
                self.expression_end(inc)
            if test_first:
                self.goto(head)
            else:
                self.cond_or_true(cond, body_n, after)
        self.cur = after

    def cond_or_true(self, cond, t: int, f: int) -> None:
        if cond is None:
            self.goto(t)
        else:
            self.conds.branch(cond, t, f)

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
        if self.array_holders:
            self.release_elements(c)
        if init is not None:
            self.stmt(init)
        self.loop(cond, body, inc=inc)

    def release_elements(self, c) -> None:
        """A loop releasing every element of a local array: what each element holds ends here,
        once, where the loop begins (frontend.arrays)."""
        released, name = released_by(self, c)
        for arr in released:
            for held in self.array_holders.get(arr, ()):
                self.emit(ir.Release(location(c), (held,), name))

    def range_for(self, c) -> None:
        kids = list(children_of(c))
        body = kids[-1]
        for k in kids[:-1]:
            if is_expression(k):
                self.exprs.value(k)
                self.expression_end(k)
        head, body_n, after = self.node("branch", location(c), cond=ir.Opaque("more elements"),
                                        text="more elements"), self.node("block"), self.node("block")
        self.start(head)
        self.edge(head, body_n, True)
        self.edge(head, after, False)
        self.cur = body_n
        for k in kids[:-1]:
            if kind_of(k) == K.VAR_DECL:
                v = self.var(k)
                if v is not None:
                    self.emit(ir.Assign(location(k), v, None))
        self.breaks.append(after)
        self.continues.append(head)
        self.jump_marks[after] = self.jump_marks[head] = self.scopes.mark()
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
        inner = strip(cond)
        if kind_of(inner) == K.CALL_EXPR:
            self.tested.add(cursor_key(inner))  # its conditional effects split here, as an `if`'s
            self.switched.add(cursor_key(inner))
        self.exprs.value(cond)
        svar = self.var(referenced(inner)) if kind_of(inner) == K.DECL_REF_EXPR else None
        if svar is None and kind_of(inner) == K.CALL_EXPR:
            # `switch (f (self, &out))` on a call split by its result (`result_split`): a case
            # takes the edge whose constant it matches (pyahocorasick's `automaton_build_output`);
            # its result variable outlives the expression (it holds a constant, no object).
            svar = self.status_vars.get(cursor_key(inner))
            if svar in self.pending_temps:
                self.pending_temps.remove(svar)
        self.expression_end(cond)
        dispatch = self.node("switch", location(c), value=svar)
        self.start(dispatch)
        after = self.node("block")
        self.switches.append([dispatch, False])
        self.breaks.append(after)
        self.jump_marks[after] = self.scopes.mark()
        self.cur = None
        self.stmt(body)
        self.breaks.pop()
        _, has_default = self.switches.pop()
        self.edge(self.cur, after)
        # A switch over an enum with a case for each of its enumerators (multidict's `switch
        # (op)` over UpdateOp's three) matches one of them, as -Wswitch takes it to.
        cases = {d.get("case") for d in self.g[dispatch].values()}
        domain = enumerators(inner)
        if not has_default and not (domain or {None}) <= cases:
            self.edge(dispatch, after, label="no case")
            if domain:  # the value is one of these: an earlier switch may have excluded the rest
                self.g[dispatch][after]["domain"] = domain
        self.cur = after

    def case_stmt(self, c, default=False) -> None:
        n = self.node("block", location(c))
        self.edge(self.cur, n)
        if self.switches:
            self.switches[-1][1] |= default
            self.edge(self.switches[-1][0], n, label="default" if default else f"case line {c.location.line}")
            if not default:
                value = constant(next(iter(children_of(c))))
                self.g[self.switches[-1][0]][n]["case"] = value
        self.cur = n
        kids = list(children_of(c))
        if kids:
            self.stmt(kids[-1])

    def label_stmt(self, c) -> None:
        n = self.label(c.spelling)
        self.start(n)
        self.scopes.labels[c.spelling] = self.scopes.mark()
        for child in children_of(c):
            self.stmt(child)

    def label(self, name: str) -> int:
        if name not in self.labels:
            self.labels[name] = self.node("block", text=f"{name}:")
        return self.labels[name]

    def goto_stmt(self, c) -> None:
        for child in children_of(c):
            if kind_of(child) == K.LABEL_REF:
                if self.scopes.any():  # its cleanups once the label's scopes are known
                    n = self.node("block")
                    self.edge(self.cur, n)
                    self.scopes.pending.append((n, list(self.scopes.stack), self.scopes.mark(),
                                                child.spelling, location(c)))
                    self.cur = n
                self.goto(self.label(child.spelling))
                return
        self.cur = None

    def indirect_goto(self, c) -> None:
        for child in children_of(c):
            self.exprs.value(child)
        src = self.cur
        for n in list(self.labels.values()):
            self.edge(src, n)
        self.cur = None

    def break_stmt(self, c) -> None:
        if self.breaks:
            self.jump(self.breaks[-1], c)

    def continue_stmt(self, c) -> None:
        if self.continues:
            self.jump(self.continues[-1], c)

    def arm(self, c, child: bool) -> None:
        """One arm of an if; a child process's arm is the child's whole run: it ends where the
        arm ends, and a return in it ends the process too (after the test function returns,
        the child exits), as an exit does: no cleanup is owed there."""
        if not child:
            self.stmt(c)
            return
        self.in_child += 1
        self.stmt(c)
        self.in_child -= 1
        if self.cur is not None:
            self.goto(self.node("stop", end_location(c), text="end of the child process"))

    def return_stmt(self, c) -> None:
        kids = [k for k in children_of(c) if is_expression(k)]
        returned = strip(kids[0]) if kids else None
        # `return f (...)` hands f's result to this function's caller, which tests it as this
        # function's own: f's conditional effects split here, each edge returning its constant
        # (`returned_constant`, called by steals.result_split; the join after it is unreachable).
        # Not given a constant (`return f (o, 0)`): that may decide f's result, which then is
        # no result of this function's caller's to test (f's other edge may never be taken).
        if returned is not None and kind_of(returned) == K.CALL_EXPR and not has_pointer_type(returned) \
                and not self.in_child and not any(converted_constant(a) is not None for a in arguments(returned)):
            self.tested.add(cursor_key(returned))
            self.returning = (cursor_key(returned), c)
        # `return T::consuming (x)`: a C++ holder's factory (frontend.raii), copied or not.
        built = raii.factory_returned(self, self.fn, returned)
        if built is None:
            built = constructed_from(self.fn, raii.unelided(returned))
        if built is not None:
            lower_constructed(self, location(c), built)
        v = self.exprs.value(kids[0]) if kids and built is None else None
        self.returning = None
        if v is None and returned is not None and kind_of(returned) == K.CALL_EXPR and has_pointer_type(returned):
            # `return f (...);` of a result nobody counts (f's record says it is unknown): an
            # unbound temporary, so that the summary says "unknown", not the borrowed of a bare
            # `return;` (gom's `find_sync` forwards `find_sorted_sync`'s).
            v = self.temp(f"{returned.spelling}(...)")
        if returned is not None and kind_of(returned) == K.DECL_REF_EXPR:
            # A local struct returned by value: what its members hold goes to the caller.
            for field, member in self.members.get(self.var(referenced(returned)) or "", {}).items():
                self.emit(ir.Store(location(c), member, member=field))
        if self.in_child:
            self.goto(self.node("stop", location(c), text="end of the child process"))
            self.pending_temps = []
            return
        # An integer constant returned (`return FALSE;`): the summary's conditional effects read
        # it; `return NULL;` is the zero result of a pointer (`Summarizer.at_return`).
        k = converted_constant(kids[0]) if kids and has_scalar_type(kids[0]) else 0 if kids and v == NULL else None
        n = self.returned_constant(c, None if v == NULL else v, k)
        if returned is not None and kind_of(returned) == K.CALL_EXPR and has_pointer_type(returned):
            keys = flagfail.keys_at_call(self, self.summary_of(*self.callee_of(returned)), arguments(returned))
            if keys:
                self.flag_returns[n] = frozenset(keys)

    def returned_constant(self, c, v: str | None, k: int | None) -> int:
        """The return statement `c` of value v (the integer constant k) from the current block."""
        n = self.node("return", location(c), value=v, const=k)
        if self.scopes.any():
            self.leave(self.scopes.leaving({}), location(c))
        self.goto(n)
        self.pending_temps = []
        self.g.add_edge(n, self.exit, branch=None, label="")
        return n

    def try_stmt(self, c) -> None:
        kids = list(children_of(c))
        # The try block starts a node of its own: the handlers' edge from `before` leaves before
        # any of its ops, not after whatever the block emitted into the same node.
        before = self.cur
        self.start(self.node("block"))
        after = self.node("block")
        entries = [self.node("block", text="catch") for _ in kids[1:]]
        for entry in entries:  # a throw leaves the scopes opened inside the try (cxxcalls.unwind)
            self.jump_marks[entry] = self.scopes.mark()
        self.handlers.append(entries)
        self.stmt(kids[0])
        self.handlers.pop()
        self.edge(self.cur, after)
        # A throw in the try block reaches the handlers: a throw expression, and each call that
        # may throw, from just before the call (expressions.throw_split). The handlers are also
        # reachable from the try's start, so that their code is checked whatever the block holds.
        for handler, entry in zip(kids[1:], entries):
            self.cur = entry
            self.edge(before, entry, label="exception")
            for child in children_of(handler):
                if kind_of(child) == K.COMPOUND_STMT:
                    self.stmt(child)
            self.edge(self.cur, after)
        self.cur = after


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


def _built(b: Builder) -> FunctionCFG:
    """The graph, with the builder's cycles (it and its lowerers refer to each other) broken, so
    that the builder and, once dropped, the graph are freed by reference counting instead of
    waiting for the collector (gcpause.py). Edges are written through `g[u][v]`, never
    `g.edges[u, v]` (networkx, which tests still use, caches that edge view on the graph)."""
    try:
        return b.build()
    finally:
        b.exprs.__dict__.clear()
        b.conds.__dict__.clear()
        b.__dict__.clear()


def build_cfg(fn, conv: Conventions) -> FunctionCFG:
    with paused_collector():
        reset_kids(fn)
        try:
            return _built(Builder(fn, conv))
        finally:
            reset_kids()


def build_cfg_if_relevant(fn, conv: Conventions) -> FunctionCFG | None:
    """The graph of a function that could produce a finding (`can_find_anything`), else None."""
    with paused_collector():
        reset_kids(fn)
        try:
            if not can_find_anything(fn, conv):
                return None
            return _built(Builder(fn, conv))
        finally:
            reset_kids()
