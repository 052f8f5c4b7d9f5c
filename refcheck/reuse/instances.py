"""Instantiations of one generic body, recognised before any graph is built.

TH compiles each generic function once per type (`THTensor_(add)` becomes THFloatTensor_add,
THDoubleTensor_add, ...). `refcheck.reuse.renaming` recognises them by their graphs, which must be built
first: on torch7's THTensor.c, 957 of the 1,243 graphs built were built only to be matched. The
key here decides the same thing from what libclang has already parsed, in one pretty-print per
definition; a definition whose key an earlier one had takes that one's outcome, its names put
back, and is never built.

Two definitions get one key only when everything the graph build reads of them is the same up to
a one-to-one renaming of names:

- *place*: both are defined at the same location (the same generic text, included twice);
- *text*: the definition as clang prints it after preprocessing (clang_getCursorPrettyPrinted),
  tokenized. An identifier that names a file-scope declaration is replaced by its order of first
  appearance; every other word is kept as it is (locals, fields, labels, builtins: the
  instantiations of one body spell them alike, and a builtin must not stand for another);
- *types*: an arithmetic type but `_Bool` spelled outside a cast or a `sizeof` becomes one token,
  because the build asks of a type only whether it is a pointer, a scalar or an array, and every
  arithmetic type is a scalar, except where it converts a constant: the declared type of a local
  that receives or is compared with a constant some arithmetic type would change (`real k = 300`,
  `k < -1`) is kept (converted.py; the first definition with a key finds where, for all that
  share it so far). Inside a cast or a `sizeof` a type is kept, and so are the declarations of the
  names spelled there (constants are evaluated through them: `(unsigned char)300`,
  `sizeof(real)`), unless no constant the build evaluates can see that cast's or sizeof's value
  (unevaluated.py): a cast of a value clang cannot fold, such as a non-const local, a parameter,
  `*p`, or a call with one as its argument (`(real)*src`, `(real)THRandom_uniform(gen, a, b)`), and
  a cast or `sizeof(real)` in a product or sum with one (`n * sizeof(real)`), except a cast in the
  arm of a `?:`. A body with `sizeof` of an expression, alignof, offsetof, `_Generic` or typeof
  keeps every type, and so does one where a constant may be folded through a declared type: a
  const local that is no pointer (`const real c = 3; if (n < c)`), or a `?:` whose condition
  names no variable (the arms' common type, `1 ? -1 : m`, is `m`'s declared type);
- *shapes*: a type name outside a result position (not `T *(` or `T *f(`) is not numbered but
  written as its shape (shapes.py: its declarations, the types in them by shape, what the
  conventions say of it), so that THFloatTensor and THLongTensor are one token where a body names
  one where another instantiation names two; a type a call returns keeps its number (the graph
  holds the record an acquirer returns);
- *declarations*: for each renamed name, every file-scope declaration of it as clang prints it
  (a function by its type, which shows its parameters, result and `noreturn`, and by whether it
  returns; a typedef by its type; a struct or union with its fields; an enum with its values; a
  variable with its initializer), the names in it renamed in the same numbering, in turn;
- *conventions*: what they say of each renamed name (the verdict of `refcheck.reuse.renaming`, and in
  unwind mode whether the name may raise), and which names' families equal which names
  (`renaming.family_pattern`);
- *locations*: the ranges the preprocessor skipped inside the definition are the same (the two
  sides of an `#if` could give equal texts from different lines), and so are the ranges of the
  macro expansions inside it (a token that came from a macro is located at the macro's call
  site, so the same text through macros of another shape would land on other columns). Both are
  found by their raw locations: each inclusion of a file has an interval of its own.

A definition the key cannot vouch for gets none and is built as before: C++ and CUDA (overloads
are chosen by the types erased here), one that spells `__func__` (its own name, as a string
clang folds), an active directive in its source other than conditionals,
`#define`, `#undef` and `#pragma`, an extent that is not one plain range of one file, a body that
does not print.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter

from refcheck.conventions import Conventions
from refcheck.frontend import binding, native
from refcheck.reuse import converted, shapes, unevaluated
from refcheck.frontend.clangutil import BOOLEANS
from refcheck.frontend.clangutil import K, SCALAR_KINDS, T, is_noreturn, kind_of
from refcheck.reuse.ctokens import ARITHMETIC, ERASED, ERASED_TOKEN, QUALIFIERS
from refcheck.reuse.renaming import family_pattern, verdict
from refcheck.reuse.shapes import RESULT_QUALIFIERS as _RESULT_QUALIFIERS
from refcheck.reuse.shapes import result_position as _result_position

# C's tokens: punctuators by maximal munch (the printer spaces the ones that would run together,
# `- -x`), an exponent's sign inside its number, so that unevaluated.py reads `a - -b`, `p->f` and
# `1e-3` as C does. The whitespace before a token is eaten by the leading `\s*` and the token
# is the group (what findall returns): searching for the next match from each blank of the
# printed text (two fifths of it) tried every alternative there, a third of the tokenizing.
_TOKEN = re.compile(r"\s*([A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.])*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
                    r"|->|\+\+|--|<<=?|>>=?|[<>=!*/%+\-&^|]=|&&|\|\||\.\.\.|##|\S)")
_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")
_DIRECTIVE = re.compile(rb"^[ \t]*(?:#|%:|\?\?=)[ \t]*(\w*)", re.M)
# Directives whose effect the key sees: which text is active (the skipped ranges) and what the
# macros expand to (the printed text and the expansions' ranges), and pragmas: the same text in
# every instantiation, whose effect on the AST (an OpenMP directive under -fopenmp) the printed
# text shows. Any other active one (an #include or a #line inside a body) leaves the definition
# without a key; one inside a skipped range does nothing.
_KNOWN_DIRECTIVES = frozenset({b"if", b"ifdef", b"ifndef", b"elif", b"elifdef", b"elifndef", b"else", b"endif",
                               b"define", b"undef", b"pragma"})
# Every C arithmetic type is a scalar to the graph build (clangutil.SCALAR_KINDS).
_ARITHMETIC = ARITHMETIC
_ERASED = ERASED  # what the key erases (ctokens)
_QUALIFIERS = QUALIFIERS | {"*", "struct", "union", "enum"}  # words of a type's spelling
# Whose value depends on more than a type's spelling: such a body keeps all its types.
_TYPE_QUERIES = frozenset({"_Alignof", "alignof", "__alignof", "__alignof__", "offsetof", "__builtin_offsetof",
                           "_Generic", "typeof", "__typeof", "__typeof__", "typeof_unqual",
                           "__builtin_types_compatible_p", "__builtin_choose_expr", "__builtin_classify_type"})
# What a typedef may name for a local of that type to be a value clang cannot fold (unevaluated.py).
_SCALAR_TYPES = frozenset(k for k in SCALAR_KINDS if k != T.VOID) | {T.POINTER}
# Spell the function's own name, which differs between instantiations.
_FUNCTION_NAMES = frozenset({"__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"})
_SPECIAL_WORDS = _FUNCTION_NAMES | _TYPE_QUERIES
# Where a `?:`'s condition starts, reading back from its `?` (besides an unmatched bracket).
_CONDITION_STARTS = frozenset({";", "{", "}", ",", "?", ":", "return", "case"})
_DECL_KINDS = (K.FUNCTION_DECL, K.VAR_DECL, K.TYPEDEF_DECL, K.STRUCT_DECL, K.UNION_DECL, K.ENUM_DECL)
_TYPE_DECL_KINDS = (K.TYPEDEF_DECL, K.STRUCT_DECL, K.UNION_DECL, K.ENUM_DECL)
ARITHMETIC = ERASED_TOKEN  # the erased type's token (ctokens)


class Instances:
    """Keys for the definitions of one parsed unit. Built once per unit, before its graphs."""

    def __init__(self, parsed, conv: Conventions) -> None:
        """`parsed`: frontend.unit.Parsed."""
        tu = parsed.tu
        self.c = parsed.language == "c"
        self.conv = conv
        self.which = conv.fingerprint()
        self.unwind = conv.errors == "unwind"
        self.decls: dict[str, list] = {}
        self.type_names: set[str] = set()
        for c in parsed.top:
            kind = kind_of(c)
            if kind in _DECL_KINDS:
                name = binding.spelling(c)
                if name:
                    self.decls.setdefault(name, []).append(c)
                    if kind in _TYPE_DECL_KINDS:
                        self.type_names.add(name)
                if kind == K.ENUM_DECL:
                    for e in c.get_children():
                        if e.kind == K.ENUM_CONSTANT_DECL:
                            self.decls.setdefault(binding.spelling(e), []).append(e)
        macros = sorted(binding.extents_raw(parsed.expansions))
        self.macros = macros
        self.macro_starts = [b for b, _ in macros]
        self.skipped = sorted(binding.skipped_raw(tu))
        self.skipped_starts = [b for b, _ in self.skipped]
        self._converted_runs: dict[tuple, tuple[int, ...]] = {}
        # Functions over this unit's names, not methods: a reader holding this object would make
        # a cycle, which keeps the unit's parse alive past its check (gcpause.frozen_heap).
        type_names = self.type_names
        decls = self.decls

        # The words a type's spelling may hold: one set, asked per token (a closure over four
        # sets cost a Python call per token of every cast's parentheses).
        self._type_words = type_words = frozenset(_ARITHMETIC | _QUALIFIERS | type_names | {"void"})
        type_like = type_words.__contains__

        def enum_value(name: str) -> int | None:
            for d in decls.get(name, ()):
                if kind_of(d) == K.ENUM_CONSTANT_DECL:
                    return d.enum_value
            return None

        self._converted = converted.Reader(decls, unevaluated.KEYWORDS, _ARITHMETIC, type_like, enum_value)
        self._signatures: dict[str, list[str]] = {}
        signatures = self._signatures
        which, unwind = self.which, self.unwind

        def only_types(name: str) -> bool:
            return all(kind_of(d) in _TYPE_DECL_KINDS for d in decls[name])

        def predicates(name: str) -> str:
            """What the graph build asks of a type by its name (and by the name of the record a
            typedef stands for or points to, as handles and slots spell it), and its verdict."""
            asked = "".join(f"{n in conv.unit_counted:d}{conv.matches('error_out', n):d}{conv.matches('context', n):d}"
                            f"{n in conv.object_records:d}{n in BOOLEANS:d}" for n in _spellings(decls, name))
            return f"\x08{_verdict(conv, which, unwind, name)}{asked}"

        self._shapes = shapes.Shapes(type_names, only_types, lambda name: _signature(decls, signatures, name),
                                     predicates, _TYPE_QUERIES)
        of = self._shapes.of

        def shape_of(name: str, literal: bool) -> str | None:
            """The token of type name `name`'s shape; None where it keeps its number."""
            got = of(name, literal)
            return None if got is None else f"\x03{got}"

        # (name, literal) -> its shape's token or None, for the unit: asked per type name written.
        self._shapes_of = (shape_of, {})
        self._scalar: dict[str, bool] = {}
        self._measures: dict[str, bool] = {}  # name -> whether its declarations measure or compare types
        self._sources: dict[str, bytes | None] = {}
        self._identifiers: dict[tuple, frozenset] = {}  # (file, start, stop) -> its identifiers
        self.tu = tu

    # -- the key -------------------------------------------------------------------------------
    def key(self, fn, place) -> tuple[tuple, list[str]] | None:
        """(key, names) for definition `fn` at `place` (clangutil.location), or None when the key
        cannot vouch for it. `names` are the renamed names in their order of first appearance:
        what `renaming.renamer` pairs between two definitions with one key."""
        got = self._base(fn, place)
        if got is None:
            return None
        key, names, runs, tokens, _ = got
        return self._converted_key(key, runs, tokens), names

    def keys(self, definitions: list) -> list[tuple[tuple, list[str]] | None]:
        """`key` of each (fn, place), for keys compared only among themselves (one plan's): a key
        no other of them shares before its converted runs gets none (the scan that finds them,
        about a tenth of the keys' time, is for telling apart definitions that share it: THTensor.c's
        407 scans, 172 of them for such keys). Two keys are equal here exactly where `key`'s are."""
        based: list = []
        firsts: dict = {}  # base key -> its first definition's (printed text, runs): not its tokens (memory)
        for fn, place in definitions:
            got = self._base(fn, place)
            if got is not None:
                firsts.setdefault(got[0], (got[4], got[2]))
                got = got[:3]
            based.append(got)
        count = Counter(b[0] for b in based if b is not None)
        out: list = []
        for b in based:
            if b is None:
                out.append(None)
                continue
            key, names, runs = b
            if count[key] > 1 or key in self._converted_runs:
                if runs and key not in self._converted_runs:
                    text, first_runs = firsts[key]
                    self._converted_runs[key] = self._ordinals(tokenize(text), first_runs)
                key = self._converted_key(key, runs, None)
            out.append((key, names))
        return out

    def _converted_key(self, key: tuple, runs: list | None, tokens: list[str] | None) -> tuple:
        """`key` with the words of its erased runs a constant of the build is converted to
        (converted.py). Definitions with one key so far differ only in their erased runs, and
        their constants are converted at the same runs: the first one (its `tokens`) finds which."""
        if not runs:
            return key
        ordinals = self._converted_runs.get(key)
        if ordinals is None:
            ordinals = self._converted_runs[key] = self._ordinals(tokens, runs)
        return key + (tuple(runs[k][1] for k in ordinals),) if ordinals else key

    def _ordinals(self, tokens: list[str], runs: list | None) -> tuple[int, ...]:
        """Which of `runs` (an erased run's [token index, words]) the build converts a constant to."""
        if not runs:
            return ()
        ranges = self._converted.kept_types(tokens)
        return tuple(k for k, (at, _) in enumerate(runs) if any(i <= at < j for i, j in ranges))

    def _base(self, fn, place) -> tuple | None:
        """(key before its converted runs, names, erased runs, tokens, printed text), or None."""
        if not self.c:
            return None
        source = self._source(place.file)
        if source is None:
            return None
        (first, _, _, start), (last, _, _, stop) = binding.extent_places(fn)
        _, end = binding.extent_raw(fn)
        if not first or first != last or end & binding.MACRO_ID_BIT or not 0 <= start < stop <= len(source) \
                or binding.file_named(first).name != place.file:
            return None  # not one plain range of the definition's file
        # The extent's start may be a macro's (a return type spelled `THTensor *`): its call site
        # is `start` bytes into the same inclusion as the end.
        begin = end - (stop - start)
        i = bisect.bisect_left(self.skipped_starts, begin)
        j = bisect.bisect_right(self.skipped_starts, end)
        skipped = tuple((b - begin, e - begin) for b, e in self.skipped[i:j])
        for m in _DIRECTIVE.finditer(source, start, stop):
            if m.group(1) not in _KNOWN_DIRECTIVES:
                at = m.start() - start
                if not any(b <= at < e for b, e in skipped):
                    return None
        i = bisect.bisect_left(self.macro_starts, begin)
        j = bisect.bisect_right(self.macro_starts, end)
        expansions = tuple((b - begin, e - begin) for b, e in self.macros[i:j])
        text = binding.pretty_printed(fn)
        if not text:
            return None
        tokens = tokenize(text)
        # One pass over the tokens for the words either test below looks for (a tenth of a key's
        # own time when each test read all of them).
        special = _SPECIAL_WORDS.intersection(tokens)
        if special and not _FUNCTION_NAMES.isdisjoint(special):
            return None  # the function's own name as a string, which clang folds (`__func__[2]`)
        body = tokens.index("{") if "{" in tokens else len(tokens)  # where the body starts
        erase = _TYPE_QUERIES.isdisjoint(special) and not self._folds_through_types(tokens, body)
        literal = self._literal_ranges(tokens) if erase else None
        if literal is None:
            erase = False
        elif literal:
            literal = self._unevaluated_kept(fn, tokens, body, literal)
        numbers: dict[str, int] = {}
        queue: list[tuple[str, bool]] = []  # (name, literal types) whose declarations go in
        runs: list | None = [] if erase else None  # [token index, words] of each erased run
        # Type names by their shapes (shapes.py) only where every arithmetic type is erased (a body
        # that keeps them may ask clang to compare types) and no conditional's type may differ.
        shaped = self._shapes if erase and not shapes.named_conditional(tokens, self.type_names, self.decls) \
            else None
        out = self._write(tokens, erase, literal or (), numbers, queue, runs=runs, shapes=shaped)
        out += self._declarations(queue, numbers, shaped)
        names = list(numbers)
        # The graph also holds the definition's own source text (expressions as messages show
        # them), where a name stays as written: a renamed name spelled there could only be
        # renamed into itself (`TH_MATH_NAME(log)` calls logf for float, log for double).
        written = self._written(place.file, source, start, stop) if names else ()
        spelled = tuple(n if n.encode() in written else "" for n in names)
        verdicts = tuple(self._verdict(n) for n in names)
        key = (place, expansions, skipped, "\x1f".join(out), verdicts, spelled,
               family_pattern(self.conv, self.which, names))
        return key, names, runs, tokens, text

    def _written(self, file: str, source: bytes, start: int, stop: int) -> frozenset:
        """The identifiers of the source text [start, stop): the same for every instantiation of
        one generic body (one place, one extent), so read once per extent, not per definition."""
        at = (file, start, stop)
        got = self._identifiers.get(at)
        if got is None:
            got = self._identifiers[at] = frozenset(_IDENTIFIER.findall(source, start, stop))
        return got

    def _declarations(self, queue: list, numbers: dict, shaped) -> list[str]:
        """The declarations of the renamed names `queue` holds (and of those they name in turn)."""
        out: list[str] = []
        done = set()
        while queue:
            item = queue.pop(0)
            if item in done:
                continue
            done.add(item)
            name, keep = item
            sig_tokens = self._signature(name)
            out.append(f"\x00{numbers[name]}{'L' if keep else 'E'}")
            # A numbered type's declarations number the types they name outside braces: the
            # record a numbered typedef or result names is what the graph may hold (its fields'
            # types are shaped like any other). A declaration that measures or compares types (a
            # global's initializer) names them.
            asks = self._measures.get(name)
            if asks is None:
                asks = self._measures[name] = "sizeof" in sig_tokens or not _TYPE_QUERIES.isdisjoint(sig_tokens)
            out += self._write(sig_tokens, not keep, (), numbers, queue, keep, shapes=None if asks else shaped,
                               braced=name in self.type_names)
        return out

    def _verdict(self, name: str) -> tuple:
        return _verdict(self.conv, self.which, self.unwind, name)

    def _literal_ranges(self, tokens: list[str]) -> list[tuple[int, int]] | None:
        """Token ranges [i, j) of the casts and `sizeof(type)` operands, whose types are kept; None
        when some `sizeof` takes an expression (its value depends on a declaration's type)."""
        return literal_ranges(tokens, self._type_words)

    def _folds_through_types(self, tokens: list[str], start: int) -> bool:
        """Whether a constant the build evaluates may depend on a type erased outside casts
        (`folds_through_types`)."""
        return folds_through_types(tokens, start, self.decls, self._type_words, _CONDITION_STARTS,
                                   unevaluated.ASSIGNMENTS)

    def _unevaluated_kept(self, fn, tokens: list[str], start: int,
                          literal: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """`literal` less the casts and sizeofs whose value no constant evaluation of the build
        sees (unevaluated.py): their types are erased like any other."""
        decls = self.decls
        candidates = [i - 1 for i, j in literal if i > start and any(t in _ARITHMETIC or t in decls for t in tokens[i:j])]
        if not candidates:
            return literal
        params = {binding.spelling(a) for a in binding.arguments(fn) if a is not None}
        try:
            erased = unevaluated.erasable(tokens, start, {i - 1 for i, _ in literal}, candidates, decls,
                                          self.type_names, params, self._scalar_typedef)
        except (KeyError, IndexError):  # a printed body its token rules misread: keep every type
            return literal
        return [r for r in literal if r[0] - 1 not in erased] if erased else literal

    def _scalar_typedef(self, name: str) -> bool:
        got = self._scalar.get(name)
        if got is None:
            got = False
            for d in self.decls.get(name, ()):
                if kind_of(d) == K.TYPEDEF_DECL:
                    t = d.underlying_typedef_type.get_canonical()
                    got = t.kind in _SCALAR_TYPES and not t.is_const_qualified()
                    break
            self._scalar[name] = got
        return got

    def _write(self, tokens: list[str], erase: bool, literal, numbers: dict, queue: list,
               keep_all: bool = False, runs: list | None = None, shapes=None, braced: bool = False) -> list[str]:
        """Tokens as the key spells them (`write_tokens`); `literal`: the token ranges whose types
        are kept; with `shapes`, a type name outside a result position (and, if `braced`, inside
        braces) is written as its shape where it has one."""
        return write_tokens(tokens, erase, literal, keep_all, _ERASED, self.decls, self.type_names, numbers, queue,
                            runs, None if shapes is None else self._shapes_of, braced, _RESULT_QUALIFIERS)

    def _source(self, name: str) -> bytes | None:
        if name not in self._sources:
            from refcheck.frontend.unit import parsed_contents

            got = parsed_contents(self.tu, [name]) if name else None
            self._sources[name] = got[name] if got else None
        return self._sources[name]

    def _signature(self, name: str) -> list[str]:
        return _signature(self.decls, self._signatures, name)


def _verdict(conv: Conventions, which: str, unwind: bool, name: str):
    v = verdict(conv, which, name)
    return (v, conv.may_raise_call(name)) if unwind else v


def _spellings(decls: dict, name: str) -> list[str]:
    """`name`, and for a typedef the record its canonical type is or points to, spelled as
    `handles.record_name` and `slots._records` spell it (`(unnamed struct at ...)` included)."""
    out = [name]
    for d in decls[name]:
        if kind_of(d) == K.TYPEDEF_DECL:
            t = d.underlying_typedef_type.get_canonical()
            if t.kind == T.POINTER:
                t = t.get_pointee().get_canonical()
            spelled = t.spelling
            for word in ("const ", "volatile ", "struct ", "union "):
                spelled = spelled.replace(word, "")
            out.append(spelled.strip())
    return out


def _signature(decls: dict, cache: dict, name: str) -> list[str]:
    """The tokens of every file-scope declaration of `name`, in the unit's order."""
    got = cache.get(name)
    if got is None:
        parts: list[str] = []
        for d in decls[name]:
            kind = kind_of(d)
            parts.append(kind.name)
            if kind == K.FUNCTION_DECL:
                # Not printed: a definition prints with its body.
                spelled = d.type.spelling
                parts += tokenize(spelled)
                parts.append("noreturn" if is_noreturn(d, spelled) else "returns")
            elif kind == K.ENUM_CONSTANT_DECL:
                parts.append(str(d.enum_value))
            else:
                parts += tokenize(binding.pretty_printed(d))
        got = cache[name] = parts
    return got


def tokenize(text: str) -> list[str]:
    """The tokens of a printed definition or type (`_TOKEN`'s)."""
    return _TOKEN.findall(text)


def literal_ranges(tokens: list[str], type_words: frozenset) -> list[tuple[int, int]] | None:
    """Token ranges [i, j) of the parenthesised runs of `type_words` (the casts and `sizeof(type)`
    operands, whose types are kept); None when some `sizeof` takes an expression."""
    out = []
    opens: list[int] = []
    for i, t in enumerate(tokens):
        if t == "(":
            opens.append(i)
        elif t == ")" and opens:
            o = opens.pop()
            if o + 1 < i and type_words.issuperset(tokens[o + 1:i]):
                out.append((o + 1, i))
            elif o > 0 and tokens[o - 1] == "sizeof":
                return None
        elif t == "sizeof" and (i + 1 >= len(tokens) or tokens[i + 1] != "("):
            return None
    return out


def folds_through_types(tokens: list[str], start: int, decls: dict, type_words: frozenset,
                        condition_starts: frozenset, assignments: frozenset) -> bool:
    """Whether a constant the build evaluates may depend on a type erased outside casts: a
    const local of a type that is no pointer (clang folds `const real c = 3; if (n < c)` for
    int, not for float), or a `?:` whose condition may be constant (its arms' common type,
    `1 ? -1 : m` with `m` unsigned or int, is the declared type of a variable in the other
    arm). A condition may be constant when it names no variable: every identifier in it is a
    file-scope name (enum constants, const globals, builtins' callees) or spells a type."""
    typeish = type_words.__contains__
    n = len(tokens)
    for i in range(start, n):
        t = tokens[i]
        if t == "const" and tokens[i - 1] != "*":
            j = i + 1
            while j < n and (typeish(tokens[j]) or tokens[j] in ("static", "register")) and tokens[j] != "*":
                j += 1
            if j < n and tokens[j] != "*" and (tokens[j][:1].isalpha() or tokens[j][:1] == "_"):
                return True
        elif t == "?":
            depth = 0
            k = i - 1
            while k >= start:
                u = tokens[k]
                if u in (")", "]"):
                    depth += 1
                elif u in ("(", "["):
                    if depth == 0:
                        break
                    depth -= 1
                elif depth == 0 and (u in condition_starts or u in assignments):
                    break
                elif (u[:1].isalpha() or u[:1] == "_") and u not in decls and u != "sizeof" \
                        and not typeish(u):
                    break  # a variable (a local, a parameter, or a field of one)
                k -= 1
            else:
                return True
            if tokens[k] in condition_starts or tokens[k] in assignments or tokens[k] in ("(", "["):
                return True
    return False


def write_tokens(tokens: list[str], erase: bool, literal, keep_all: bool, erased: frozenset, decls: dict,
                 type_names: set, numbers: dict, queue: list, runs: list | None, shapes, braced: bool,
                 qualifiers: frozenset) -> list[str]:
    """`tokens` as the key spells them: a run of `erased` words (where `erase`, outside the ranges
    (i, j) of `literal`, and not at all with `keep_all`) as one ERASED_TOKEN, each file-scope name
    (`decls`) by its number in `numbers` (given in order of first appearance; `queue` receives
    (name, whether it stands as a literal type) per occurrence), other tokens as they are. `runs`,
    when given, receives [token index, words] of each erased run. With `shapes`, (shape_of, cache):
    a type name outside a result position (shapes.result_position, whose `qualifiers` are given;
    where `braced`, only one inside braces) is written as the token shape_of(name, literal) gives,
    where that is not None; `cache` keeps those answers by (name, literal)."""
    out: list[str] = []
    inside = _inside(literal, len(tokens)) if literal else None
    previous_erased = False
    depth = 0 if braced else 1
    n_tokens = len(tokens)
    for i, t in enumerate(tokens):
        if braced and t in ("{", "}"):
            depth += 1 if t == "{" else -1
        keep = keep_all or (inside is not None and inside[i])
        if erase and not keep and t in erased:
            if not previous_erased:
                out.append(ARITHMETIC)
                if runs is not None:
                    runs.append([i, t])
            elif runs is not None:
                runs[-1][1] += " " + t
            previous_erased = True
            continue
        previous_erased = False
        if t in decls:
            # A pointer's layout does not depend on what it points to: `THStorage *storage`
            # in a struct whose size is taken needs THStorage's declaration, not its layout.
            literal_type = keep and (i + 1 == n_tokens or tokens[i + 1] != "*")
            if shapes is not None and depth > 0 and t in type_names and not _result_position(tokens, i, qualifiers):
                shape_of, cache = shapes
                key = (t, literal_type)
                if key not in cache:
                    cache[key] = shape_of(t, literal_type)
                if cache[key] is not None:
                    out.append(cache[key])
                    continue
            n = numbers.get(t)
            if n is None:
                n = numbers[t] = len(numbers)
            out.append(f"\x02{n}")
            queue.append((t, literal_type))
        else:
            out.append(t)
    return out


# The compiled twins (refcheck/frontend/_cwalk.c, where native.py chose the module): `tokens`, the
# same list without the regex engine, a fifth of its time on THTensor.c's 1.5M tokens (it reads
# ASCII only and answers None for any other text, which the regex tokenizes); `literal_ranges` and
# `write_tokens`, the key's per-token passes that need no rule of their own (the casts' ranges, and
# the spelling with its erasures, numbers and shapes). The definitions above stay the fallback and
# the oracle (tests/test_native.py).
PURE = {"tokenize": tokenize, "literal_ranges": literal_ranges, "write_tokens": write_tokens,
        "folds_through_types": folds_through_types}
if native.CHOICE.module is not None:
    literal_ranges = native.CHOICE.module.literal_ranges  # noqa: F811
    write_tokens = native.CHOICE.module.write_tokens  # noqa: F811
    folds_through_types = native.CHOICE.module.folds_through_types  # noqa: F811

    def tokenize(text: str, _compiled=native.CHOICE.module.tokens) -> list[str]:  # noqa: F811
        """The tokens of a printed definition or type (`_TOKEN`'s), in C where the text is ASCII."""
        got = _compiled(text)
        return got if got is not None else _TOKEN.findall(text)


def _inside(ranges, n: int) -> list[bool]:
    marks = [False] * n
    for i, j in ranges:
        for k in range(i, j):
            marks[k] = True
    return marks
