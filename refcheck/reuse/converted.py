"""The locals of a printed definition whose declared type a constant of its graph build is
converted to, so that an instance key (instances.py) keeps those types where it erases others.

The build records the integer a local receives from a constant as the local holds it, in its own
type (`unsigned char k = 300;` holds 44, `_Bool b = 2;` holds 1: clangutil.converted_constant),
and decides a comparison of a local with a constant in the type the comparison converts both to
(`u == -1` with u unsigned compares 4294967295; a local the comparison converts other than by
promotion is not decided: clangutil.compared_as_held). A case label is converted to the switch
condition's promoted type. Two instantiations whose locals differ only in an arithmetic type (the
key's erasure) thus build the same graph unless such a constant is one some erased type does not
hold unchanged. What every one holds (the key erases every arithmetic type but `_Bool`, which
holds 0 and 1 only): 0 to 127 as a value received; a non-negative integer up to 2^24 as a value
compared with (every integer type of rank `int` or more holds it, and a `float` exactly; narrower
types are promoted, not converted).

So the declared type of a local is kept when the local is assigned or initialized with an
expression that may fold to an integer constant other than a lone one from 0 to 127, or is
compared (`== != < > <= >=`) with an expression that may fold to one other than a lone literal
from 0 to 2^24, or is named in the condition of a switch that has a case label that may fold to
anything but such a literal. (A comparison through a cast of the local, which the build strips,
is never decided: the cast's type may be erased.) Read on tokens, as the key is:

- a *lone literal* is one integer literal without a suffix (decimal, octal or hexadecimal), or an
  enum constant of a known value, between balanced parentheses or none;
- an expression *may fold* unless it reads a local, a parameter or a field outside the parts
  clang may skip: the left side of a comma, the arms of a `?:` whose condition may fold, what
  follows an `&&` or `||` whose first operand may fold, a sizeof's operand; a `__builtin_` call
  may fold whatever its arguments (a const local that is no pointer is the instance key's own
  exclusion: such a body keeps every type); a lone floating literal folds to no integer;
- a local's *declared type* is the run of type words before a declarator that is no pointer,
  in a declaration whose type has an arithmetic word (`long x`, `unsigned char a = 0, b`): a
  typedef's name is no erased type, and a pointer holds no integer constant.

Marking more than needed only keeps types that are the same in every instantiation, or costs a
shared build; `benchmarks/instances_check.py` builds every definition of torch7's lib/TH and
compares the graphs of each key's group.
"""

from __future__ import annotations

import re
from itertools import compress, count

from refcheck.reuse.unevaluated import ASSIGNMENTS
from refcheck.reuse.ctokens import QUALIFIERS, SPECIFIERS

_LITERAL = re.compile(r"(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")
_FLOATING = re.compile(r"(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fFlL]?|\d+[eE][+-]?\d+[fFlL]?"
                       r"|0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*[pP][+-]?\d+[fFlL]?")
_COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">="})
_OPERATORS = _COMPARISONS | {"="}
_SKIPPING = frozenset({",", "?", "||", "&&"})  # operators past which clang may fold
# Where an operand of a comparison ends, reading away from the operator (what binds less tightly),
# and where the right side of an assignment does.
_ENDS_AFTER = frozenset({")", "]", "}", ";", ",", "?", ":", "&&", "||", "&", "^", "|"}) | _COMPARISONS | ASSIGNMENTS
_ASSIGNED_ENDS = frozenset({")", "]", "}", ";", ","})
_ENDS_BEFORE = frozenset({"(", "[", "{", "}", ";", ",", "?", ":", "&&", "||", "!", "return", "case"}) \
    | _COMPARISONS | ASSIGNMENTS
_QUALIFIERS = QUALIFIERS
_SPECIFIERS = SPECIFIERS
# Every arithmetic type the key erases holds these received, and every one these compared (see
# the module docstring).
ASSIGNED_SAFE = (0, 127)
COMPARED_SAFE = (0, 1 << 24)


class Reader:
    """`names`: the file-scope names (a dict or set); `keywords`: words that are no variable;
    `arithmetic`: the words of the arithmetic types the key erases; `type_like(word)`: whether a
    word may be part of a type's spelling; `enum_value(name)`: an enum constant's value, or None."""

    def __init__(self, names, keywords, arithmetic, type_like, enum_value) -> None:
        self.names = names
        self.keywords = keywords
        self.arithmetic = arithmetic
        self.type_like = type_like
        self.enum_value = enum_value

    def kept_types(self, tokens: list[str]) -> list[tuple[int, int]]:
        """Token ranges [i, j) of the declared types to keep."""
        declared = self._arithmetic_declarations(tokens)
        if not declared:
            return []
        typed: set[str] = set()
        n = len(tokens)
        for i in compress(count(), map(_OPERATORS.__contains__, tokens)):
            if tokens[i] == "=":
                # The build strips the left side to the local it names: `x = `, `(x) = `.
                if i > 0 and tokens[i - 1] == ")":
                    name = self._operand_name(tokens[self._start_before(tokens, i - 1):i])[0]
                else:
                    name = tokens[i - 1] if i > 0 and (i < 2 or tokens[i - 2] not in (".", "->")) else None
                if name not in declared or i + 1 < n and self._is_variable_word(tokens[i + 1]):
                    continue  # a right side that starts by reading a variable does not fold
                right = (tokens[i + 1:i + 2] if i + 2 < n and tokens[i + 2] in _ASSIGNED_ENDS
                         else tokens[i + 1:self._end_after(tokens, i + 1, _ASSIGNED_ENDS)])
                if self._operand_may_fold(right, ASSIGNED_SAFE):
                    typed.add(name)
                continue
            # Only an operand that strips to a declared local matters: `x`, `(x)`, `(long)x`.
            j = i - 1
            while j > 0 and tokens[j] == ")":
                j -= 1
            k = i + 1
            while k < n and (tokens[k] in ("(", ")") or self.type_like(tokens[k])):
                k += 1
            left_named = j >= 0 and tokens[j] in declared
            right_named = k < n and tokens[k] in declared
            # A side that reads a variable outside brackets does not fold (`i < n`): the local on
            # the other side is then compared with no constant.
            right_reads = i + 1 < n and self._is_variable_word(tokens[i + 1])
            left_reads = i >= 2 and self._is_variable_word(tokens[i - 1]) and tokens[i - 2] not in (".", "->", "sizeof")
            if (not left_named or right_reads) and (not right_named or left_reads):
                continue
            left = tokens[self._start_before(tokens, i - 1):i]
            right = tokens[i + 1:self._end_after(tokens, i + 1)]
            for one, other in ((left, right), (right, left)):
                # (Through a cast, which the build strips, a comparison is never decided.)
                name, cast = self._operand_name(one)
                if name in declared and not cast and self._operand_may_fold(other, COMPARED_SAFE):
                    typed.add(name)
        typed |= self._switched(tokens) & declared.keys()
        return sorted(r for name in typed for r in declared[name])

    def _arithmetic_declarations(self, tokens: list[str]) -> dict[str, list[tuple[int, int]]]:
        """Name -> the type runs of its declarations with an arithmetic type the key erases, as
        declarators that are no pointer: `long x`, `unsigned char a = 0, b`."""
        out: dict[str, list[tuple[int, int]]] = {}
        n = len(tokens)
        arithmetic = self.arithmetic
        for q in compress(count(), map(arithmetic.__contains__, tokens)):
            end = q + 1
            while end < n and tokens[end] in _QUALIFIERS:
                end += 1
            p = end
            while p < n and tokens[p] in _QUALIFIERS or p < n and tokens[p] == "*":
                p += 1
            if p >= n or not self._is_variable_word(tokens[p]):
                continue  # no declarator named here (a cast, `unsigned char`, `sizeof(long)`)
            start = q
            while start > 0 and (self.type_like(tokens[start - 1]) or tokens[start - 1] in _SPECIFIERS):
                start -= 1
            if p == end:  # a pointer declarator holds no integer constant
                out.setdefault(tokens[p], []).append((start, end))
            # The other declarators of the statement: `long a = 0, b, *c;` (b, not c).
            depth = 0
            k = p + 1
            while k < n:
                t = tokens[k]
                if t in ("(", "[", "{"):
                    depth += 1
                elif t in (")", "]", "}"):
                    depth -= 1
                    if depth < 0:
                        break  # the end of a parameter list
                elif depth == 0 and t == ";":
                    break
                elif depth == 0 and t == "," and k + 2 < n and tokens[k + 2] in ("=", ",", ";", "["):
                    if self._is_variable_word(tokens[k + 1]):
                        out.setdefault(tokens[k + 1], []).append((start, end))
                k += 1
        return out

    def _operand_name(self, operand: list[str]) -> tuple[str | None, bool]:
        """The local or parameter an operand is, as the build strips it (a declaration's type
        words, parentheses and casts dropped), or None; and whether a cast was dropped."""
        i = 0
        while i < len(operand) and (self.type_like(operand[i]) or operand[i] in _SPECIFIERS):
            i += 1  # `long x = ...`, `real *p = ...`
        inner, cast = self._stripped_cast(operand[i:])
        if len(inner) != 1 or not self._is_variable_word(inner[0]):
            return None, cast
        return inner[0], cast

    @staticmethod
    def _closes(operand: list[str], i: int, j: int) -> bool:
        """Whether the `(` at i is closed by the `)` at j."""
        depth = 0
        for k in range(i, j + 1):
            depth += (operand[k] == "(") - (operand[k] == ")")
            if depth == 0:
                return k == j
        return False

    # -- what folds ----------------------------------------------------------------------------
    def _operand_may_fold(self, operand: list[str], safe: tuple[int, int]) -> bool:
        """Whether `operand` may fold to an integer constant some arithmetic type changes."""
        value = self._lone_value(operand)
        if value is not None:
            return not safe[0] <= value <= safe[1]
        return self._may_fold_integer(operand)

    def _may_fold_integer(self, operand: list[str]) -> bool:
        """Whether `operand` may fold to an integer constant (not a lone floating literal, which
        the build, reading integer constants after stripping casts, never reads as one)."""
        inner = self._stripped(operand)
        if len(inner) == 1 and _FLOATING.fullmatch(inner[0]):
            return False
        return self._may_fold(inner)

    def _may_fold(self, operand: list[str]) -> bool:
        """Whether clang may fold `operand` to a constant: it reads no variable, but through the
        parts it may skip (the left side of a comma, the arms of a `?:` whose condition may fold,
        what follows an `&&` or `||` whose first operand may fold, a sizeof's operand)."""
        operand = self._stripped(operand)
        if not operand:
            return False
        for ops in (() if _SKIPPING.isdisjoint(operand) else ((",",), ("?",), ("||", "&&"))):
            at = self._top_level(operand, ops)
            if at:
                if ops == (",",):
                    return self._may_fold(operand[at[-1] + 1:])
                return self._may_fold(operand[:at[0]])
        i, n = 0, len(operand)
        while i < n:
            t = operand[i]
            if t == "sizeof":
                i = self._after_sizeof(operand, i + 1)
                continue
            if t.startswith("__builtin"):
                return True  # may fold without its arguments' values
            if self._is_variable_word(t) and not (i > 0 and operand[i - 1] in (".", "->")):
                return False
            i += 1
        return True

    def _stripped(self, operand: list[str]) -> list[str]:
        """`operand` without the parentheses around it and the casts at its top, as the build
        strips it."""
        return self._stripped_cast(operand)[0]

    def _stripped_cast(self, operand: list[str]) -> tuple[list[str], bool]:
        """`_stripped`, and whether a cast was dropped."""
        i, j = 0, len(operand)
        cast = False
        while j - i >= 3 and operand[i] == "(":
            if operand[j - 1] == ")" and self._closes(operand, i, j - 1):
                i, j = i + 1, j - 1
                continue
            k = i + 1
            while k < j and operand[k] != ")" and self.type_like(operand[k]):
                k += 1
            if k < j and operand[k] == ")" and k > i + 1:
                i = k + 1
                cast = True
                continue
            break
        return operand[i:j], cast

    @staticmethod
    def _top_level(operand: list[str], ops: tuple[str, ...]) -> list[int]:
        """Where `ops` occur outside every bracket of `operand`."""
        out = []
        depth = 0
        for k, t in enumerate(operand):
            if t in ("(", "["):
                depth += 1
            elif t in (")", "]"):
                depth -= 1
            elif depth == 0 and t in ops:
                out.append(k)
        return out

    @staticmethod
    def _after_sizeof(operand: list[str], i: int) -> int:
        """The index after a sizeof's operand, which starts at i."""
        if i < len(operand) and operand[i] == "(":
            depth = 0
            for k in range(i, len(operand)):
                depth += (operand[k] == "(") - (operand[k] == ")")
                if depth == 0:
                    return k + 1
            return len(operand)
        return i + 1

    def _lone_value(self, operand: list[str]) -> int | None:
        while len(operand) >= 3 and operand[0] == "(" and operand[-1] == ")":
            operand = operand[1:-1]
        if len(operand) != 1:
            return None
        t = operand[0]
        if _LITERAL.fullmatch(t):
            return int(t, 16) if t[:2] in ("0x", "0X") else int(t, 8) if len(t) > 1 and t[0] == "0" else int(t)
        if t in self.names:
            return self.enum_value(t)
        return None

    def _is_variable_word(self, t: str) -> bool:
        """A word naming a local, a parameter or a field (not a file-scope name, a keyword, a
        type's word or a builtin)."""
        return (t[:1].isalpha() or t[:1] == "_") and t not in self.names and t not in self.keywords \
            and not self.type_like(t) and not t.startswith("__builtin")

    def _variable(self, tokens: list[str], i: int) -> str | None:
        """The local or parameter `tokens[i]` names, if it is one (not a field after `.`/`->`)."""
        if not 0 <= i < len(tokens) or not self._is_variable_word(tokens[i]):
            return None
        if i > 0 and tokens[i - 1] in (".", "->"):
            return None
        return tokens[i]

    # -- where operands end --------------------------------------------------------------------
    def _end_after(self, tokens: list[str], i: int, ends: frozenset = _ENDS_AFTER) -> int:
        depth = 0
        n = len(tokens)
        while i < n:
            t = tokens[i]
            if t in ("(", "["):
                depth += 1
            elif t in (")", "]"):
                if depth == 0:
                    return i
                depth -= 1
            elif depth == 0 and t in ends:
                return i
            i += 1
        return n

    def _start_before(self, tokens: list[str], i: int) -> int:
        depth = 0
        while i >= 0:
            t = tokens[i]
            if t in (")", "]"):
                depth += 1
            elif t in ("(", "["):
                if depth == 0:
                    return i + 1
                depth -= 1
            elif depth == 0 and t in _ENDS_BEFORE:
                return i + 1
            i -= 1
        return 0

    def _switched(self, tokens: list[str]) -> set[str]:
        """The variables in switch conditions, where a case label may fold to a constant some
        arithmetic type changes."""
        if "switch" not in tokens:
            return set()
        n = len(tokens)
        unsafe = False
        for i, t in enumerate(tokens):
            if t == "case":
                j = i + 1
                depth = 0
                while j < n and not (depth == 0 and tokens[j] == ":"):
                    depth += tokens[j] in ("(", "[") or -(tokens[j] in (")", "]"))
                    j += 1
                if self._operand_may_fold(tokens[i + 1:j], COMPARED_SAFE):
                    unsafe = True
                    break
        if not unsafe:
            return set()
        out: set[str] = set()
        for i, t in enumerate(tokens):
            if t == "switch" and i + 1 < n and tokens[i + 1] == "(":
                end = self._end_after(tokens, i + 2)
                out.update(w for k, w in enumerate(tokens[i + 2:end], i + 2) if self._variable(tokens, k))
        return out
