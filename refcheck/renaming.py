"""Functions whose CFGs are identical after renaming, so that one analysis serves them all.

TH compiles each generic function once per type: `THTensor_(add)` becomes THFloatTensor_add,
THDoubleTensor_add, ... from the same source text. Their graphs differ only in the names the
macros pasted (callees, condition keys, the function's own name) and in the declaration hashes
inside value names. The analysis depends on names only through equality and the conventions, so
it runs once per class and each member's findings are the representative's with its names put
back (token for token), byte for byte what analysing the member alone gives.

A class key is the graph serialized with every name token replaced by its order of first
appearance, plus what the conventions say of each token; two graphs with the same key are the
same graph up to a one-to-one renaming of tokens, which pairs their tokens position by position.
Locations are kept literally, so only graphs from the same source text (the instantiations of one
generic body) ever share a class, and the renaming never touches a file or line.
"""

from __future__ import annotations

import copy
import re
from dataclasses import is_dataclass

from refcheck.cfg import FunctionCFG
from refcheck.conventions import Conventions
from refcheck.model import Finding, Location, Step

# A name as the lowering writes it: an identifier, a temporary ($3), with a declaration hash (#123).
TOKEN = re.compile(r"[A-Za-z_$][\w$]*(?:#\d+)?")
# What the conventions can say of one name; part of the key so that conventions-driven decisions
# (is this function a `new*` one, a primitive) are the same for every member.
CONVENTION_KINDS = ("acquire", "reallocate", "may_fail", "retain", "release", "consume", "error", "exit",
                    "pure", "context", "primitive")


_SPLITS: dict[str, tuple] = {}


def _split(s: str) -> tuple:
    """A string as (literal, token, literal, token, ..., literal), memoized: the same names recur
    in every op of a graph and in every instantiation."""
    parts = _SPLITS.get(s)
    if parts is None:
        if len(_SPLITS) > 200_000:
            _SPLITS.clear()
        parts = _SPLITS[s] = tuple(_tokens(s))
    return parts


def _tokens(s: str) -> list:
    out, last = [], 0
    for m in TOKEN.finditer(s):
        out.append(s[last:m.start()])
        out.append(m.group(0))
        last = m.end()
    out.append(s[last:])
    return out


class _Canon:
    def __init__(self, conv: Conventions):
        self.conv = conv
        self.index: dict[str, int] = {}
        self.tokens: list[str] = []

    def text(self, s: str):
        parts = _split(s)
        if len(parts) == 1:
            return s
        index = self.index
        out = []
        for i, p in enumerate(parts):
            if i % 2:
                n = index.get(p)
                if n is None:
                    n = index[p] = len(self.tokens)
                    self.tokens.append(p)
                out.append(n)
            else:
                out.append(p)
        return tuple(out)

    def value(self, v) -> object:
        """A hashable canonical form of one field value."""
        t = type(v)
        if t is str:
            return self.text(v)
        if v is None or t is bool or t is int or t is float or t is Location:
            # Locations are kept literally: only instantiations of the same source text share a class.
            return v
        if t is tuple or t is list:
            return (t.__name__, *(self.value(x) for x in v))
        if t is frozenset:
            # Set order depends on the names; canonical names of tokens met earlier give an order
            # independent of them. A token first met inside a set would be numbered by set order,
            # so such a graph gets a key of its own.
            items = []
            for x in v:
                if type(x) is str and all(p in self.index for p in _split(x)[1::2]):
                    items.append(self.text(x))
                else:
                    return ("unshared", id(self), repr(sorted(map(repr, v))))
            return ("set", *sorted(items, key=repr))
        if is_dataclass(v):
            return (t.__name__, *(self.value(x) for x in vars(v).values()))
        if t is dict:
            return ("dict", *((self.value(k), self.value(x)) for k, x in v.items()))
        return ("unshared", id(self), repr(v))


def class_key(cfg: FunctionCFG, conv: Conventions) -> tuple[tuple, list[str]]:
    """(key, tokens): graphs with equal keys are the same up to renaming tokens[i] to tokens[i]."""
    c = _Canon(conv)
    g = cfg.graph
    parts: list = [c.text(cfg.name), cfg.entry, cfg.exit, cfg.loc]
    parts.append(tuple((c.text(v) if v is not None else None, p) for v, p in cfg.params))
    for n in sorted(g.nodes):
        parts.append((n, c.value(g.nodes[n]["data"])))
        for s in sorted(g.successors(n)):
            e = g.edges[n, s]
            parts.append((s, tuple((k, c.value(e[k])) for k in sorted(e))))
    # Names last: display names of values, in the order the values were first met above.
    parts.append(tuple(sorted(((c.text(k), c.text(v)) for k, v in cfg.names.items()), key=repr)))
    parts.append(len(cfg.lambdas))
    which = conv.fingerprint()
    verdicts = tuple(_verdict(conv, which, t) for t in c.tokens)
    return (tuple(parts), verdicts), c.tokens


_VERDICTS: dict = {}


def _verdict(conv: Conventions, which: str, token: str) -> tuple:
    key = (which, token)  # by the conventions' content: ids of freed objects are reused
    v = _VERDICTS.get(key)
    if v is None:
        name = token.split("#", 1)[0]
        v = _VERDICTS[key] = (tuple(conv.matches(k, name) for k in CONVENTION_KINDS),
                              conv.condition_argument(name), conv.classify(name), conv.acquires_fresh(name))
        if len(_VERDICTS) > 200_000:
            _VERDICTS.clear()
    return v


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
    if isinstance(getattr(result, "incomplete", None), str):
        out.incomplete = rename(result.incomplete)
    return out


def renamed_finding(f: Finding, rename) -> Finding:
    g = copy.copy(f)
    g.function = rename(f.function)
    g.message = rename(f.message)
    g.path = [Step(s.location, rename(s.message)) for s in f.path]
    g.instantiations = [rename(x) for x in f.instantiations]
    return g
