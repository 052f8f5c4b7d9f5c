"""The reuse plan of one unit: which definitions are analysed, and which take whose result.

Two mechanisms pair identical generic instantiations (THFloatTensor_add, THDoubleTensor_add, ...):
instance keys (`instances.py`) before any graph is built, and class keys (`renaming.py`) on the
built graph. The engine asks this object, definition by definition, whether an outcome is
already known, and hands it each graph to analyse; the plan decides whether the analysis runs or
an earlier member's result is renamed. It fails conservatively: a definition without a key is
analysed on its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from refcheck.reuse.renaming import class_key, renamed_result, renamer

# Instance keys cost a walk over the unit's top-level cursors first (0.3 s on torch7's
# THTensor.c) and save a build per definition that shares an earlier one's key (about 20 ms each
# there): worth it from about this many definitions that could share.
INSTANCE_KEYS_FROM = 16


def _same(s: str) -> str:
    return s


@dataclass(frozen=True)
class Known:
    """An earlier member's outcome for a definition (None when that one had nothing to check),
    and the names of the summaries its check asked for, renamed for this one."""

    result: object | None
    asked: frozenset = frozenset()


class Plan:
    """Reuse decisions for the definitions of one parsed unit (`frontend.unit.Parsed`)."""

    def __init__(self, parsed, places: list, conv, selected: list[int], cached, share: bool,
                 instances=None, keys_from: int = INSTANCE_KEYS_FROM) -> None:
        """`places`: each definition's location; `selected`: the indices this run checks;
        `cached(i)`: whether the per-function cache serves definition i; `share`: off only to
        compare; `instances`: the unit's `Instances` when already made (`shared_instances`);
        `keys_from`: the definitions that could share from which instance keys pay (a group
        of a few taken from another shard pays with the walk already made)."""
        self.instances = instances
        self.conv = conv
        self.share = share
        # Definitions per place: only those at a place with several (a generic body's
        # instantiations) can share, so the others are not worth a key.
        self.sites = Counter(places[i] for i in selected)
        self.classes: dict = {}  # class key -> (the representative's result, its tokens)
        self.instance_keys: dict[int, tuple | None] = {}
        self.prebuilt: dict = {}  # instance key -> (result or None, the first member's names)
        self.alone: set = set()
        self.key_seconds = 0.0
        # The class key of the graph `analyse` is analysing (the graph, (key, tokens))), for the
        # process's sharing (`across`) to take instead of writing the same key again.
        self._keyed: tuple | None = None
        left = [i for i in selected if self.sites[places[i]] > 1 and not cached(i)] if share else []
        if _instances_pay(parsed, places, left, keys_from):
            self._key_instances(parsed, places, left)

    def _key_instances(self, parsed, places: list, left: list[int]) -> None:
        import time

        from refcheck.reuse.instances import Instances

        a = time.perf_counter()
        instances = self.instances if self.instances is not None else Instances(parsed, self.conv)
        groups: dict = {}
        functions = parsed.functions
        for index, got in zip(left, instances.keys([(functions[i], places[i]) for i in left])):
            self.instance_keys[index] = got
            groups.setdefault(places[index], set()).add(got[0] if got is not None else index)
        # Places where every definition left to build has one instance key: at most one graph
        # is built there, so no class key can find it a partner (class keys hold the place).
        self.alone = {place for place, keys in groups.items() if len(keys) == 1}
        self.key_seconds = time.perf_counter() - a

    def rechecking(self) -> None:
        """The definitions from here on are checked again (a summary they used changed), each
        built on its own, none taking an instance's outcome: several graphs may now be built at
        one place, so every place is class-keyed."""
        self.alone = set()

    def known(self, index: int) -> Known | None:
        """The outcome an earlier definition with the same instance key had, renamed for this one
        (the summaries it used too)."""
        instance = self.instance_keys.get(index)
        got = self.prebuilt.get(instance[0]) if instance is not None else None
        if got is None:
            return None
        result, names, asked = got
        rename = renamer(names, instance[1])
        return Known(None if result is None else renamed_result(result, rename), frozenset(map(rename, asked)))

    def skipped(self, index: int, asked: frozenset = frozenset()) -> None:
        """Definition `index` had nothing that could produce a finding: so do its instances."""
        instance = self.instance_keys.get(index)
        if instance is not None:
            self.prebuilt[instance[0]] = (None, instance[1], asked)

    def analyse(self, cfg, analyze) -> tuple[object, bool]:
        """`analyze(cfg)`, or an earlier member's result for an identical graph: (result, shared)."""
        if not (self.share and self.sites[cfg.loc] > 1 and cfg.loc not in self.alone):
            return analyze(cfg), False
        key, tokens = class_key(cfg, self.conv)
        got = self.classes.get(key)
        if got is not None:
            return renamed_result(got[0], renamer(got[1], tokens)), True
        self._keyed = (cfg, (key, tokens))
        try:
            res = analyze(cfg)
        finally:
            self._keyed = None
        self.classes[key] = (renamed_result(res, _same), tokens)
        return res, False

    def keyed(self, cfg) -> tuple | None:
        """(key, tokens): the class key `analyse` wrote for `cfg`, while it analyses that graph;
        else None. The same graph at the same moment: `class_key`'s value again."""
        got = self._keyed
        return got[1] if got is not None and got[0] is cfg else None

    def analysed(self, index: int, cfg, result, asked: frozenset = frozenset()) -> None:
        """Definition `index`'s own graph was analysed (asking for the summaries `asked`): later
        instances take its result."""
        instance = self.instance_keys.get(index)
        if instance is not None and not cfg.lambdas:
            self.prebuilt[instance[0]] = (renamed_result(result, _same), instance[1], asked)


def shared_instances(parsed, conv):
    """The unit's `Instances` (the walk of its top-level cursors), made once for the shares of a
    shared parse, where instance keys can be used at all; else None."""
    if parsed.language != "c" or not parsed.detailed:
        return None
    from refcheck.reuse.instances import Instances

    return Instances(parsed, conv)


def _instances_pay(parsed, places: list, left: list[int], keys_from: int = INSTANCE_KEYS_FROM) -> bool:
    """Whether enough of the definitions `left` to build could share an earlier one's key. C
    only: the keys are made for C (see instances.py)."""
    if parsed.language != "c" or not parsed.detailed:
        return False
    at = Counter(places[i] for i in left)
    return sum(n - 1 for n in at.values()) >= keys_from


@dataclass(frozen=True)
class Disagreement:
    """Two definitions an instance key groups whose graphs are not the same up to its renaming."""

    function: str
    first: str
    place: str
    problem: str


def verify(parsed, conv) -> tuple[int, int, list[Disagreement]]:
    """The invariant instance keys rest on, checked: every definition grouped with an earlier one
    has the same build verdict (skipped or built), the same class key, and the same tokens under
    the renaming the key pairs. Builds every keyed definition, so it is for tests and
    benchmarks/instances_check.py, never for a run. Returns (keyed, grouped, disagreements)."""
    from refcheck.frontend.builder import build_cfg_if_relevant
    from refcheck.frontend.clangutil import location
    from refcheck.reuse.instances import Instances
    from refcheck.reuse.renaming import TOKEN

    places = [location(fn) for fn in parsed.functions]
    sites = Counter(places)
    instances = Instances(parsed, conv)
    first: dict = {}
    keyed = grouped = 0
    wrong: list[Disagreement] = []
    for fn, place in zip(parsed.functions, places):
        got = instances.key(fn, place) if sites[place] > 1 else None
        if got is None:
            continue
        keyed += 1
        key, names = got
        cfg = build_cfg_if_relevant(fn, conv)
        ck = class_key(cfg, conv) if cfg is not None else None
        if key not in first:
            first[key] = (fn.spelling, names, ck)
            continue
        grouped += 1
        name0, names0, ck0 = first[key]
        problem = None
        if (ck0 is None) != (ck is None):
            problem = "one is skipped, the other built"
        elif ck is not None and ck0[0] != ck[0]:
            problem = "different graphs (class keys differ)"
        elif ck is not None:
            mapping = {a: b for a, b in zip(names0, names) if a != b}
            for a, b in zip(ck0[1], ck[1]):
                plain_a, plain_b = a.split("#", 1)[0], b.split("#", 1)[0]
                if TOKEN.fullmatch(plain_a) and mapping.get(plain_a, plain_a) != plain_b:
                    problem = f"renamed apart: {a} -> {b}, the instance key says {mapping.get(plain_a, plain_a)}"
                    break
        if problem:
            wrong.append(Disagreement(fn.spelling, name0, str(place), problem))
    return keyed, grouped, wrong
