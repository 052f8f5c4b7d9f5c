"""The casts and `sizeof(type)`s of a printed definition whose value no constant evaluation of its
graph build can see, so that an instance key (instances.py) may erase their arithmetic types.

Where the build evaluates. `clangutil.constant` (clang_Cursor_Evaluate) is called on integer
literals and on these roots only: a condition after `strip` (of an if, a loop, a `?:`, an `&&` or
`||` in an expression, an error check's argument), and within one each operand of `!`, `&&`, `||`
and the right side of `,` (conditions.branch); the two operands of a condition's top comparison
(simple_condition), each also whole, its casts and its conversion to the comparison's type
included (clangutil.converted_constant); the right side of an assignment to a local and a local's
initializer, after strip and whole, its conversion to the local's type included
(expressions.assign_local; sizes.py's loop start and the arms of `n = (t->nDimension ? 1 : 0)`,
after strip only); a case label. Below a root the build descends only through `strip`
(parentheses, casts) and, in a condition, `!`, `&&`, `||` and `,`: no operand of `* / % + - << >>`
is a root, nor is anything in one that only unary operators, casts and parentheses separate from
it. (What a conversion to a local's or a comparison's type changes is converted.py's to keep.)

What clang folds (clang 18, as tests/test_instances.py checks). It folds an expression from the
values of the parts it evaluates, reading no variable that is not const (a const local with a
constant initializer it reads, in C too: `const int k = 300; (unsigned char)k` is 44) and no
parameter, calling no function but builtins: a library one from its arguments' values
(`strlen("abc")` is 3), a `__builtin_` one maybe without them (`__builtin_object_size(p, 0)`). An
array, or a struct's array field, used as a value is an address it needs no read for
(`(_Bool)s.a` is 1). It skips the arm of a `?:` not chosen, the right side of a decided `&&` or
`||` and the left side of `,`; of those only the `?:` arm's type reaches the result, as the arms'
common type (`1 ? -1 : (unsigned)n` is 4294967295, with `(int)n` -1).

So an operand is *unknown* (no expression that needs its value is folded) when it is
- a parameter, or a local variable of arithmetic or pointer type not declared const, followed by
  any of `[i]`, `->f`, `(args)`, `++`, `--` (and `.f` after those). Locals are known by their
  declarations in the text, the printer's `specifiers declarator = init, declarator;` at a
  statement's start; a body with a declaration this cannot read, that declares an enum or a
  typedef, or with a statement expression (whose locals are created within an evaluation), has
  no unknown local;
- a call of a file-scope function, not a `__builtin_` one, with an unknown argument;
- an unknown operand under `- + ! ~ *` or a cast, or indexed by one (`a[i]`);
- a parenthesized expression whose operators are all of `* / % + - << >> < > <= >= == != & ^ |`
  (each needs both operands), one of whose operands is unknown.

In a chain of operands joined by `* / % + - << >>`, one of them unknown, a cast or `sizeof(type)`
at the top of an operand is thus in no root but ones holding the whole chain, whose value needs the
unknown one; and a cast of an unknown operand needs it wherever it is evaluated. Neither reaches a
folded value: its type is erased, but for a cast in the arm of a `?:`, whose type would reach the
`?:`'s (a sizeof is a size_t whatever it measures).
"""

from __future__ import annotations

from refcheck.frontend import native
from refcheck.reuse.ctokens import ARITHMETIC, QUALIFIERS, SPECIFIERS

_PAIR = {"(": ")", "[": "]", "{": "}"}
_OPEN = frozenset(_PAIR)
_CLOSE = frozenset(_PAIR.values())
_MARKS = _OPEN | _CLOSE | {";", ":"}
_CHAIN = frozenset({"*", "/", "%", "+", "-", "<<", ">>"})
_BOTH = _CHAIN | {"<", ">", "<=", ">=", "==", "!=", "&", "^", "|"}  # binary operators needing both sides
_BINARY = _BOTH | {"&&", "||"}
ASSIGNMENTS = frozenset({"=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|="})
_ENDS = frozenset({")", "]", "}", ";", ",", "?", ":"}) | ASSIGNMENTS  # what may follow a whole expression
_NEEDS = frozenset({"-", "+", "!", "~", "*"})  # unary operators needing their operand's value
_CONTROL = frozenset({"if", "while", "for", "switch"})
_BUILTIN = ("__builtin", "__sync", "__atomic", "__c11")  # may fold without an argument's value
_QUALIFIERS = QUALIFIERS
_WRAPPERS = frozenset({"__attribute__", "__attribute", "_Alignas", "__declspec", "asm", "__asm", "__asm__"})
_SPECIFIERS = QUALIFIERS | SPECIFIERS
_ARITHMETIC = ARITHMETIC
_OTHER_TYPES = frozenset({"void", "struct", "union", "_Complex", "__complex__", "_Float16", "__fp16", "__bf16",
                          "_Float32", "_Float64", "_Float128", "__float128", "__ibm128", "_BitInt", "_Decimal32",
                          "_Decimal64", "_Decimal128"})
# A body spelling one of these has no unknown local: a local enum constant or typedef name reads as
# a variable, an inferred type is none this reads, a pragma line hides where statements start.
_NO_LOCALS = frozenset({"enum", "typedef", "constexpr", "auto", "__auto_type", "#", "typeof", "__typeof__",
                        "__typeof", "typeof_unqual", "_Generic"})
_DECLARES = _SPECIFIERS | _ARITHMETIC | _OTHER_TYPES | _WRAPPERS  # words a declaration may start with
KEYWORDS = _SPECIFIERS | _ARITHMETIC | _OTHER_TYPES | _NO_LOCALS | _WRAPPERS | {
    "if", "else", "for", "while", "do", "switch", "case", "default", "return", "goto", "break", "continue",
    "sizeof", "_Alignof", "alignof", "__alignof", "__alignof__", "_Static_assert", "static_assert", "__label__",
    "__real", "__real__", "__imag", "__imag__", "true", "false", "nullptr", "bool"}


def erasable(tokens: list[str], start: int, groups: set[int], candidates: list[int], names, type_names,
             params, scalar_typedef) -> set[int]:
    """Which of `candidates` (the `(` of type groups `( type )` in `tokens`, after `start`, the
    body's `{`) are casts or sizeofs no constant evaluation sees. `groups`: the `(` of every type
    group; `names`: the file-scope names, `type_names` those that name types; `params`: the
    parameters' names; `scalar_typedef(name)`: whether a typedef names a non-const arithmetic or
    pointer type."""
    body = _Body(tokens, start, groups, names, type_names, params, scalar_typedef)
    if body.match is None:
        return set()
    out = set()
    try:
        for o in candidates:
            first = o - 1 if tokens[o - 1] == "sizeof" else o
            body.region(body.region_start(first))
            if o in body.erased and (first != o or not body.in_arm(o)):
                out.add(o)
    except RecursionError:  # an expression nested deeper than Python recurses: keep every type
        return set()
    return out


def body_marks(tokens: list[str], start: int) -> tuple[dict | None, list[int], bool]:
    """From the body's `{` at `start`: each bracket's partner (both ways; None where the brackets
    do not pair), the indices where a statement may start (after ; { } : and `for (`), and whether
    a statement expression `({` is in it (whose locals clang could fold from their initializers)."""
    tok = tokens + ["\x00"]  # tok[-1] is the sentinel
    match: dict | None = {}
    stack: list[int] = []
    starts: list[int] = []
    inner = False
    for i in [i for i in range(start, len(tokens)) if tok[i] in _MARKS]:  # (a third of the tokens)
        t = tok[i]
        if t in _OPEN:
            stack.append(i)
            if t == "{" or (t == "(" and tok[i - 1] == "for"):
                starts.append(i + 1)
                inner = inner or tok[i - 1] == "("
        elif t in _CLOSE:
            if not stack or _PAIR[tok[stack[-1]]] != t:
                return None, starts, inner
            o = stack.pop()
            match[o], match[i] = i, o
            if t == "}":
                starts.append(i + 1)
        else:
            starts.append(i + 1)
    return (match if not stack else None), starts, inner


class _Body:
    def __init__(self, tokens, start, groups, names, type_names, params, scalar_typedef):
        self.tok = tok = tokens + ["\x00"]  # a sentinel no rule accepts
        self.start = start
        self.groups = groups
        self.names = names
        self.type_names = type_names
        self.erased: set[int] = set()
        self.regions: dict = {}
        self.match, starts, inner = body_marks(tokens, start)
        self.unknown_locals = self._locals(starts, params, scalar_typedef) if self.match is not None and not inner \
            else set()

    # -- expressions ---------------------------------------------------------------------------
    def region(self, i: int):
        """(end, unknown, direct groups) of the expression from i to the first token after it that
        is no binary operator, or None when it is not one the rules read. Marks the groups of each
        chain with an unknown operand as erased."""
        if i in self.regions:
            return self.regions[i]
        tok = self.tok
        operands, ops = [], []
        j = i
        while True:
            r = self._operand(j)
            if r is None:
                break
            operands.append(r)
            j = r[0]
            if tok[j] not in _BINARY:
                break
            ops.append(tok[j])
            j += 1
        got = None
        if r is not None and tok[j] in _ENDS:
            first = 0
            for k in range(len(operands)):
                if k == len(ops) or ops[k] not in _CHAIN:
                    chain = operands[first:k + 1]
                    if any(o[1] for o in chain):
                        for o in chain:
                            self.erased.update(o[2])
                    first = k + 1
            unknown = all(op in _BOTH for op in ops) and any(o[1] for o in operands)
            got = (j, unknown, () if ops else operands[0][2])
        self.regions[i] = got
        return got

    def _operand(self, i: int):
        """(end, unknown, direct groups) of the unary expression at i, or None."""
        tok, match = self.tok, self.match
        t = tok[i]
        if t in _NEEDS:
            return self._operand(i + 1)
        if t in ("&", "++", "--"):
            r = self._operand(i + 1)
            return None if r is None else (r[0], False, ())
        if t == "sizeof":
            o = i + 1
            if o in self.groups and tok[match[o] + 1] != "{":
                return match[o] + 1, False, (o,)
            return None
        if t == "(":
            close = match[i]
            if i in self.groups:
                after = close + 1
                if tok[after] == "{":  # a compound literal
                    return self._postfix(match[after] + 1, False, False) + ((),)
                r = self._operand(after)
                return None if r is None else (r[0], r[1], (i,) + r[2])
            r = self.region(i + 1)
            unknown, direct = (r[1], r[2]) if r is not None and r[0] == close else (False, ())
            end, unknown = self._postfix(close + 1, unknown, False)
            return end, unknown, direct if end == close + 1 else ()
        c = t[0]
        if c.isalpha() or c == "_":
            if t in KEYWORDS:
                return None
            if t in self.names:
                if tok[i + 1] == "(":  # a call: unknown when an argument is
                    close = match[i + 1]
                    unknown = not t.startswith(_BUILTIN) and self._arguments(i + 2, close)
                    return self._postfix(close + 1, unknown, False) + ((),)
                return self._postfix(i + 1, False, False) + ((),)
            if tok[i + 1] == "(":  # a builtin, or an undeclared function: not counted
                return self._postfix(match[i + 1] + 1, False, False) + ((),)
            return self._postfix(i + 1, t in self.unknown_locals, True) + ((),)
        if c.isdigit() or c in "'\"" or (c == "." and t[1:2].isdigit()):
            j = i + 1
            while c == '"' and tok[j][0] == '"':
                j += 1
            return self._postfix(j, False, False) + ((),)
        return None

    def _postfix(self, j: int, unknown: bool, variable: bool) -> tuple:
        tok = self.tok
        first = True
        while True:
            t = tok[j]
            if t == "[":
                close = self.match[j]
                r = self.region(j + 1)
                unknown = unknown or (r is not None and r[0] == close and r[1])
                j = close + 1
            elif t == "(":
                j = self.match[j] + 1
            elif t == "->" or t == ".":
                if t == "." and first and variable:
                    unknown = False  # a struct's field, maybe an array's address: no read
                j += 2
            elif t == "++" or t == "--":
                j += 1
            else:
                return j, unknown
            first = False

    def _arguments(self, j: int, close: int) -> bool:
        unknown = False
        while j < close:
            r = self.region(j)
            if r is None or self.tok[r[0]] not in (",", ")"):
                return False
            unknown = unknown or r[1]
            j = r[0] + 1
        return unknown

    def region_start(self, s: int) -> int:
        """Where the expression that holds the token at s starts: after the nearest bracket,
        separator or operator below the chain operators' precedence."""
        tok, match = self.tok, self.match
        j = s - 1
        while j > self.start:
            t = tok[j]
            if t in _CLOSE:
                o = match[j]
                if t == ")" and tok[o - 1] in _CONTROL:
                    break  # if (...) <statement>
                if t == "}" and not (tok[o - 1] == ")" and match[o - 1] in self.groups):
                    break  # a block's end, not a compound literal's
                j = o - 1
                continue
            if t in _OPEN or t in _ENDS or (t in KEYWORDS and t != "sizeof"):
                break
            j -= 1
        return j + 1

    def in_arm(self, o: int) -> bool:
        """Whether the token at o may lie in an arm of a `?:` (`in_arm`)."""
        return in_arm(self.tok, self.match, self.start, o)

    # -- locals --------------------------------------------------------------------------------
    def _locals(self, starts: list[int], params, scalar_typedef) -> set[str]:
        tok = self.tok
        if not _NO_LOCALS.isdisjoint(tok):
            return set()
        good: set[str] = set()
        bad: set[str] = set()
        later = []
        type_names, names = self.type_names, self.names
        for p in starts:
            t = tok[p]
            if t in _DECLARES or t in type_names:
                if not self._declaration(p, good, bad, scalar_typedef):
                    return set()
            elif t not in KEYWORDS and t not in names and (t[0].isalpha() or t[0] == "_"):
                later.append(p)
        for p in later:  # an unknown word first: a type (`__builtin_va_list ap;`) or a variable
            t, after = tok[p], tok[p + 1]
            if t in params or t in good or t in bad or after == ":" or (after == "(" and t.startswith(_BUILTIN)):
                continue
            if after == "*" or ((after[0].isalpha() or after[0] == "_") and after not in KEYWORDS):
                if not self._declaration(p, good, bad, scalar_typedef, unknown_type=True):
                    return set()
            elif after == "(":
                return set()
        return (good | set(params)) - bad

    def _declaration(self, i: int, good: set, bad: set, scalar_typedef, unknown_type: bool = False) -> bool:
        """Reads the declaration at i into `good` (non-const arithmetic or pointer objects) and
        `bad` (any other name declared); False when it is not one this reads."""
        tok, match = self.tok, self.match
        const = False
        base = "other" if unknown_type else None  # "arithmetic", "other", or a typedef's name
        if unknown_type:
            i += 1
        while True:
            t = tok[i]
            if t in _WRAPPERS or t == "_BitInt" or (t == "_Atomic" and tok[i + 1] == "("):
                if tok[i + 1] != "(":
                    return False
                base = base or ("other" if t in ("_BitInt", "_Atomic") else None)
                i = match[i + 1] + 1
            elif t in ("struct", "union"):
                if tok[i + 1] == "{" or tok[i + 2] == "{":
                    return False
                base, i = "other", i + 2
            elif t in _SPECIFIERS:
                const = const or t == "const"
                i += 1
            elif t in _ARITHMETIC:
                base, i = "arithmetic", i + 1
            elif t in _OTHER_TYPES:
                base, i = "other", i + 1
            elif base is None and t in self.type_names:
                base, i = t, i + 1
            else:
                break
        if base is None:
            return False
        while True:
            stars, last_const = 0, False
            while tok[i] == "*" or tok[i] in _QUALIFIERS or tok[i] in _WRAPPERS:
                if tok[i] in _WRAPPERS:
                    if tok[i + 1] != "(":
                        return False
                    i = match[i + 1]
                elif tok[i] == "*":
                    stars, last_const = stars + 1, False
                else:
                    last_const = last_const or tok[i] == "const"
                i += 1
            if tok[i] == "(":  # (*f)(...), (*a)[n]: not read
                inner = [x for x in tok[i + 1:match[i]] if (x[0].isalpha() or x[0] == "_") and x not in KEYWORDS]
                if not inner:
                    return False
                bad.add(inner[0])
                i = match[i] + 1
            else:
                name = tok[i]
                if not (name[0].isalpha() or name[0] == "_") or name in KEYWORDS:
                    return False
                i += 1
                while tok[i] in _WRAPPERS and tok[i + 1] == "(":
                    i = match[i + 1] + 1
                if tok[i] in ("[", "("):
                    bad.add(name)
                elif stars:
                    (bad if last_const else good).add(name)
                elif not const and (base == "arithmetic" or (base != "other" and scalar_typedef(base))):
                    good.add(name)
                else:
                    bad.add(name)
            while tok[i] not in (",", ";"):  # the rest of the declarator, its initializer
                if tok[i] in _CLOSE or tok[i] == "\x00":
                    return False
                i = match[i] + 1 if tok[i] in _OPEN else i + 1
            if tok[i] == ";":
                return True
            i += 1


def in_arm(tok: list[str], match: dict, start: int, o: int) -> bool:
    """Whether the token at o may lie in an arm of a `?:`: after a `?` in its statement, or in an
    enclosing bracket's (a statement expression's value is its last statement's). `match`: each
    bracket's partner after the body's `{` at `start` (`body_marks`)."""
    j = o - 1
    skipping = False  # past a `;`: the rest of this bracket is earlier statements
    while j > start:
        t = tok[j]
        if t in _CLOSE:
            j = match[j] - 1
            continue
        if t in _OPEN:
            skipping = False
        elif not skipping:
            if t == "?":
                return True
            if t == ";":
                skipping = True
        j -= 1
    return False


# The compiled twins (refcheck/frontend/_ckeys.c, where native.py chose the module): `body_marks`,
# the same scan, two thirds of a body's `_Body` before any rule reads it; `in_arm`, a backward scan
# per candidate cast. The definitions above stay the fallback and the oracle (tests/test_native.py).
PURE = {"body_marks": body_marks, "in_arm": in_arm}
if native.CHOICE.module is not None:
    body_marks = native.CHOICE.module.body_marks  # noqa: F811
    in_arm = native.CHOICE.module.in_arm  # noqa: F811
