"""The first pass's screen: whether a function's ops, conditions and node kinds are all ones
whose effect on owned objects `prepass._Flow` follows exactly, and its acquisition sites."""

from __future__ import annotations

from dataclasses import dataclass

from refcheck import ir
from refcheck.analysis import mustsizes
from refcheck.analysis.slicing import all_ops, graph_alias_classes
from refcheck.ir.cfg import FunctionRole
from refcheck.conventions.summary import Effect, Source


class Unknown(Exception):
    """Something the pass does not follow exactly, or an event the exploration could emit."""


# The ops whose effect on acquired objects `_Flow` follows; any other op makes the answer UNKNOWN.
INERT = (ir.Call, ir.Count, ir.SameSize, ir.Touch, ir.Const)
CONDS = (type(None), ir.NullTest, ir.Fact, ir.SizeTest, ir.SameObject, ir.Opaque)
KINDS = frozenset(("entry", "block", "branch", "switch", "return", "exit", "error", "stop"))


@dataclass(frozen=True)
class Plan:
    """What screening learned: the acquisition sites and the families of their objects."""

    sites: tuple  # (node, op index) of each acquisition
    families: dict  # site -> the acquired object's family (`Conventions.family`)
    data: dict  # node -> its ir Node (the graph's view costs a call per lookup)
    sizes: "mustsizes.MustSizes | None"  # where the function tests sizes: the facts' transfer


def screen(cfg, conv) -> Plan:
    if conv.is_primitive(cfg.name) or cfg.role is not FunctionRole.PLAIN or conv.returns_owned(cfg.name):
        raise Unknown("a primitive, a destructor or a function returning a new reference")
    own = conv.summary(cfg.name, library=False)
    if own.source is Source.CONFIGURED and own.positions(Effect.CONSUME, len(cfg.params)):
        raise Unknown("a parameter owned from entry")
    data = dict(cfg.graph.nodes(data="data"))
    if any(d is None for d in data.values()):
        raise Unknown("a node without its data")
    ops = all_ops(cfg)
    classes = _Classes(cfg, ops)
    sites, families = [], {}
    for n, d in data.items():
        if d.kind not in KINDS or not isinstance(d.cond, CONDS):
            raise Unknown("a node or condition not followed")
        if d.kind == "return" and d.value is not None:
            raise Unknown("a value handed back")
        _screen_cond(d.cond, classes)
        for i, op in enumerate(d.ops):
            if type(op) is ir.Acquire:
                sites.append((n, i))
                families[(n, i)] = conv.family(op.callee, op.family, not op.scalars)
        for op in (*d.ops, *d.post):
            _screen_op(op, classes, conv.infer_setters)
        if any(type(op) is ir.Acquire for op in d.post):
            raise Unknown("an acquisition on a branch edge")
    sizes = mustsizes.MustSizes(cfg, conv, ops, classes.acquired) if mustsizes.has_size_tests(data) else None
    return Plan(tuple(sites), families, data, sizes)


def _screen_op(op, classes: "_Classes", setters: bool) -> None:
    t = type(op)
    if t is ir.Acquire:
        # An acquirer that may return its argument (newContiguous) gives a fresh object unless
        # that argument is one of ours (`Transfer.reacquired`: one more reference on it).
        if (op.source is not None and classes.acquired(op.source)) or op.unless:
            raise Unknown("an acquirer that may return an acquired object")
    elif t is ir.Release:
        # A loaded location's value released is no event (`Endings.release`: not counted here);
        # only the summary's frees_contents reads it, where setters are inferred.
        if op.consume or op.cleanup or any(classes.borrowed(v, setters) for v in op.vars):
            raise Unknown("a release of a parameter or a call's result")
    elif t is ir.Store:
        if op.sink or op.floating or op.member or op.overwrites or (op.var is not None and classes.counted(op.var)):
            raise Unknown("a store of a parameter or an acquired object")
    elif t not in (ir.Assign, ir.Kill, ir.Use, ir.Load, ir.Escape, ir.Shift) and t not in INERT:
        raise Unknown(f"an op not followed: {t.__name__}")


def _screen_cond(cond, classes: "_Classes") -> None:
    # A pointer comparison (or an asserted one, `Transfer.equate`) may make a variable of
    # another class hold an acquired object: not followed.
    if isinstance(cond, ir.SameObject) and (classes.acquired(cond.a) or classes.acquired(cond.b)):
        raise Unknown("an acquired object compared")
    if isinstance(cond, ir.Fact) and cond.same is not None and classes.acquired(cond.same[0]):
        raise Unknown("an acquired object compared with a singleton")


class _Classes:
    """Which values a variable may hold, per alias class: joined by assignment, and by loads
    and stores of one location (a load gives back what a store there put)."""

    def __init__(self, cfg, ops):
        # The same classes the slicing's tables join (`slicing.alias_classes`).
        self.find, _ = graph_alias_classes(cfg)
        self.params = {self.find(v) for v, is_ptr in cfg.params if v is not None and is_ptr}
        self.sites = {self.find(op.dst) for op in ops if type(op) is ir.Acquire}
        # Loaded values: the borrowed results of calls (`Origin.RESULT`), and values read from
        # memory (`Origin.FIELD`, whose release is no event: `Endings.release`).
        self.results = {self.find(op.dst) for op in ops if type(op) is ir.Load and op.call}
        self.views = {self.find(op.dst) for op in ops if type(op) is ir.Load}

    def acquired(self, v: str) -> bool:
        return self.find(v) in self.sites

    def borrowed(self, v: str, loads: bool) -> bool:
        """May hold a parameter or a call's result (releasing either is an event or a fate), or
        (`loads`) a value loaded from memory."""
        r = self.find(v)
        return r in self.params or r in self.results or (loads and r in self.views)

    def counted(self, v: str) -> bool:
        """May hold a parameter or an acquired object (storing either hands it on)."""
        r = self.find(v)
        return r in self.params or r in self.sites
