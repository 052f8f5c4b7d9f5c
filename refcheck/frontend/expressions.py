"""Expressions lowered to IR ops: values, loads and stores, assignments, operators, `new`/`delete`/
`throw`; calls through `calls.CallLowering` (their summary records into acquire/retain/release/
consume ops, borrowing calls, error exits, stops).

Values are named by strings (locals, parameters, temporaries), NULL, or None for what is not
tracked; `&&`, `||`, `?:`, comma and statement expressions split the graph where they occur.
"""

from __future__ import annotations

import clang.cindex as ci

from refcheck import ir
from refcheck.findings import Location
from refcheck.frontend.globalsteals import stolen_later
from refcheck.frontend.aliases import (aliased, first_member_base, inside, never_null_address, never_null_result,
                                      plain_local, union_alias, union_member)
from refcheck.frontend import arrays
from refcheck.frontend.calls import CallLowering
from refcheck.frontend.cxxcalls import CxxExpressions
from refcheck.frontend.clangutil import (STMT_EXPR, K, STRIPPED, binop, constant, converted_constant, expr_text,
                                         has_pointer_type, has_scalar_type, is_expression, kind_of, location,
                                         referenced, strip, unop)
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import (NULL, NULL_KINDS, expr_vars, has_side_effects, is_null_constant, key_of,
                                         singleton_address)
from refcheck.frontend.graph import GraphBuilder
from refcheck.conventions.summary import Returns
from refcheck.frontend.handles import record_name
from refcheck.frontend.fieldowners import lent_field
from refcheck.frontend.flagtests import FlagLowering
from refcheck.frontend.linkfields import link_field, linkable
from refcheck.frontend.nullglobals import always_null
from refcheck.frontend.recordfrees import unit_lent_field
from refcheck.frontend.owning import filled_by_others
from refcheck.frontend.overwrites import overwrites, place_of
from refcheck.frontend.releasedfields import released_field
from refcheck.frontend.parents import back_pointer
from refcheck.frontend.shifts import shift_of
from refcheck.frontend.constfields import constant_truth, spared
from refcheck.frontend.weak import weak_held, weak_store


class ExpressionLowerer(CxxExpressions, CallLowering, FlagLowering):
    """Lowers expressions into the graph being built. Conditions inside expressions (`&&`, `?:`,
    THArgCheck's test) and statements inside them (`({ ... })`) go to the lowerers the builder
    connects, so this module depends on neither."""

    def __init__(self, b: GraphBuilder):
        self.b = b
        self.branch = None  # (condition cursor, true node, false node) -> None
        self.stmt = None  # (statement cursor) -> None
        self.status_target = None  # (call key, local) while lowering `local = call(...)`

    def connect(self, branch, stmt) -> None:
        self.branch = branch
        self.stmt = stmt

    def value(self, c):
        """Lower an expression for its value: a value name, NULL, or None (untracked)."""
        if c._kind_id in STRIPPED:  # strip's own test, without the call for the 9 in 10 it leaves
            c = strip(c)
        handler = HANDLERS_BY_ID.get(c._kind_id)
        if handler is not None:
            return handler(self, c)
        k = kind_of(c)
        if k == K.INTEGER_LITERAL:
            return NULL if constant(c) == 0 else None
        if k in NULL_KINDS:
            return NULL
        for child in children_of(c):
            ck = kind_of(child)
            if is_expression(child):
                self.value(child)
            elif ck == K.COMPOUND_STMT:
                self.stmt(child)
        return None

    def assign_local(self, loc: Location, v: str, src, src_cursor) -> None:
        if src == NULL:
            # `t = NULL` makes t a known NULL; `i = 0` on an integer is just untracked.
            null = src_cursor is None or has_pointer_type(src_cursor)
            self.b.emit(ir.Assign(loc, v, None, null=null))
        else:
            nonnull = src is None and src_cursor is not None and (
                never_null_address(src_cursor) or never_null_result(self.b.conv, src_cursor))
            self.b.emit(ir.Assign(loc, v, src, nonnull=nonnull))
        if src in (None, NULL) and src_cursor is not None and not has_pointer_type(src_cursor):
            # As the local holds it: `unsigned char k = 300;` holds 44 (converted_constant).
            k = converted_constant(src_cursor) if not has_side_effects(src_cursor) else None
            if k is not None:
                self.b.emit(ir.Const(loc, v, k))

    def initialize(self, loc: Location, v: str, init) -> None:
        """`T v = init;` for a local v."""
        if self.initialize_members(loc, v, init) or self.struct_result(loc, v, init):
            return
        if arrays.initialize_elements(self, loc, init):
            return
        if not self.assign_flag(loc, v, init):
            src, done = self.value_into(v, init)
            if not done:
                self.assign_local(loc, v, src, init)

    def initialize_members(self, loc: Location, s: str, init) -> bool:
        """`S s = { .f = g_string_new (NULL) };` (or positional) for a local struct s: each pointer
        member's initializer is stored into that member, as `s.f = ...` would be (member_holder)."""
        c = strip(init)
        if kind_of(c) != K.INIT_LIST_EXPR or init.type.get_canonical().kind != ci.TypeKind.RECORD:
            return False
        fields = [f.spelling for f in init.type.get_canonical().get_fields()]
        items = list(children_of(c))
        designated = any(kind_of(k) == K.UNEXPOSED_EXPR and kind_of(next(iter(children_of(k)), k)) == K.MEMBER_REF
                         for k in items)
        for i, k in enumerate(items):
            name, expr = (fields[i] if i < len(fields) else None), k
            if designated:
                parts = list(children_of(k))
                name, expr = (parts[0].spelling, parts[1]) if len(parts) == 2 and kind_of(parts[0]) == K.MEMBER_REF \
                    else (None, k)
            src = self.value(expr)
            if name and has_pointer_type(expr) and src not in (None, NULL):
                self.b.emit(ir.Assign(loc, self.member_var(s, name), src))
        self.b.emit(ir.Assign(loc, s, None))
        return True

    def struct_result(self, loc: Location, s: str, rhs) -> bool:
        """`s = f (...)` for a local struct s, f returning a struct by value whose record says
        which members hold a reference the caller owns (Summary.members): each of those members
        of s holds a new reference, as f's own `r.chunk = chunk; return r;` handed it over; the
        others hold nothing tracked (the copy overwrote them)."""
        c = strip(rhs)
        if kind_of(c) != K.CALL_EXPR or c.type.get_canonical().kind != ci.TypeKind.RECORD or self.b.borrows:
            return False
        decl, name = self.b.callee_of(c)
        owned = [f for f, r in self.b.summary_of(decl, name).members if r is Returns.OWNED]
        if not owned:
            return False
        self.value(c)
        for field, member in list(self.b.members.get(s, {}).items()):
            if field not in owned:
                self.b.emit(ir.Kill(loc, member))
        for field in owned:
            t = self.b.temp(f"{name}(...).{field}")
            self.b.emit(ir.Acquire(loc, t, name))
            self.b.emit(ir.Assign(loc, self.member_var(s, field), t))
        return True

    def decl_ref(self, c):
        ref = referenced(c)
        v = self.b.var(ref)
        if v is not None:
            return v
        if ref is not None and kind_of(ref) in (K.VAR_DECL, K.PARM_DECL) and has_pointer_type(c):
            if kind_of(ref) == K.VAR_DECL and always_null(self.b, c):
                return NULL  # `g = PyErr_Format (...)` is all g ever holds (frontend.nullglobals)
            return self.load(c, location(c))
        if ref is not None and kind_of(ref) == K.ENUM_CONSTANT_DECL:
            return None
        return None

    def member(self, c):
        # The location only where an op is emitted (here and below): asked eagerly, most of the
        # 490k asked on THTensor.c went unused (a binary operator's, for one, only serves `=`).
        punned = union_member(self.b, c)
        if punned is not None:  # `u.m` holding `&v` read as a value: v's address escapes here
            self.b.emit(ir.Escape(location(c), punned))
            return None
        kids = list(children_of(c))
        if kids:
            base = self.value(kids[0])
            if base not in (None, NULL) and has_pointer_type(kids[0]):
                self.b.emit(ir.Use(location(c), base, deref=True))
        if has_pointer_type(c):
            held = self.member_read(c)  # `s.f` of a local struct: the member's own object
            if held is None and filled_by_others(self.b, c):
                return self.b.temp(expr_text(c, macros=True))  # untracked: unknown ownership
            return held if held is not None else self.load(c, location(c))
        return None

    def load(self, c, loc):
        text = expr_text(c, macros=True)  # the name a finding gives the loaded object
        t = self.b.temp(text)
        key = key_of(self.b, c)
        deps = key[1] if key else expr_vars(c, self.b)
        # `PyTuple_GET_ITEM (args, 0)`: the C API's borrowed element, a call's result (frontend.arrays).
        call = arrays.borrowed_item(self.b, text) if kind_of(c) == K.ARRAY_SUBSCRIPT_EXPR else ""
        self.b.emit(ir.Load(loc, t, text, frozenset(deps), key[0] if key else "", call=call,
                            through=self.pointee_of(c)))
        return t

    def subscript(self, c):
        kids = list(children_of(c))
        base = self.value(kids[0]) if kids else None
        for idx in kids[1:]:
            self.value(idx)
        if base not in (None, NULL):
            self.b.emit(ir.Use(location(c), base, deref=True))
        if has_pointer_type(c):
            return self.load(c, location(c))
        return None

    def unary(self, c):
        op = unop(c)
        kids = list(children_of(c))
        if not kids:
            return None
        operand = kids[0]
        if op == "&":
            inner = strip(operand)
            if kind_of(inner) == K.DECL_REF_EXPR:
                v = self.b.var(referenced(inner))
                if v is not None:
                    self.b.emit(ir.Escape(location(c), v, spared=spared(self.b, c, v)))
                elif singleton_address(c, self.b):
                    # `&_Py_NoneStruct` (Py_None): an object that outlives the call, borrowed, one
                    # load key for all its mentions (Py_INCREF(Py_None); return Py_None;).
                    return self.load(c, location(c))
                return None
            first = first_member_base(inner)
            if first is not None:  # `&p->parent`, the initial member: p itself
                v = self.value(first)
                if v not in (None, NULL):
                    self.b.emit(ir.Use(location(c), v, deref=True))
                return v
            self.lvalue_base(inner)
            return None
        if op == "*":
            w = aliased(self.b, c)
            if w is not None:
                return w  # `*pp` where pp = &w (frontend.aliases)
            v = self.value(operand)
            if v not in (None, NULL):
                self.b.emit(ir.Use(location(c), v, deref=True))
            if has_pointer_type(c):
                return self.load(c, location(c))
            return None
        if op in ("++", "--", "post++", "post--"):
            v = self.value(operand)
            if v not in (None, NULL) and not v.startswith("$"):
                self.b.emit(self.step(location(c), v, operand, 1 if op.endswith("++") else -1))
            return v if has_pointer_type(c) else None
        if op == "!":
            self.value(operand)
            return None
        v = self.value(operand)
        return v if op in ("+", "__extension__") else None

    def lvalue_base(self, c) -> None:
        """Evaluate the address computation of an lvalue (its base pointers are used)."""
        c = strip(c)
        if kind_of(c) == K.MEMBER_REF_EXPR:
            kids = list(children_of(c))
            if kids:
                base = self.value(kids[0])
                if base not in (None, NULL) and has_pointer_type(kids[0]):
                    self.b.emit(ir.Use(location(c), base, deref=True))
        elif kind_of(c) == K.ARRAY_SUBSCRIPT_EXPR:
            kids = list(children_of(c))
            base = self.value(kids[0]) if kids else None
            for idx in kids[1:]:
                self.value(idx)
            if base not in (None, NULL):
                self.b.emit(ir.Use(location(c), base, deref=True))
        elif kind_of(c) == K.UNARY_OPERATOR and unop(c) == "*":
            kids = list(children_of(c))
            base = self.value(kids[0]) if kids else None
            if base not in (None, NULL):
                self.b.emit(ir.Use(location(c), base, deref=True))

    def binary(self, c):
        op = binop(c)
        kids = list(children_of(c))
        if len(kids) != 2:
            for k in kids:
                self.value(k)
            return None
        lhs, rhs = kids
        if op == "=":
            return self.assignment(location(c), lhs, rhs)
        if op in ("&&", "||"):
            t, f, join = self.b.node("block"), self.b.node("block"), self.b.node("block")
            self.branch(c, t, f)
            self.b.cur = t
            self.b.goto(join)
            self.b.cur = f
            self.b.goto(join)
            self.b.cur = join
            return None
        if op == ",":
            self.value(lhs)
            return self.value(rhs)
        a = self.value(lhs)
        self.value(rhs)
        if op.endswith("=") and op not in ("==", "!=", "<=", ">="):  # compound assignment
            target = strip(lhs)
            if kind_of(target) == K.DECL_REF_EXPR:
                v = self.b.var(referenced(target))
                if v is not None:
                    k = constant(rhs) if op in ("+=", "-=") else None
                    step = None if k is None else k if op == "+=" else -k
                    self.b.emit(self.step(location(c), v, target, step))
                    return v if has_pointer_type(c) else None
            else:
                self.lvalue_base(target)
            return None
        if op in ("+", "-") and has_pointer_type(c) and a not in (None, NULL):
            return a  # pointer arithmetic stays within the object
        return None

    def step(self, loc: Location, v: str, operand, delta):
        """`i++`, `i -= 2` of a local integer: an `ir.Shift` of i by the constant, which keeps
        i's constant where it is one i is compared with, or the side of them it stays on
        (analysis.bounds); anything else changes v to an unknown value (`ir.Touch`)."""
        if delta is None or not isinstance(delta, int) or isinstance(delta, bool) or has_pointer_type(operand):
            return ir.Touch(loc, v)
        return ir.Shift(loc, v, v, delta)

    def assignment(self, loc: Location, lhs, rhs):
        target = strip(lhs)
        punned = union_alias(self.b, target, rhs)
        if punned is not None:  # `u.in = (char *) &v`: u's members are `&v` (frontend.aliases)
            self.b.unions[punned[0]] = punned[1]
            return None
        alias = aliased(self.b, target)
        if kind_of(target) == K.DECL_REF_EXPR or alias is not None:
            v = alias or self.b.var(referenced(target))
            if v is not None and (self.assign_flag(loc, v, rhs) or self.struct_result(loc, v, rhs)):
                return None
            src, done = self.value_into(v, rhs) if v is not None else (self.value(rhs), False)
            if v is not None:
                shift = shift_of(self.b, rhs) if src is None and not done else None
                if shift is not None:  # `state = STATE_NEW + state - STATE_CURRENT` (frontend.shifts)
                    self.b.emit(ir.Shift(loc, v, shift[0], shift[1]))
                elif not done:
                    self.assign_local(loc, v, src, rhs)
                    if src == NULL and has_pointer_type(target):
                        # `a = (b = NULL)`: the inner assignment's value is the null pointer, not
                        # b; lowering it as `a = b` joined a and b into one alias class, so a
                        # null test of b tracked a as well (totem's `title = ... = author = NULL`).
                        return NULL
                return v
        elif self.store_flag(loc, target, rhs):
            return None
        else:
            src = self.value(rhs)
        # A store to memory: a field, *p, an array element or a global hands the reference over.
        # Not an element of a local array that a local variable still holds the reference in: the
        # array dies with the function, the variable keeps the duty (a reference only the array
        # holds, `arr[i] = newX()`, is handed over as before: array elements are not tracked).
        # So is a member of a local struct (`out.dst = buf;` then `&out` lent to a call).
        copied = plain_local(self.b, rhs)
        for held in self.b.members.get(copied, {}).values() if copied is not None else ():
            self.b.emit(ir.Store(loc, held))  # `*out = s;`: what s's members hold goes with the copy
        member = self.member_holder(target)
        if member is not None and src not in (None, NULL):
            self.b.emit(ir.Assign(loc, member, src))  # a local's pointer or a call's result
            return src
        if member is not None:
            self.b.emit(ir.Kill(loc, member))  # the member no longer holds what it held
        if self.local_array_element(target) and src not in (None, NULL) and not src.startswith("$"):
            held = arrays.holder(self.b, target, loc)
            if held is not None:  # `keep[n++] = t;` released by a loop over keep (frontend.arrays)
                self.b.emit(ir.Assign(loc, held, src))
            if held is not None or not arrays.filled_in_loop(self.b, target):
                self.lvalue_base(target)
                return src
            # `bases[i] = base; Py_INCREF (base);` on each trip: the covered array keeps it, a store.
        self.lvalue_base(target)
        stored = plain_local(self.b, rhs) if src not in (None, NULL) else None
        into = inside(self.b, target) if stored is not None else None
        if into is not None and back_pointer(self.b, stored, into):
            # `x->side.owner = x`, `priv_child->parent = self` beside `self` keeping the child: a
            # back-pointer inside x's own object or one x holds, which cannot own x (the cycle
            # would never be freed): borrowed, no hand-over (docs/semantics.md).
            self.b.emit(ir.Use(loc, src))
            return src
        if src not in (None, NULL) and self.b.conv.infer_setters and link_field(self.b, target) \
                and linkable(self.b, rhs):
            # `self->first = node`, a field no function of the unit gives up: a link to an object
            # another owner keeps (lru-dict's node list beside its dict), no hand-over
            # (frontend.linkfields).
            self.b.emit(ir.Use(loc, src))
            return src
        if stored is not None and self.b.conv.infer_steals and not self.b.conv.infer_setters \
                and (lent_field(self.b, target, rhs) or unit_lent_field(self.b, target, rhs)):
            # `tdata->buffer_out = buffer_out` in a record whose destroy notify never frees that
            # field, `icheck->local_socket = sockptr` in one the unit's destroyers never free it
            # of: the caller's, lent (frontend.fieldowners, frontend.recordfrees).
            self.b.emit(ir.Use(loc, src))
            return src
        key = key_of(self.b, target)
        # A cleanup variable's copy, a weak pointer or a weak-ref'd object (`frontend.weak`): an
        # alias, no hand-over.
        alias = stored is not None and (self.b.scopes.shared(stored) or weak_store(self.b, key[0] if key else "")
                                        or weak_held(self.b, rhs))
        alias = alias or src in getattr(self.b, "holders", ())  # `g = o.Get ()`: a C++ holder's (frontend.raii)
        # `g = PyDict_New (); PyModule_AddObject (m, "g", g)`: the module's, the global borrowed.
        alias = alias or (src not in (None, NULL) and stolen_later(self.b, target))
        through = self.pointee_of(target)
        # `*is_copy = true;`: the integer an out-parameter receives (`Summarizer.at_return`).
        k = converted_constant(rhs) if through is not None and has_scalar_type(target) else None
        if through is None and key and src is None and has_scalar_type(target) and converted_constant(rhs):
            self.b.flag_sets.append((self.b.cur, key[0]))  # `self->route_state = 1;` (frontend.flagfail)
        untracked = src is None and through is None and bool(key) and has_pointer_type(target) \
            and not is_null_constant(rhs)
        truth = None if k is None else bool(k)
        if through is None and key and src in (None, NULL) and has_scalar_type(target):
            truth = constant_truth(self.b, target, converted_constant(rhs))  # `s.done = TRUE;`
        self.b.emit(ir.Store(loc, src if src not in (None, NULL) else None, key[0] if key else "",
                           frozenset(expr_vars(target, self.b)), through=through, alias=alias,
                           truth=truth, null=src == NULL and (through is not None or has_pointer_type(target)),
                           untracked=untracked, overwrites=src not in (None, NULL) and overwrites(self.b, target),
                           place=place_of(self.b, target) if src not in (None, NULL) else "",
                           owning=src not in (None, NULL) and released_field(self.b, target)))
        return src

    def pointee_of(self, target) -> str | None:
        """The variable p of a store target `*p` or `p[0]` (what an out-parameter's fill writes)."""
        k = kind_of(target)
        if k == K.UNARY_OPERATOR and unop(target) == "*":
            kids = list(children_of(target))
        elif k == K.ARRAY_SUBSCRIPT_EXPR:
            kids = list(children_of(target))
            if len(kids) != 2 or constant(strip(kids[1])) != 0:
                return None
        else:
            return None
        base = strip(kids[0]) if kids else None
        return self.b.var(referenced(base)) if base is not None and kind_of(base) == K.DECL_REF_EXPR else None

    def local_array_element(self, target) -> bool:
        """`arr[i]` where arr is an array (not a pointer, nor a parameter) local to this function."""
        if kind_of(target) != K.ARRAY_SUBSCRIPT_EXPR:
            return False
        base = next(iter(children_of(target)), None)
        base = strip(base) if base is not None else None
        if base is None or kind_of(base) != K.DECL_REF_EXPR or self.b.var(referenced(base)) is None:
            return False
        # Not a parameter declared as an array (`_cffi_opcode_t opcodes[]`): C adjusts it to a
        # pointer (C11 6.7.6.3p7), the caller's memory, whose store hands the reference over.
        if kind_of(referenced(base)) == K.PARM_DECL:
            return False
        return referenced(base).type.get_canonical().kind in (
            ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY)

    def member_holder(self, target) -> str | None:
        """For `s.f` where s is a struct (not a pointer) local to this function: the variable
        standing for that member, which holds what a local stored there (an alias: the struct dies
        with the function, the local keeps the duty; returning s hands it to the caller). None
        for any other target."""
        if kind_of(target) != K.MEMBER_REF_EXPR or not has_pointer_type(target):
            return None
        base = next(iter(children_of(target)), None)
        base = strip(base) if base is not None else None
        if base is None or kind_of(base) != K.DECL_REF_EXPR:
            return None
        s = self.b.var(referenced(base))
        t = referenced(base).type.get_canonical()
        # Not a union's: its members share one storage (`value.v_string`, `value.v_identifier`).
        if s is None or t.kind != ci.TypeKind.RECORD or kind_of(t.get_declaration()) == K.UNION_DECL:
            return None
        return self.member_var(s, target.spelling)

    def member_var(self, s: str, field: str) -> str:
        """The variable standing for member `field` of the local struct s."""
        members = self.b.members.setdefault(s, {})
        name = members.get(field)
        if name is None:
            name = members[field] = f"{s}.{field}"
            self.b.names[name] = f"{self.b.names.get(s, s)}.{field}"
        return name

    def member_read(self, c) -> str | None:
        """Reading `s.f` of a local struct s whose member was written here: what it holds."""
        base = next(iter(children_of(c)), None)
        base = strip(base) if base is not None else None
        if base is None or kind_of(base) != K.DECL_REF_EXPR or not self.b.members:
            return None
        s = self.b.var(referenced(base))
        return self.b.members.get(s, {}).get(c.spelling) if s is not None else None

    def conditional(self, c):
        kids = list(children_of(c))
        t_n, f_n, join = self.b.node("block"), self.b.node("block"), self.b.node("block")
        result = self.b.temp("?:")
        loc = location(c)
        if len(kids) == 2:  # GNU a ?: b
            cond_v = self.value(kids[0])
            if cond_v in (None, NULL):
                self.b.goto(t_n)
                self.b.edge(self.b.cur, f_n)
            else:
                n = self.b.node("branch", loc, cond=ir.NullTest(cond_v) if has_pointer_type(kids[0]) else ir.Opaque())
                self.b.start(n)
                self.b.edge(n, t_n, True)
                self.b.edge(n, f_n, False)
                self.b.cur = None
            arms = [(t_n, None, cond_v), (f_n, kids[1], None)]
        else:
            self.branch(kids[0], t_n, f_n)
            arms = [(t_n, kids[1], None), (f_n, kids[2], None)]
        for n, expr, known in arms:
            self.b.cur = n
            v = known if expr is None else self.value(expr)
            self.b.emit(ir.Assign(loc, result, None if v == NULL else v, null=v == NULL and has_pointer_type(c)))
            self.b.goto(join)
        self.b.cur = join
        return result

    def stmt_expr(self, c):
        body = next(iter(children_of(c)), None)
        if body is None:
            return None
        kids = list(children_of(body))
        for s in kids[:-1]:
            self.stmt(s)
        if kids and is_expression(kids[-1]):
            return self.value(kids[-1])
        if kids:
            self.stmt(kids[-1])
        return None

    def argument(self, a, role):
        inner = strip(a)
        if kind_of(inner) == K.UNARY_OPERATOR and unop(inner) == "&":
            # An address has a value only as a singleton's (Py_INCREF(Py_None)) or as an initial
            # member's, which is its object's own (`&oc->handle`); `&v` escapes (None).
            return self.value(inner)
        return self.value(a)

    def is_handle(self, c) -> bool:
        """A call result that is no reference: of a type the `context` patterns name (THCState *),
        or of a record type no acquirer of the unit hands out counted (`frontend.handles`: a
        THAllocator * from THCState_getCudaHostAllocator)."""
        n = record_name(c.type)
        conv = self.b.conv
        return n is not None and (conv.matches("context", n) or (bool(conv.unit_counted) and n not in conv.unit_counted))


EXPR_HANDLERS = {
    K.DECL_REF_EXPR: ExpressionLowerer.decl_ref,
    K.MEMBER_REF_EXPR: ExpressionLowerer.member,
    K.ARRAY_SUBSCRIPT_EXPR: ExpressionLowerer.subscript,
    K.UNARY_OPERATOR: ExpressionLowerer.unary,
    K.BINARY_OPERATOR: ExpressionLowerer.binary,
    K.COMPOUND_ASSIGNMENT_OPERATOR: ExpressionLowerer.binary,
    K.CONDITIONAL_OPERATOR: ExpressionLowerer.conditional,
    STMT_EXPR: ExpressionLowerer.stmt_expr,
    K.CALL_EXPR: ExpressionLowerer.call,
    K.CXX_NEW_EXPR: ExpressionLowerer.new_expr,
    K.CXX_DELETE_EXPR: ExpressionLowerer.delete_expr,
    K.CXX_THROW_EXPR: ExpressionLowerer.throw_expr,
    K.LAMBDA_EXPR: lambda x, c: x.b.lambdas.append(c),
}
HANDLERS_BY_ID = {k.value: h for k, h in EXPR_HANDLERS.items()}
