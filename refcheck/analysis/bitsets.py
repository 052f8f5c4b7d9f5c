"""Sets of names as bits of an int, and the backward fixpoint over them that liveness and null
liveness share: it revisits the nodes of TH's nested APPLY loops many times."""

from __future__ import annotations


class Bits:
    """Names to bits (`of`) and bit sets back to frozensets of names (`set_of`, each made once)."""

    def __init__(self, bit: dict[str, int] | None = None) -> None:
        self.bit: dict[str, int] = {} if bit is None else bit
        self._name: dict[int, str] | None = None
        self._sets: dict[int, frozenset] = {0: frozenset()}

    def of(self, names) -> int:
        b = 0
        bit = self.bit
        for v in names:
            if v is not None:
                i = bit.get(v)
                if i is None:
                    # int(): compiled by Cython (benchmarks/compiled.py), `1 << len(...)` is a shift
                    # of C ints, wrong from bit 31 on
                    i = bit[v] = 1 << int(len(bit))
                b |= i
        return b

    def set_of(self, b: int) -> frozenset:
        got = self._sets.get(b)
        if got is None:
            if self._name is None or len(self._name) != len(self.bit):
                self._name = {i: v for v, i in self.bit.items()}
            out = []
            rest = b
            while rest:
                low = rest & -rest
                out.append(self._name[low])
                rest ^= low
            got = self._sets[b] = frozenset(out)
        return got



class LazySets(dict):
    """Per node, the frozenset of names its bit set holds (`Bits.set_of`), made when the node is
    first read (`__missing__`; a hit is a plain dict lookup). The pruner reads only the nodes an
    exploration visits, and the comparisons that the tables serve (`quiet_edges`, `_mirrors`,
    `Liveness.died`) test `bits` directly: converting every node up front was about 16,000
    conversions on simplejson, a sixth of the liveness's cost."""

    def __init__(self, names: Bits, bits_by_node: dict) -> None:
        super().__init__()
        self.bits = bits_by_node
        self._names = names

    def __missing__(self, n) -> frozenset:
        b = self.bits[n]  # a node the graph does not have raises KeyError, as a dict would
        got = self._names._sets.get(b)
        if got is None:
            got = self._names.set_of(b)
        self[n] = got
        return got

    def complete(self) -> dict:
        """Every node's set (tests, dumps)."""
        return {n: self[n] for n in self.bits}

    def __eq__(self, other) -> bool:
        return self.complete() == (other.complete() if isinstance(other, LazySets) else other)

    def __ne__(self, other) -> bool:  # dict's own would compare the nodes made so far
        return not self == other

    __hash__ = None  # type: ignore[assignment]


def backward(g, gens: tuple[dict, ...], keeps: tuple[dict, ...]) -> list[dict]:
    """Per problem i, the least fixpoint live_i(n) = gens[i][n] | (OR of live_i over n's
    successors & keeps[i][n]), bits per node. The problems are solved as one: each gets its own
    field of one int (a node's live bits are always among the problem's gen bits, so the field is
    as wide as the widest gen), and the worklist does one OR per successor instead of one per
    problem (THNN's and simplejson's liveness tables were a tenth of their exploring)."""
    shifts, gen, keep = _packed(g, gens, keeps)
    live = dict.fromkeys(g.nodes, 0)
    succ, pred = g.succ, g.pred
    work = list(g.nodes)
    queued = set(work)
    while work:
        n = work.pop()
        queued.discard(n)
        out = 0
        for s in succ[n]:
            out |= live[s]
        new = gen[n] | (out & keep[n])
        if new != live[n]:
            live[n] = new
            for p in pred[n]:
                if p not in queued:
                    queued.add(p)
                    work.append(p)
    if len(gens) == 1:
        return [live]
    masks = [(1 << (b - a)) - 1 for a, b in zip(shifts, shifts[1:])]
    return [{n: (x >> a) & m for n, x in live.items()} for a, m in zip(shifts, masks)]


def solve_together(g, parts) -> None:
    """Solve the backward problems of several tables of one graph in one fixpoint (`backward`):
    each part holds `problem` ((gens, keeps), as `backward` takes them) and takes its solutions
    in `solved(lives)`. The pruner's three tables (bindings and facts, null tests, branch
    answers) were three worklists over the same nodes; one costs one pass of them."""
    gens: tuple = ()
    keeps: tuple = ()
    for part in parts:
        gens += part.problem[0]
        keeps += part.problem[1]
    lives = backward(g, gens, keeps)
    at = 0
    for part in parts:
        width = len(part.problem[0])
        part.solved(lives[at:at + width])
        at += width


def _packed(g, gens: tuple[dict, ...], keeps: tuple[dict, ...]) -> tuple[list[int], dict, dict]:
    """The problems' fields' offsets (and, last, the end of the last field), and per node the
    packed gen and keep bits (a keep masked to its field: keeps are complements, so negative)."""
    if len(gens) == 1:
        return [0, 0], gens[0], keeps[0]
    shifts = [0]
    for gen in gens:
        shifts.append(shifts[-1] + max((b.bit_length() for b in gen.values()), default=0))
    gen_p: dict = {}
    keep_p: dict = {}
    fields = list(zip(shifts, [(1 << (b - a)) - 1 for a, b in zip(shifts, shifts[1:])], gens, keeps))
    for n in g.nodes:
        gb = kb = 0
        for a, m, gen, keep in fields:
            gb |= gen[n] << a
            kb |= (keep[n] & m) << a
        gen_p[n] = gb
        keep_p[n] = kb
    return shifts, gen_p, keep_p
