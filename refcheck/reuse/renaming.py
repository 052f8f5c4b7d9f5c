"""Functions whose CFGs are identical after renaming, so that one analysis serves them all.

TH compiles each generic function once per type: `THTensor_(add)` becomes THFloatTensor_add,
THDoubleTensor_add, ... from the same source text. Their graphs differ only in the names the
macros pasted (callees, condition keys, the function's own name) and in the declaration hashes
inside value names. The analysis depends on names only through equality, the conventions and
the families (an acquirer's record or name prefix against a releaser's, `family_pattern`), so
it runs once per class and each member's findings are the representative's with its names put
back (token for token), byte for byte what analysing the member alone gives.

A class key is the graph serialized with every name token replaced by its order of first
appearance, plus what the conventions say of each token and which tokens' families equal which
tokens; two graphs with the same key are the same graph up to a one-to-one renaming of tokens,
which pairs their tokens position by position.
Locations are kept literally, so only graphs from the same source text (the instantiations of one
generic body) ever share a class, and the renaming never touches a file or line.
"""

from __future__ import annotations

import copy
import re
import struct
from dataclasses import fields, is_dataclass, replace

from refcheck.ir.cfg import FunctionCFG, Node
from refcheck.conventions import Conventions
from refcheck.conventions.summary import Returns
from refcheck.findings import Finding, Location
from refcheck.frontend import native

# A name as the lowering writes it: an identifier, a temporary ($3), with a declaration hash (#123).
TOKEN = re.compile(r"[A-Za-z_$][\w$]*(?:#\d+)?")


# The serialized graph marks everything that is not a name with characters a TOKEN cannot contain,
# so that only names are renamed: STR_OPEN/STR_CLOSE around every string, `%` a dataclass by its
# code, `^` a node kind or edge attribute by its code, `@` a location by its code, `!` None and
# booleans, `=` an integer, `&` a set (compared apart, after every name has its number).
STR_OPEN, STR_CLOSE = "\x02", "\x03"
_SPLIT = re.compile(f"({TOKEN.pattern})")
_CODES: dict = {}  # class, node kind, edge attribute or Location -> its code in this process


def _code(x) -> int:
    # Never cleared: emitters hold their class's code, and the table only grows by files, node
    # kinds, edge attributes and IR classes. From 1, so that `get(x) or code(x)` never misreads 0.
    n = _CODES.get(x)
    if n is None:
        n = _CODES[x] = len(_CODES) + 1
    return n


def _emitter(cls):
    """A function appending one instance of dataclass `cls` to the writer, its fields inlined:
    a graph is thousands of ops, and a generic call per field was most of the key's cost."""
    lines = ["def emit(o, out, strs, w):", f"    out.append('%{_code(cls)}(')"]
    for f in fields(cls):
        lines += [f"    x = o.{f.name}",
                  "    t = type(x)",
                  "    if t is str:",
                  "        out += (STR_OPEN, x, STR_CLOSE)",
                  "        strs.append(x)",
                  "    elif t is Location:",
                  "        out.append(f'@{codes.get(x.file) or code(x.file)}:{x.line}:{x.column}')",
                  "    elif x is None:",
                  "        out.append('!0')",
                  "    elif t is bool:",
                  "        out.append('!1' if x else '!2')",
                  "    elif t is frozenset:",
                  "        out.append(f'&{len(w.sets)}')",
                  "        w.sets.append(x)",
                  "    else:",
                  "        w.value(x)"]
    lines.append("    out.append(')')")
    scope = {"STR_OPEN": STR_OPEN, "STR_CLOSE": STR_CLOSE, "Location": Location, "codes": _CODES, "code": _code}
    exec("\n".join(lines), scope)  # noqa: S102 - code built from the dataclass's own field names
    return scope["emit"]


_EMITTERS: dict = {}


class _Writer:
    """Appends a graph's parts to one list, to be joined and split into names once."""

    def __init__(self):
        self.out: list[str] = []
        self.strs: list[str] = []
        self.sets: list[frozenset] = []

    def value(self, v) -> None:
        out = self.out
        t = type(v)
        emit = _EMITTERS.get(t)
        if emit is not None:
            emit(v, out, self.strs, self)
        elif t is str:
            out += (STR_OPEN, v, STR_CLOSE)
            self.strs.append(v)
        elif v is None:
            out.append("!0")
        elif t is bool:
            out.append("!1" if v else "!2")
        elif t is int:
            out.append(f"={v}")
        elif t is float:
            out.append(f"={struct.unpack('<q', struct.pack('<d', v))[0]}.")  # its bits: repr has letters
        elif t is Location:
            # Locations are kept literally: only instantiations of the same source text share a class.
            out.append(f"@{_code(v.file)}:{v.line}:{v.column}")
        elif t is tuple or t is list:
            out.append("(" if t is tuple else "[")
            for x in v:
                self.value(x)
            out.append(")")
        elif t is frozenset:
            out.append(f"&{len(self.sets)}")
            self.sets.append(v)
        elif is_dataclass(v):
            emit = _EMITTERS[t] = _emitter(t)
            emit(v, out, self.strs, self)
        else:
            raise _Unshared

    def many(self, values: tuple) -> None:
        """Each of `values` in turn (the compiled writer's unit of work)."""
        for v in values:
            self.value(v)

    def graph(self, adjacency: list, data: dict) -> None:
        """The nodes (`adjacency`: [(node, {successor: {attribute: value}})], in order) and edges."""
        out, value = self.out, self.value
        for n, edges in adjacency:
            d = data[n]
            if type(d) is Node:  # its kind is structure, not a name: a code, like an op's class
                out.append(f"\n={n}^{_code(d.kind)}")
                value(d.loc)
                value(d.ops)
                value(d.cond)
                value(d.value)
                value(d.post)
                value(d.text)
            else:
                out.append(f"\n={n}")
                value(d)
            for s in (sorted(edges) if len(edges) > 1 else edges):
                out.append(f">{s}")
                e = edges[s]
                for k in (sorted(e) if len(e) > 1 else e):
                    out.append(f"^{_code(k)}")
                    value(e[k])


class _Unshared(Exception):
    """A value the key cannot describe: the graph gets a class of its own."""


# The compiled writer (refcheck/frontend/_cgraph.c `write_values`, where native.py chose the
# module): `_Writer.many` without a Python call per value, the same pieces. `_PURE_WRITER` stays the
# fallback and the oracle (tests/test_native.py). A class it meets first is described here: its
# code (the emitter's) and its fields' names, in order.
_DESCRIBED: dict = {}


def _describe(cls):
    got = _DESCRIBED[cls] = (f"%{_code(cls)}(", tuple(f.name for f in fields(cls))) if is_dataclass(cls) else None
    return got


_PURE_WRITER = _Writer
if native.CHOICE.module is not None:
    class _Writer(_PURE_WRITER):  # noqa: F811
        """`_Writer` whose `many` is the compiled writer's."""

        def many(self, values: tuple, _write=native.CHOICE.module.write_values,
                 _env=(_DESCRIBED, Location, _CODES, _code, _describe)) -> None:
            if not _write(values, self.out, self.sets, _env):
                raise _Unshared

        def graph(self, adjacency: list, data: dict, _write=native.CHOICE.module.write_graph,
                  _env=(_DESCRIBED, Location, _CODES, _code, _describe)) -> None:
            if not _write(adjacency, data, Node, self.out, self.sets, _env):
                raise _Unshared


def class_key(cfg: FunctionCFG, conv: Conventions) -> tuple[tuple, list[str]]:
    """(key, tokens): graphs with equal keys are the same up to renaming tokens[i] to tokens[i]."""
    w = _Writer()
    out, many = w.out, w.many
    g = cfg.graph
    try:
        many((cfg.name,))
        out.append(f"={cfg.entry}={cfg.exit}")
        many((cfg.loc, tuple(cfg.params)))
        w.graph(sorted(g.adjacency()), dict(g.nodes(data="data")))
        out.append("\n;")
        many(tuple(x for item in cfg.names.items() for x in item))
        out.append(f"={len(cfg.lambdas)}={cfg.role.value}")
    except _Unshared:
        return ("unshared", object()), []
    strings = "".join(w.strs)
    if STR_OPEN in strings or STR_CLOSE in strings:
        return ("unshared", object()), []  # a string holding a delimiter would make the layout ambiguous
    literal, numbers, index = _numbered("".join(out))
    sets = []
    for v in w.sets:
        # Set order depends on the names; numbered names give an order independent of them.
        items = []
        for x in v:
            if type(x) is not str:
                return ("unshared", object()), []
            xs = _SPLIT.split(x)
            names = xs[1::2]
            if any(p not in index for p in names):
                return ("unshared", object()), []  # a name met only in sets would be numbered by set order
            items.append((tuple(xs[0::2]), tuple(index[p] for p in names)))
        sets.append(tuple(sorted(items)))
    tokens = list(index)
    which = _fingerprint(conv)
    verdicts = tuple(verdict(conv, which, t) for t in tokens)
    return (literal, numbers, tuple(sets), verdicts, family_pattern(conv, which, tokens)), tokens


def _numbered(text: str) -> tuple[str, tuple, dict]:
    """(`text` with every name replaced by \\x00, each name's number in order of first appearance,
    name -> its number): the key's layout and its names."""
    parts = _SPLIT.split(text)
    index: dict[str, int] = {}
    numbers = tuple([index.setdefault(t, len(index)) for t in parts[1::2]])
    return "\x00".join(parts[0::2]), numbers, index


# The compiled twin (refcheck/frontend/_cgraph.c `numbered`): the same scan without the regex
# engine, for ASCII text (None for any other, which the regex reads). The definition above stays
# the fallback and the oracle (tests/test_native.py).
_PURE_NUMBERED = _numbered
if native.CHOICE.module is not None:
    def _numbered(text: str, _compiled=native.CHOICE.module.numbered) -> tuple[str, tuple, dict]:  # noqa: F811
        got = _compiled(text)
        return got if got is not None else _PURE_NUMBERED(text)


_VERDICTS: dict = {}
_VERDICT_NUMBERS: dict = {}
# id(conventions) -> (the conventions, their fingerprint): one repr of every field per unit, not
# one per class key (the object is held, so its id is not reused while the entry lives).
_FINGERPRINTS: dict = {}


def _fingerprint(conv: Conventions) -> str:
    got = _FINGERPRINTS.get(id(conv))
    if got is None or got[0] is not conv:
        if len(_FINGERPRINTS) > 64:
            _FINGERPRINTS.clear()
        got = _FINGERPRINTS[id(conv)] = (conv, conv.fingerprint())
    return got[1]


def verdict(conv: Conventions, which: str, token: str) -> int:
    name = token.split("#", 1)[0]  # a declaration's hash says nothing to the conventions
    # By the conventions' content (ids of freed conventions are reused) and by the summary the
    # unit has inferred for the name so far: `which` leaves that table out, and it fills while the
    # unit is checked (a verdict taken before a helper's summary was learnt must not stand for
    # after). The entry holds that summary, so its id is not reused while the entry lives.
    table = conv.inferred
    inferred = table.known.get(name) if table is not None else None
    key = (which, name, id(inferred))
    got = _VERDICTS.get(key)
    if got is None:
        # Everything the conventions can say of one name: as a callee (its whole summary), as the
        # function being checked (a `new*` one, a primitive) and as a type (a context handle), so
        # that conventions-driven decisions are the same for every member.
        # A parent's class variable (`parent_classes`: calls through its slots chain up) too.
        full = (conv.summary(name), conv.returns_owned(name), conv.is_primitive(name),
                conv.matches("context", name), conv.matches("borrowed", name),
                conv.matches("parent_classes", name))
        # Keys hold the verdict's number (equal numbers, equal verdicts): a key is hashed at
        # every lookup, and hashing a Summary (a dataclass of enums and tuples) each time was
        # 136k hashes in one THTensor.c check. Numbers are never reused (few distinct verdicts).
        got = _VERDICTS[key] = (inferred, _VERDICT_NUMBERS.setdefault(full, len(_VERDICT_NUMBERS)))
        if len(_VERDICTS) > 200_000:
            _VERDICTS.clear()
    return got[1]


# conv.family's answer where the record type an acquirer's result points to decides.
_RECORD = "\x00record"
_FAMILIES: dict = {}


def family_pattern(conv: Conventions, which: str, names: list[str]) -> tuple:
    """Which of `names` (those an acquirer's or releaser's summary may give an op) have families
    equal to which names and to each other. The analysis compares an acquirer's family (a
    table's, the record its result points to, or its name's type prefix) with a releaser's
    (RC011), a relation between names that numbering them apart does not show: `FS_free` is of
    FS's family, so releasing through it what `F_make` (an FS) gave is right where releasing what
    `D_make` (an FT) gave is not, though the two bodies are the same up to renaming FS to FT."""
    index = {n: k for k, n in enumerate(names)}
    out = []
    for k, n in enumerate(names):
        got = _families(conv, which, n)
        if got is not None:
            out.append((k, *(-1 if f is None else index.setdefault(f, len(index)) for f in got)))
    return tuple(out)


def _families(conv: Conventions, which: str, token: str) -> tuple | None:
    name = token.split("#", 1)[0]
    table = conv.inferred
    inferred = table.known.get(name) if table is not None else None
    key = (which, name, id(inferred))
    got = _FAMILIES.get(key)
    if got is None:
        s = conv.summary(name)
        # Only a call that returns something of its own or does something to an argument is
        # lowered to an op whose family is read (an acquire, a release, a realloc).
        families = (conv.family(name, _RECORD), conv.family(name)) \
            if s.returns is not Returns.BORROWED or s.arguments else None
        got = _FAMILIES[key] = (inferred, families)  # the entry holds `inferred`, as _VERDICTS
        if len(_FAMILIES) > 200_000:
            _FAMILIES.clear()
    return got[1]


def renamer(source: list[str], target: list[str]):
    """A function that rewrites the representative's text (tokens `source`) as the member's."""
    mapping = {a: b for a, b in zip(source, target) if a != b}
    if not mapping:
        return lambda s: s
    return lambda s: TOKEN.sub(lambda m: mapping.get(m.group(0), m.group(0)), s)


def renamed_result(result, rename):
    """A copy of an analysis result with every name in its findings renamed."""
    out = copy.copy(result)
    out.findings = [renamed_finding(f, rename) for f in result.findings]
    summary = getattr(result, "summary", None)
    if summary is not None and summary.family is not None:
        # The one field of a summary that spells a type: the family of what the body hands out
        # (`THFloatTensor` for the Float instance of a generic helper is `THDoubleTensor` for its
        # Double twin), which callers compare with their releasers' (RC011).
        out.summary = replace(summary, family=rename(summary.family))
    if isinstance(getattr(result, "incomplete", None), str):
        out.incomplete = rename(result.incomplete)
    return out


def renamed_finding(f: Finding, rename) -> Finding:
    return replace(f, function=rename(f.function), message=rename(f.message),
                   path=tuple(replace(s, message=rename(s.message)) for s in f.path),
                   instantiations=tuple(rename(x) for x in f.instantiations))
