"""Conditions lowered to branch nodes, and what makes two tests of a condition the same test.

A condition becomes a chain of branch nodes (`&&`, `||`, `!` and comma are split), each testing
one thing the analysis understands: a pointer against NULL, two pointers against each other, or a
side-effect-free expression identified by its structure (`fact_key`), so that a second test of
`!contig` or `!THTensor_isContiguous(x)` with its variables unchanged takes the same edge.
"""

from __future__ import annotations

import clang.cindex as ci

from refcheck import ir
from refcheck.frontend.clangutil import (FUNCTION_KINDS, STMT_EXPR, K, binop, compared_as_held, constant,
                                         converted_constant, expr_text, has_pointer_type, is_expression,
                                         location, referenced, STRIPPED, strip, unop)
from refcheck.frontend.binding import arguments, cursor_key, kind_of, spelling
from refcheck.frontend.boolexpr import boolean_test
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.graph import GraphBuilder
from refcheck.frontend.indicatorguard import guards_indicator, nonzero_edge
from refcheck.frontend.nullcmp import null_compared
from refcheck.frontend.sizes import size_test
from refcheck.frontend.statictypes import static_object
from refcheck.frontend.steals import status_condition
from refcheck.frontend.strequal import string_equality
from refcheck.frontend.typetests import type_test

NULL = "$null"  # the value of a NULL constant, as the lowering passes values around
NULL_KINDS = {K.GNU_NULL_EXPR, K.CXX_NULL_PTR_LITERAL_EXPR}


class ConditionLowerer:
    """Lowers conditions into branch nodes of the graph being built. The operands of a test are
    lowered by `value` (the expression lowerer's, passed in by the builder)."""

    def __init__(self, b: GraphBuilder, value):
        self.b = b
        self.value = value

    # -- conditions -----------------------------------------------------------------------------
    def branch(self, c, t: int, f: int) -> None:
        """Lower a condition so that control reaches t when it holds and f when it does not."""
        c = strip(c)
        k = kind_of(c)
        if k == K.UNARY_OPERATOR and unop(c) == "__extension__":  # G_GNUC_EXTENSION ({ ... })
            self.branch(next(iter(children_of(c))), t, f)
            return
        if k == K.CALL_EXPR and self.b.callee_of(c)[1] in EXPECT_BUILTINS:
            # `__builtin_expect(e, c)` is e with a hint (likely(), G_LIKELY): test e itself.
            hinted = arguments(c)
            if hinted:
                self.branch(hinted[0], t, f)
                return
        if k == STMT_EXPR and (tested := boolean_test(c)) is not None:
            # `({ int v; if (e) v = 1; else v = 0; v; })` (G_LIKELY under __OPTIMIZE__): e's own
            # test, so that its outcome is remembered where e is tested again (`frontend.boolexpr`).
            self.branch(tested[0], t, f) if tested[1] else self.branch(tested[0], f, t)
            return
        if k == STMT_EXPR and self.statement_prefix(c):
            # Any other statement expression (`({ x = f (); x != NULL; })`): the statements
            # run, then their last expression is the test (decided by them).
            self.branch(last_statement(c), t, f)
            return
        if k == K.UNARY_OPERATOR and unop(c) == "!":
            self.branch(next(iter(children_of(c))), f, t)
            return
        if k == K.BINARY_OPERATOR and self.b.indicator and (edge := nonzero_edge(self.b, c)) is not None:
            # `(err = helper ()) != 0` with a helper answering only with an error set: on the
            # nonzero edge the indicator was set (a clear one takes the other edge), as below.
            mid = self.b.node("block")
            fact = ir.Fact(self.b.indicator, frozenset())
            self.test(c, None, mid, f if edge else t, pointer=False, fact=fact)
            self.b.cur = mid
        if k == K.BINARY_OPERATOR:
            op = binop(c)
            lhs, rhs = list(children_of(c))
            if op == "&&":
                mid = self.b.node("block")
                self.branch(lhs, mid, f)
                self.b.cur = mid
                self.branch(rhs, t, f)
                return
            if op == "||":
                mid = self.b.node("block")
                self.branch(lhs, t, mid)
                self.b.cur = mid
                self.branch(rhs, t, f)
                return
            if op == ",":
                self.value(lhs)
                self.branch(rhs, t, f)
                return
            if op in ("==", "!=") and (self.counted(c, op, lhs, rhs, t, f) or self.equality(c, op, lhs, rhs, t, f)):
                return
        value = constant(c) if k in (K.INTEGER_LITERAL, K.CHARACTER_LITERAL, K.BINARY_OPERATOR,
                                     K.CXX_BOOL_LITERAL_EXPR, K.UNARY_OPERATOR, K.UNEXPOSED_EXPR) else None
        if value is not None and not has_side_effects(c):
            self.b.goto(t if value else f)
            return
        if k == K.CALL_EXPR and self.counted(c, "!=", c, None, t, f):
            return
        if k == K.CALL_EXPR and self.b.indicator and guards_indicator(self.b, c):
            # `if (helper (...))` where the helper answers only with an error set: first the
            # indicator (a clear one takes f), then the helper's own answer.
            mid = self.b.node("block")
            self.test(c, None, mid, f, pointer=False, fact=ir.Fact(self.b.indicator, frozenset()))
            self.b.cur = mid
        if k == K.CALL_EXPR:
            self.null_guard(c, f)
        key = key_of(self.b, c)
        mark = len(self.b.pending_temps)
        tested = c if k == K.CALL_EXPR else (call_comparison(c) or (None,))[0]
        if tested is not None:  # `if (!f (x))`, `if (f (x) < 0)`: its conditional effects split here
            self.b.tested.add(cursor_key(tested))
        v = self.value(c)
        if has_pointer_type(c) and v not in (None, NULL) and not (key and v.startswith("$")):
            self.test(c, v, t, f, pointer=True, mark=mark)
        else:
            fact = ir.Fact(key[0], frozenset(key[1]), simple_condition(c, self.b),
                           singleton_identity(c, self.b)) if key is not None else None
            status = status_condition(self.b, c, call_comparison)  # PyModule_AddObject(...) < 0
            if status is not None:
                fact = ir.Fact(" ".join(map(str, status)), frozenset(status[:1]), status)
            # A comparison of element counts or a same-size test: size facts may decide it.
            fact = size_test(self.b, c, fact) or fact
            if k == K.CALL_EXPR:  # `PyBytes_Check (v)`: v's known type may decide it
                fact = type_test(self.b, c, fact, key_of)
            self.test(c, None, t, f, pointer=False, fact=fact, mark=mark)

    def equality(self, c, op: str, lhs, rhs, t: int, f: int) -> bool:
        """`a == b` / `a != b` lowered as a null test, a negated test or a comparison of two
        pointers, where it is one (True); else False (the caller tests it as a fact)."""
        zeroed = pure_call_against_zero(lhs, rhs, self.b)
        other = null_compared(self.b, zeroed, is_null_constant) if zeroed is not None and kind_of(zeroed) == K.CALL_EXPR else None
        if other is not None and has_pointer_type(other):
            # `g_strcmp0 (x, NULL) == 0` is `x == NULL` (frontend.nullcmp).
            mark = len(self.b.pending_temps)
            v = self.value(other)
            if v not in (None, NULL):
                yes, no = (f, t) if op == "==" else (t, f)
                self.test(c, v, yes, no, pointer=True, mark=mark, shown_inverted=op == "==")
                return True
        if zeroed is not None:
            # `g_str_equal (a, b) == FALSE` is `!g_str_equal (a, b)`: one test of the
            # pure call, which its other tests of the same text correlate with.
            self.branch(zeroed, f, t) if op == "==" else self.branch(zeroed, t, f)
            return True
        for a, b in ((lhs, rhs), (rhs, lhs)):
            if is_null_constant(b) and has_pointer_type(a):
                mark = len(self.b.pending_temps)
                call = strip(a) if kind_of(strip(a)) == K.CALL_EXPR else None
                if call is not None:  # its conditional effects split on NULL here (`plain_call`)
                    self.b.tested.add(cursor_key(call))
                v = self.value(a)
                r = self.b.status_vars.get(cursor_key(call)) if call is not None and v is None else None
                if r is not None:  # split: r holds 0 where it returned NULL, 1 elsewhere
                    status = (r, op, 0)
                    self.test(c, None, t, f, pointer=False, mark=mark,
                              fact=ir.Fact(" ".join(map(str, status)), frozenset(status[:1]), status))
                    return True
                yes, no = (f, t) if op == "==" else (t, f)
                self.test(c, v, yes, no, pointer=True, mark=mark, shown_inverted=op == "==")
                return True
        # `x == Py_None`: a test of x against one fixed object, keyed by its text (a Fact,
        # which a retest of the same x correlates), not a comparison of two references.
        singleton = singleton_address(lhs, self.b) or singleton_address(rhs, self.b)
        if has_pointer_type(lhs) and has_pointer_type(rhs) and not singleton:
            mark = len(self.b.pending_temps)
            a, b = (self.value(x) or (self.b.temp(expr_text(x)) if variable_address(x) else None)
                    for x in (lhs, rhs))
            if a not in (None, NULL) and b not in (None, NULL):
                yes, no = (t, f) if op == "==" else (f, t)
                storage = frozenset(v for v, x in ((a, lhs), (b, rhs)) if variable_address(x))
                self.test(c, None, yes, no, pointer=False, fact=ir.SameObject(a, b, storage), mark=mark,
                          shown_inverted=op == "!=")
                return True
        return False

    def counted(self, c, op: str, lhs, rhs, t: int, f: int) -> bool:
        """`g_list_length (l) == 0` (or `!= 0`, or the count as a truth value) lowered as a null
        test of l, a local: the conventions' `zero_if_null` counts are zero exactly for NULL."""
        for x, y in ((lhs, rhs), (rhs, lhs)):
            e = strip(x) if x is not None else None
            if e is None or kind_of(e) != K.CALL_EXPR or (y is not None and converted_constant(y) != 0):
                continue
            if not self.b.conv.matches("zero_if_null", self.b.callee_of(e)[1] or ""):
                continue
            args = arguments(e)
            first = strip(args[0]) if args else None
            if first is None or kind_of(first) != K.DECL_REF_EXPR or self.b.var(referenced(first)) is None \
                    or not has_pointer_type(first):
                continue
            mark = len(self.b.pending_temps)
            v = self.value(first)
            if v in (None, NULL):
                continue
            yes, no = (f, t) if op == "==" else (t, f)
            self.test(c, v, yes, no, pointer=True, mark=mark, shown_inverted=op == "==")
            return True
        return False

    def null_guard(self, c, f: int) -> None:
        """A predicate false where its first argument, a local, is NULL (the conventions'
        `false_if_null`: GLib's `g_error_matches (error, domain, code)`, documented so): that
        local's NULL edge goes to f, and the call is tested on its other edge only."""
        args = arguments(c)
        if not args or not self.b.conv.matches("false_if_null", self.b.callee_of(c)[1] or ""):
            return
        first = strip(args[0])
        v = self.b.var(referenced(first)) if kind_of(first) == K.DECL_REF_EXPR else None
        if v is None or not has_pointer_type(first):
            return
        rest = self.b.node("block")
        self.test(first, v, rest, f, pointer=True, mark=len(self.b.pending_temps))
        self.b.cur = rest

    def statement_prefix(self, c) -> bool:
        """Lower a statement expression's statements but its last expression; False (nothing
        lowered) when it does not end in an expression."""
        body = next(iter(children_of(c)), None)
        stmts = list(children_of(body)) if body is not None else []
        if not stmts or not is_expression(stmts[-1]):
            return False
        for s in stmts[:-1]:
            self.b.stmt(s)
        return True

    def test(self, c, v, t: int, f: int, pointer: bool, fact=None, mark: int = 0,
             shown_inverted: bool = False) -> None:
        loc = location(c)
        text = expr_text(c)
        if pointer and v not in (None, NULL):
            cond = ir.NullTest(v)
        elif isinstance(fact, ir.SameObject):
            cond = fact
        elif fact is not None:
            cond = fact
        else:
            cond = ir.Opaque(text)
        n = self.b.node("branch", loc, cond=cond, text=text)
        self.b.start(n)
        # Temporaries of the condition die once it is tested (on both edges).
        self.b.data[n].post = [ir.Kill(loc, x) for x in self.b.pending_temps[mark:]]
        del self.b.pending_temps[mark:]
        self.b.edge(n, t, True)
        self.b.edge(n, f, False)
        # The node tests a == b for the source's a != b, or x non-NULL for the source's x == NULL:
        # notes quote the source, so they name the source's branch.
        if shown_inverted:
            self.b.g[n][t]["shown"] = False
            self.b.g[n][f]["shown"] = True
        self.b.cur = None


# Branch-prediction hints: the value is the first argument (GCC's manual).
EXPECT_BUILTINS = frozenset({"__builtin_expect", "__builtin_expect_with_probability"})


def child_arm(b, cond) -> bool | None:
    """True when an if's then arm runs only in a throwaway child process (the condition is
    a `child_process` call: g_test_subprocess()), False for its else arm (`!call`)."""
    c, arm = strip(cond), True
    while True:
        k = kind_of(c)
        if k == K.CALL_EXPR and b.callee_of(c)[1] in EXPECT_BUILTINS and arguments(c):
            c = strip(arguments(c)[0])
        elif k == K.UNARY_OPERATOR and unop(c) == "!":
            c, arm = strip(next(iter(children_of(c)))), not arm
        elif k == K.CALL_EXPR and b.conv.matches("child_process", b.callee_of(c)[1] or ""):
            return arm
        else:
            return None


def last_statement(c):
    """A statement expression's last statement (its value)."""
    return list(children_of(next(iter(children_of(c)))))[-1]


def pure_call_against_zero(lhs, rhs, b: GraphBuilder):
    """The call of `call == 0` / `0 != call` (FALSE, 0) where the callee is pure by the
    conventions (a string comparison, G_IS_*), or the comparison of `(a == b) == 0` (GLib 2.74's
    g_str_equal macro is `strcmp (a, b) == 0`): tested as that expression itself. Else None."""
    for x, y in ((lhs, rhs), (rhs, lhs)):
        e = strip(x)
        if kind_of(e) == K.CALL_EXPR and is_null_constant(y) and \
                b.conv.matches("error_indicator", b.callee_of(e)[1] or ""):
            return e  # `PyErr_Occurred () != NULL`: the indicator's own test (frontend.indicator)
        if converted_constant(y) != 0:
            continue
        if kind_of(e) == K.BINARY_OPERATOR and binop(e) in _TRUTH_VALUED:
            return e  # a comparison is 0 or 1: `(strcmp (a, b) == 0) == FALSE` is its negation
        if kind_of(e) == K.CALL_EXPR and not has_pointer_type(e) and b.conv.matches("pure", b.callee_of(e)[1] or ""):
            return e
    return None


_TRUTH_VALUED = frozenset(("==", "!=", "<", ">", "<=", ">=", "&&", "||"))


def variable_address(c) -> bool:
    """The address of a named variable: an array variable (`mappings_stack`, decayed) or `&x`.
    A variable's storage is no heap block: a fresh allocation never compares equal to it (gom's
    `if (mappings != mappings_stack) g_free (mappings);`)."""
    x = strip(c)
    if kind_of(x) == K.UNARY_OPERATOR and unop(x) == "&":
        x = strip(next(iter(children_of(x)), x))
        array = False
    else:
        array = True
    if kind_of(x) != K.DECL_REF_EXPR:
        return False
    ref = referenced(x)
    if ref is None or kind_of(ref) != K.VAR_DECL:
        return False
    return not array or ref.type.get_canonical().kind in _ARRAYS


_ARRAYS = (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY)


def is_null_constant(c) -> bool:
    c = strip(c)
    if kind_of(c) in NULL_KINDS:
        return True
    if kind_of(c) == K.INTEGER_LITERAL:
        return constant(c) == 0
    return False


SIDE_EFFECT_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="}


FLIP = {"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}


def simple_condition(c, b: GraphBuilder):
    """(var, op, k) for `v`, `v OP k` or `k OP v` over an integer local and a constant, or a string
    equality of a local against a literal (`frontend.strequal`)."""
    c = strip(c)
    if kind_of(c) == K.DECL_REF_EXPR:
        v = b.var(referenced(c))
        return (v, "!=", 0) if v is not None else None
    if kind_of(c) == K.CALL_EXPR:  # `strcmp (v, "lit")`: v's text against a literal
        return string_equality(c, b)
    if kind_of(c) == K.BINARY_OPERATOR and binop(c) in FLIP:
        op = binop(c)
        operands = list(children_of(c))
        if len(operands) != 2:
            return None
        for x, k_expr, o in ((operands[0], operands[1], op), (operands[1], operands[0], FLIP[op])):
            a = strip(x)
            if kind_of(a) == K.DECL_REF_EXPR:
                v = b.var(referenced(a))
                # Both sides as the comparison sees them, converted to one type (`k == -1` with
                # k unsigned compares 4294967295): a variable's value is held in its own type.
                k = converted_constant(k_expr)
                if v is not None and k is not None and not has_pointer_type(a) and compared_as_held(x, a):
                    return (v, o, k)
    return None


def call_comparison(c):
    """(call, op, k) for `f(...) OP k` or `k OP f(...)` with k an integer constant."""
    if kind_of(c) != K.BINARY_OPERATOR or binop(c) not in FLIP:
        return None
    operands = list(children_of(c))
    if len(operands) != 2:
        return None
    op = binop(c)
    for x, k_expr, o in ((operands[0], operands[1], op), (operands[1], operands[0], FLIP[op])):
        call = strip(x)
        k = converted_constant(k_expr) if kind_of(call) == K.CALL_EXPR else None
        if k is not None:
            return call, o, k
    return None


def has_side_effects(c) -> bool:
    stack = [c]
    while stack:
        x = stack.pop()
        k = kind_of(x)
        if k in (K.CALL_EXPR, K.CXX_NEW_EXPR, K.CXX_DELETE_EXPR, STMT_EXPR):
            return True
        if k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and binop(x) in SIDE_EFFECT_OPS:
            return True
        if k == K.UNARY_OPERATOR and unop(x) in ("++", "--", "post++", "post--"):
            return True
        stack.extend(children_of(x))
    return False


def key_of(b: GraphBuilder, c):
    """fact_key, once per cursor (loads of a->b->c ask for a->b's key again)."""
    h = cursor_key(c)
    if h not in b.keys:
        b.keys[h] = fact_key(c, b)
    return b.keys[h]


def fact_key(c, b: GraphBuilder):
    """(normalized text, variables) of a side-effect-free condition, or None."""
    found = _subkey(c, b)
    return None if found is None else (found[0], set(found[1]))


_NO_VARS: frozenset = frozenset()


def _subkey(x, b: GraphBuilder):
    """fact_key of a subexpression as (text, frozenset of variables), or None; kept per cursor in
    `b.subkeys`, since the key of `a->b->c` holds the key of `a->b`, and a condition's key those of
    the loads in it (fact_key made 340k strip calls over 94k keys of THTensor.c, walking each
    subtree again). The text is the pre-order tokens joined by spaces, so a node's text is its own
    tokens followed by its children's texts; the variables are asked for (`b.var`, which names a
    local when first asked) in the same pre-order, stopping at the same first failure."""
    x = strip(x)
    h = cursor_key(x)
    memo = b.subkeys
    if h in memo:
        return memo[h]
    found = memo[h] = _subkey_of(x, b)
    return found


def _subkey_of(x, b: GraphBuilder):
    k = kind_of(x)
    if k == K.DECL_REF_EXPR:
        ref = referenced(x)
        v = b.var(ref)
        if v is not None:
            return v, frozenset((v,))
        if ref is not None and kind_of(ref) == K.ENUM_CONSTANT_DECL:
            return str(ref.enum_value), _NO_VARS
        if ref is not None and kind_of(ref) == K.VAR_DECL:
            return f"global:{spelling(x)}", _NO_VARS
        if ref is not None and kind_of(ref) in FUNCTION_KINDS:
            return f"fn:{spelling(x)}", _NO_VARS
        return None
    if k == K.CALL_EXPR:
        _, name = b.callee_of(x)
        # The error indicator's test is keyed too: an owned result's non-NULL edge decides it
        # (frontend.indicator).
        if not b.conv.matches("pure", name) and not b.conv.matches("error_indicator", name or ""):
            return None
        head = f"call:{name}("
    elif k == K.BINARY_OPERATOR:
        op = binop(x)
        if op in SIDE_EFFECT_OPS:
            return None
        if op == ",":
            # The value of `(a, b)` is b's: `_PyTuple_CAST (op)` is `(assert (...), (T *) (op))`
            # without NDEBUG, and its load is the same as with it (the lowering runs a first).
            return _subkey(children_of(x)[-1], b)
        head = f"({op}"
    elif k == K.COMPOUND_ASSIGNMENT_OPERATOR:
        return None
    elif k == K.UNARY_OPERATOR:
        op = unop(x)
        if op == "&":
            name = singleton_address(x, b)
            return (ir.SINGLETON_KEY + name, _NO_VARS) if name else None
        if op in ("++", "--", "post++", "post--"):
            return None
        head = f"({op}"
    elif k == K.MEMBER_REF_EXPR:
        head = f".{spelling(x)}("
    elif k == K.ARRAY_SUBSCRIPT_EXPR:
        head = "["
    elif k in (K.INTEGER_LITERAL, K.CHARACTER_LITERAL, K.CXX_BOOL_LITERAL_EXPR):
        return f"#{constant(x)}", _NO_VARS
    elif k in NULL_KINDS:
        return "#0", _NO_VARS
    elif k == K.STRING_LITERAL:
        # A constant like a number (`g_str_equal (field, "genre")` tested twice is one fact).
        return f"str:{spelling(x)}", _NO_VARS
    elif k == K.FLOATING_LITERAL:
        return None
    elif k == K.CONDITIONAL_OPERATOR:
        head = "(?"
    else:
        return None
    kids = children_of(x)
    parts = [head, str(len(kids))]
    vars_ = _NO_VARS
    memo = b.subkeys
    for child in kids:
        # _subkey inlined: one frame per level of the expression, as deep as the lowering's own.
        if child._kind_id in STRIPPED:
            child = strip(child)
        h = cursor_key(child)
        if h in memo:
            found = memo[h]
        else:
            found = memo[h] = _subkey_of(child, b)
        if found is None:
            return None
        parts.append(found[0])
        if found[1]:
            vars_ = vars_ | found[1] if vars_ else found[1]
    return " ".join(parts), vars_


def singleton_identity(c, b: GraphBuilder) -> tuple | None:
    """(var, the singleton's load key, the edge on which they are equal) for `v == Py_False` or
    `v != Py_None` with v a local pointer: on that edge v holds the singleton itself, so a later
    `Py_DECREF(Py_False)` releases v's reference (mrab-regex's splitter_split)."""
    if kind_of(c) != K.BINARY_OPERATOR or binop(c) not in ("==", "!="):
        return None
    operands = [strip(x) for x in children_of(c)]
    if len(operands) != 2:
        return None
    for x, y in (operands, operands[::-1]):
        name = singleton_address(y, b)
        v = b.var(referenced(x)) if kind_of(x) == K.DECL_REF_EXPR and has_pointer_type(x) else None
        if name and v is not None:
            return v, ir.SINGLETON_KEY + name, binop(c) == "=="
    return None


def singleton_address(c, b: GraphBuilder) -> str | None:
    """The global's name when `c` is the address of one of the conventions' singletons
    (`&_Py_NoneStruct`, which Py_None is): one object the whole run, never a fresh one."""
    c = strip(c)
    if kind_of(c) != K.UNARY_OPERATOR or unop(c) != "&":
        return None
    inner = next(iter(children_of(c)), None)
    inner = strip(inner) if inner is not None else None
    if inner is None or kind_of(inner) != K.DECL_REF_EXPR:
        return None
    ref = referenced(inner)
    if ref is None or kind_of(ref) != K.VAR_DECL or b.var(ref) is not None:
        return None
    if b.conv.matches("singletons", ref.spelling) or static_object(ref, b):
        return ref.spelling
    return None



def expr_vars(c, b: GraphBuilder) -> set[str]:
    """The local variables an expression mentions."""
    out: set[str] = set()
    stack = [c]
    while stack:
        x = stack.pop()
        if kind_of(x) == K.DECL_REF_EXPR:
            v = b.var(referenced(x))
            if v is not None:
                out.add(v)
        stack.extend(children_of(x))
    return out
