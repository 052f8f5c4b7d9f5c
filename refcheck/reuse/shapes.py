"""Type names in instance keys by their structure, where the graph cannot tell two of them apart.

TH's generic bodies are printed with one tensor type where another instantiation names two: the
Float instance of `THTensor_(newSizeOf)` holds a THFloatTensor (whose storage is a THFloatStorage)
and returns a THLongStorage, the Long instance holds and returns THLong ones; `ltValue` (a Byte
result, a Float operand) and `ltValueT` (Float both) are printed at one place. Numbered by name,
their keys differ (one name where the other has two), though the graphs are the same. Here a type
name is written as its *shape*: its declarations with every arithmetic type erased (outside
literal contexts, as instances.py does), the type names in them by their shapes in turn (a type
met again on the way, `struct THFloatStorage *view`, by how many levels up it is), and what the
conventions say of the name. Two types of one shape are the same type to the graph build:

- The build asks of a type what its shape says: whether it is a pointer, a scalar, an array, a
  record (and its fields), a union; what its typedef names (callparts.is_boolean's `gboolean`) and
  records (handles: the `context` patterns and the unit's counted types, slots: `object_records`,
  gerrors: `error_out`) are called, as predicates of the one name, which the shape holds.
- It never compares two types: implicit conversions between them (clang's BitCast where the two
  differ, none where they are one) are looked through (`clangutil.strip`), and bodies that ask
  clang to compare or measure types through expressions (`_Generic`, typeof,
  `__builtin_types_compatible_p`, `sizeof` of an expression, ...) keep every name (instances.py).
- A conditional's type is computed from its arms' (`void *` where they point to two types):
  a body with a `?:` whose arms may be typed by name keeps every name (`named_conditional`).
- The one type name the graph holds is an acquirer's record (`ir.Acquire.family`, the pointee of a
  call's result, which the analysis compares with releasers' families): it comes from a function
  type's result. A type name in a result position (followed, past `*` and qualifiers, by `(` or
  by a declarator and `(`) keeps its name and number, and so do the type names its declarations
  write outside braces (what a typedef aliases); a shape that holds one is no shape (the name
  keeps its number). So the names the
  graph holds are the numbered ones, which the renaming pairs one-to-one.
"""

from __future__ import annotations

from refcheck.frontend import native
from refcheck.reuse.ctokens import ERASED as _ERASED
from refcheck.reuse.ctokens import ERASED_TOKEN, QUALIFIERS
_BACK, _OPEN, _CLOSE = "\x05", "\x06", "\x07"


# The words that may stand between a result's type name and its `(` besides `*`.
RESULT_QUALIFIERS = QUALIFIERS


def result_position(tokens: list[str], i: int, qualifiers: frozenset = RESULT_QUALIFIERS) -> bool:
    """Whether the type spelled at tokens[i] is (the start of) a function type's result: `T *(`
    in a function's type, `T *(*f)(` or `T *f(` in a declarator (calls' results are what the
    graph keeps a record name of)."""
    n = len(tokens)
    j = i + 1
    while j < n and (tokens[j] == "*" or tokens[j] in qualifiers):
        j += 1
    if j < n and tokens[j] == "(":
        return True
    return j + 1 < n and (tokens[j][:1].isalpha() or tokens[j][:1] == "_") and tokens[j + 1] == "("


_OPEN_BRACKETS = frozenset({"(", "[", "{"})
_CLOSE_BRACKETS = frozenset({")", "]", "}"})


def named_conditional(tokens: list[str], type_names, names) -> bool:
    """Whether some `?:` of the printed definition has an arm whose type may be written with a
    type name: an arm holding a member access, a call or a cast, a file-scope name (`names`), a
    type name, or a variable declared in a statement or parameter list that writes a type name.
    The type of such a conditional is `void *` where its arms point to two types and one of them
    where they point to one (clang's pointer type mismatch), a difference a shape does not show;
    a body with one keeps its types' names."""
    if "?" not in tokens:
        return False
    words: set[str] = set()  # the arms' variables
    at = -1
    while True:
        try:
            at = tokens.index("?", at + 1)
        except ValueError:
            break
        for arm in _arms(tokens, at):
            for u in arm:
                if u in ("->", ".", "(") or u in type_names or u in names:
                    return True
                if u[:1].isalpha() or u[:1] == "_":
                    words.add(u)
    return bool(words) and not words.isdisjoint(_declared_with_type_names(tokens, type_names))


def _arms(tokens: list[str], q: int) -> tuple[list[str], list[str]]:
    """The two arms of the `?` at tokens[q] (the second up to where its expression must end; a
    conditional nested there is read at its own `?`)."""
    n = len(tokens)
    depth = pending = 0
    j = q + 1
    while j < n:
        t = tokens[j]
        if t in _OPEN_BRACKETS:
            depth += 1
        elif t in _CLOSE_BRACKETS:
            if depth == 0:
                return tokens[q + 1:j], []
            depth -= 1
        elif depth == 0 and t == "?":
            pending += 1
        elif depth == 0 and t == ":":
            if not pending:
                break
            pending -= 1
        j += 1
    k = _stop(tokens, j + 1, (";", ",", ":"))
    return tokens[q + 1:j], tokens[j + 1:k]


def _stop(tokens: list[str], k: int, stops: tuple) -> int:
    """The index of the first token from `k` on that is one of `stops` outside the brackets opened
    after `k`, or that closes a bracket opened before it; len(tokens) if none."""
    depth = 0
    n = len(tokens)
    while k < n:
        t = tokens[k]
        if t in _OPEN_BRACKETS:
            depth += 1
        elif t in _CLOSE_BRACKETS:
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and t in stops:
            break
        k += 1
    return k


def _declared_with_type_names(tokens: list[str], type_names) -> set[str]:
    """The words of every statement or parameter list from a type name that starts a declaration
    (`F *t = ...;`, `(F *a, long b)`) to its end: more than the declared names, never fewer."""
    out: set[str] = set()
    n = len(tokens)
    for i in [i for i, t in enumerate(tokens) if t in type_names]:
        j = i + 1
        while j < n and (tokens[j] == "*" or tokens[j] in QUALIFIERS):
            j += 1
        if j >= n or not (tokens[j][:1].isalpha() or tokens[j][:1] == "_") or tokens[j] in type_names:
            continue  # a cast or a sizeof, not a declaration
        out.update(tokens[j:_stop(tokens, j, (";", "{"))])
    return out


class Shapes:
    """The shapes of one unit's type names: a number per distinct shape, or None where the name
    must keep its own (see the module's docstring)."""

    def __init__(self, type_names: set[str], only_types, declaration, predicates, queries: frozenset) -> None:
        """`only_types(name)`: every file-scope declaration of the name declares a type;
        `declaration(name)`: the tokens of those declarations (instances.Instances._signature);
        `predicates(name)`: what the conventions say of it, as a string; `queries`: words that
        make a type's value depend on more than its spelling (instances._TYPE_QUERIES)."""
        self._types = type_names
        self._only_types = only_types
        self._declaration = declaration
        self._predicates = predicates
        self._queries = queries
        self._numbers: dict[tuple[str, bool], int | None] = {}
        self._texts: dict[tuple[str, bool], str | None] = {}  # shapes that need no enclosing type
        self._ids: dict[str, int] = {}

    def of(self, name: str, literal: bool) -> int | None:
        """The number of `name`'s shape (`literal`: arithmetic types kept, as in a cast or a
        `sizeof`), or None when the name must keep its own number."""
        key = (name, literal)
        got = self._numbers.get(key, -1)
        if got == -1:
            text, _ = self._text(name, literal, [])
            got = self._numbers[key] = None if text is None else self._ids.setdefault(text, len(self._ids))
        return got

    def _text(self, name: str, literal: bool, stack: list) -> tuple[str | None, int]:
        """(the shape's text, the outermost level of `stack` it refers to)."""
        key = (name, literal)
        if key in self._texts:
            return self._texts[key], len(stack)
        depth = len(stack)
        if not self._only_types(name):
            return None, depth
        tokens = self._declaration(name)
        if not self._queries.isdisjoint(tokens):
            return None, depth
        stack.append(key)
        try:
            out, lowest = self._write(tokens, literal, stack, depth)
        finally:
            stack.pop()
        text = None if out is None else "\x1f".join(out) + self._predicates(name)
        if lowest >= depth:  # no reference to an enclosing type: the same text wherever it is met
            self._texts[key] = text
        return text, lowest

    def _write(self, tokens: list[str], literal: bool, stack: list, depth: int) -> tuple[list | None, int]:
        out: list[str] = []
        lowest = depth
        erased = False
        types = self._types
        for i, t in enumerate(tokens):
            if not literal and t in _ERASED:
                if not erased:
                    out.append(ERASED_TOKEN)
                erased = True
                continue
            erased = False
            if t not in types:
                out.append(t)  # other file-scope names (a field named `free`, an enum constant) as spelled
                continue
            if result_position(tokens, i):
                return None, lowest
            # A pointer's layout does not depend on what it points to (instances.py).
            key = (t, literal and (i + 1 == len(tokens) or tokens[i + 1] != "*"))
            level = next((k for k in range(len(stack) - 1, -1, -1) if stack[k] == key), None)
            if level is not None:
                out.append(f"{_BACK}{len(stack) - 1 - level}")
                lowest = min(lowest, level)
                continue
            inner, low = self._text(key[0], key[1], stack)
            if inner is None:
                return None, lowest
            lowest = min(lowest, low)
            out += (_OPEN, inner, _CLOSE)
        return out, lowest


# The compiled twin (refcheck/frontend/_cwalk.c `named_conditional`, where native.py chose the
# module): the same scans of the arms and the declarations. The definition above stays the
# fallback and the oracle (tests/test_native.py).
PURE = {"named_conditional": named_conditional}
if native.CHOICE.module is not None:
    def named_conditional(tokens: list[str], type_names, names,  # noqa: F811
                          _compiled=native.CHOICE.module.named_conditional) -> bool:
        """`named_conditional`, in C."""
        return _compiled(tokens, type_names, names, QUALIFIERS)
