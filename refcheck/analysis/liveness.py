"""Forgetting what no later node can read: dead variables' unowned objects and their facts.

States that differ only in what a dead variable holds (a released temporary, the NULL a counter
pointer was initialised with before `THFree`d) or in facts about dead variables (`elements_equal
== 0` after the size check) are the same state for everything that follows, but the worklist
would explore them apart. Two backward liveness analyses decide what can still be read:

- *env*: a variable is live where some path reaches an op that reads its binding before one that
  overwrites it (`Assign`, `Load`, `Acquire`, `Realloc` and `Kill` destinations, `Escape`).
- *facts*: a variable is live where some path reaches a read of it (any mention, a condition or
  a switch over it included) before an op whose transfer invalidates facts about it (`Transfer.
  bind` on a non-temporary, `Escape`, `Touch`).

At a node's entry, for an object nothing owns (so no leak is pending and none can be reported)
that no stored fact or realloc link points to:

- when all its holders are dead it is dropped with every binding of it, unless it is a loaded
  location that a `Load` of the same text on some path from here would find again (`keys`; a
  location written since it was loaded, Kind.STALE, is found by none): no later transfer can
  observe it. `Py_CLEAR(s->a); Py_CLEAR(s->b); ...` would otherwise keep each field's NULL or
  released object apart and double the states at each one. A location known to hold NULL is
  dropped even where such a load may follow: its NULL arm and its released arm leave the same
  field, and a loop's `Py_CLEAR(self->cache[0..2])` otherwise kept 8 combinations of known NULLs
  apart at the loop's head (apsw's APSWCursor_step: 20,056 -> 1,999 states);
- when some holder is live, a dead holder is unbound only if it can never be the name a message
  gives the object (a temporary, or a variable spelled like a live named holder: the macro
  expansions of `TH_TENSOR_APPLY` declare `rowS_data` once per expansion). The object then stays
  reachable through its live holders exactly as before.

A fact is dropped when a variable it mentions is dead: every path to a test of it passes an
invalidation of it first. Every mention counts as a read, so the analysis errs on keeping things.
"""

from __future__ import annotations

from dataclasses import dataclass

from refcheck import ir
from refcheck.analysis import nullness
from refcheck.analysis.bitsets import Bits, LazySets, backward, solve_together
from refcheck.analysis.condlive import CondLiveness
from refcheck.analysis.sizes import Same
from refcheck.analysis.state import Kind, State
from refcheck.rules.events import Nullness, Origin


_PARAM, _NULL, _RETAIN = Kind.PARAM, Nullness.NULL, Origin.RETAIN


def _op_effect(op) -> tuple[tuple, tuple, tuple]:
    """(env kills, fact kills, reads) of one op."""
    t = type(op)
    if t is ir.Assign:
        src = (op.src,) if op.src is not None else ()
        return (op.dst,), (() if op.dst.startswith("$") else (op.dst,)), src
    if t is ir.Load:
        return (op.dst,), (() if op.dst.startswith("$") else (op.dst,)), tuple(op.deps)
    if t is ir.Kill:
        return (op.var,), (() if op.var.startswith("$") else (op.var,)), ()
    if t is ir.Acquire:
        return (op.dst,), (), ()
    if t is ir.Realloc:
        return (op.dst,), (), ((op.src,) if op.src is not None else ())
    if t is ir.Escape:  # facts some of which it spares stay live across it
        return (op.var,), (() if op.spared else (op.var,)), ()
    if t is ir.Touch:
        return (), (op.var,), (op.var,)
    if t is ir.Shift:
        return (op.dst,), (op.dst,), (op.src,)
    if t is ir.Release:
        return (), (), tuple(op.vars)
    if t is ir.Call:
        return (), (), tuple(a for a in op.args if a is not None)
    if t is ir.Store:
        return (), (), (*((op.var,) if op.var is not None else ()), *op.deps)
    if t is ir.SameSize:
        return (), (), tuple(v for v in (op.a, op.b) if v is not None)
    if t is ir.Count:
        return (), (), (op.var, op.tensor)
    var = getattr(op, "var", None)  # Use, Retain, Const
    return (), (), ((var,) if var is not None else ())


def effects():
    """`_op_effect` once per op: the liveness, the constants' transfer and `condlive` each ask it
    of every op of a graph (three times per op on THTensor.c). Keyed by identity: the graph
    holds its ops while its tables are made, so no key is reused meanwhile."""
    memo: dict[int, tuple] = {}
    get = memo.get

    def effect(op) -> tuple[tuple, tuple, tuple]:
        e = get(id(op))
        if e is None:
            e = memo[id(op)] = _op_effect(op)
        return e
    return effect


def _const_effect(op, effect=_op_effect) -> tuple[tuple, tuple]:
    """(kills, reads) of one op for the constant facts (`Liveness.consts`): only a `Shift` reads
    a variable's constant (into another variable's); `i++` passes it on to `i` itself, so its
    constant is needed before exactly where it is needed after. The kills are the fact kills
    and a `Const` (`Transfer.op_const` sets the value or its exclusion anew)."""
    t = type(op)
    if t is ir.Shift:
        return ((), ()) if op.src == op.dst else ((op.dst,), (op.src,))
    if t is ir.Const:
        return (op.var,), ()
    return effect(op)[1], ()


def _const_reads(d) -> tuple:
    """The variables whose constant a node's own test reads: a comparison with a constant
    (`Assumptions.assume_simple`, a size test's fallback too), a switch (`assume_case`), a
    returned value (`Summarizer.at_return`)."""
    cond = d.cond.fallback if isinstance(d.cond, ir.SizeTest) else d.cond
    out = [cond.simple[0]] if isinstance(cond, ir.Fact) and cond.simple else []
    if isinstance(d.value, str):
        out.append(d.value)
    return tuple(out)


def _node_reads(d) -> tuple:
    cond = d.cond
    out: list = []
    if isinstance(cond, ir.NullTest):
        out.append(cond.var)
    elif isinstance(cond, ir.SameObject):
        out += [cond.a, cond.b]
    elif isinstance(cond, ir.Fact):
        out += cond.vars
        if cond.simple:
            out.append(cond.simple[0])
    elif isinstance(cond, ir.SizeTest):
        out += [cond.a, cond.b]
        if cond.fallback is not None:
            out += cond.fallback.vars
            if cond.fallback.simple:
                out.append(cond.fallback.simple[0])
    if isinstance(d.value, str):  # a switch's variable, a returned value
        out.append(d.value)
    return tuple(out)


class Liveness:
    """Per node, the variables live at its entry, for bindings (`env`), for facts (`facts`) and
    for their constant values (`consts`: a test against a constant, a switch, a `Shift` into
    another variable or a return reads it before an invalidation; a subset of `facts`)."""

    def __init__(self, cfg, solve: bool = True, effect=_op_effect):
        """`solve`: False leaves the fixpoint to the caller (`bitsets.solve_together`);
        `effect`: `_op_effect` or a memo of it (`effects`)."""
        g = cfg.graph
        # Sets of variables as bits of an int: the fixpoint revisits nodes many times (TH's
        # APPLY loops nest four deep), and a node's ops compose into one transfer,
        # live_in = gen | (live_out & ~kill), for bindings and for facts alike.
        names = Bits()
        bits = names.of

        gen_e: dict[int, int] = {}
        kill_e: dict[int, int] = {}
        gen_f: dict[int, int] = {}
        kill_f: dict[int, int] = {}
        touched: dict[int, int] = {}  # the variables a node mentions at all
        gen_c: dict[int, int] = {}
        kill_c: dict[int, int] = {}
        set_c: dict[int, int] = {}  # the variables a node's ops may give a constant (`Const`, `Shift`)
        key_bit, gen_k = _load_keys(g)
        for n, d in g.nodes(data="data"):
            if not d.ops and not d.post:  # 39% of THTensor.c's explored nodes: reads alone
                touched[n] = gen_e[n] = gen_f[n] = bits(_node_reads(d))
                kill_e[n] = kill_f[n] = kill_c[n] = -1
                gen_c[n] = bits(_const_reads(d))
                continue
            gen_c[n], kill_c[n], set_c[n] = _const_transfer(d, bits, effect)
            seq = [effect(op) for op in reversed(d.post)]
            seq.append(((), (), _node_reads(d)))
            seq += [effect(op) for op in reversed(d.ops)]
            ge = ke = gf = kf = t = 0
            for k_e, k_f, reads in seq:  # in backward order: X -> (X - kills) | reads
                r = bits(reads)
                t |= r
                if k_e:
                    k = bits(k_e)
                    ge &= ~k
                    ke |= k
                    t |= k
                if k_f:
                    k = bits(k_f)
                    gf &= ~k
                    kf |= k
                    t |= k
                ge |= r
                gf |= r
            gen_e[n], kill_e[n], gen_f[n], kill_f[n] = ge, ~ke, gf, ~kf
            touched[n] = t
        # Load keys are never killed: a key loaded on some path from a node stays live there.
        self.problem = ((gen_e, gen_f, gen_k, gen_c), (kill_e, kill_f, dict.fromkeys(g.nodes, -1), kill_c))
        self.names = names
        self._key_bit = key_bit
        self.touched = touched
        self._set_c = set_c
        self._died: dict[tuple, frozenset] = {}
        self._died_c: dict[tuple, frozenset] = {}
        if solve:
            self.solved(backward(g, *self.problem))

    def solved(self, lives) -> None:
        """Take the fixpoint's solution (`problem`'s three, in order)."""
        env, facts, keys, consts = lives
        self.problem = None  # the gen and kill tables are not read again
        # As sets of names only for the nodes read (`LazySets`); comparisons use the bits.
        self.env = LazySets(self.names, env)
        # Per node, the load keys that some path from its entry loads.
        self.keys = LazySets(Bits(self._key_bit), keys)
        self.facts = LazySets(self.names, facts)
        self.consts = LazySets(self.names, consts)

    def read_after(self, g, node: int, index: int, var: str) -> bool:
        """Whether some path from after op `index` of `node` reads `var`'s binding before
        overwriting it (`Transfer.op_escape`: a holder no later op reads cannot release)."""
        d = g.nodes[node]["data"]
        seq = [_op_effect(op) for op in d.ops[index + 1:]]
        seq.append(((), (), _node_reads(d)))
        seq += [_op_effect(op) for op in d.post]
        for kills, _, reads in seq:  # forward: an op reads before it overwrites
            if var in reads:
                return True
            if var in kills:
                return False
        return any(var in self.env[s] for s in g.successors(node))

    def consts_died(self, pred: int, succ: int) -> frozenset:
        """The variables whose constant may be known leaving `pred` (live there, or given one
        by its ops) and is dead at `succ`: the others' were already dropped at `pred`."""
        out = self._died_c.get((pred, succ))
        if out is None:
            consts = self.consts.bits
            b = (consts[pred] | self._set_c.get(pred, 0)) & ~consts[succ]
            out = self._died_c[pred, succ] = self.names.set_of(b)  # once per edge
        return out

    def died(self, pred: int, succ: int) -> frozenset:
        """The variables that may be live (for facts) or mentioned in `pred` and are dead at `succ`:
        facts over any other variable dead at `succ` were already forgotten at `pred`."""
        out = self._died.get((pred, succ))
        if out is None:
            facts = self.facts.bits
            b = (facts[pred] | self.touched[pred]) & ~facts[succ]
            out = self._died[pred, succ] = self.names.set_of(b)  # once per edge
        return out


def _const_transfer(d, bits, effect=_op_effect) -> tuple[int, int, int]:
    """A node's (gen, keep, set) for `Liveness.consts`: its ops and post ops backward; its own
    test's reads count at its entry (before its ops: keeping more is the safe side); `set`: the
    variables its ops may give a constant (a branch's own edges give one only to what it reads)."""
    gen = kill = made = 0
    for op in (*reversed(d.post), *reversed(d.ops)):
        kills, reads = _const_effect(op, effect)
        if kills:
            k = bits(kills)
            gen &= ~k
            kill |= k
        if reads:
            gen |= bits(reads)
        t = type(op)
        if t is ir.Const:
            made |= bits((op.var,))
        elif t is ir.Shift:
            made |= bits((op.dst,))
    return gen | bits(_const_reads(d)), ~kill, made


def _load_keys(g) -> tuple[dict[str, int], dict[int, int]]:
    """Load keys (`ir.Load.key`) as bits, and per node the keys it loads: a loaded location's
    object is found again only by a later load of the same text, so once none can follow, it is
    as dead as a variable."""
    key_bit: dict[str, int] = {}
    gen_k: dict[int, int] = {}
    for n, d in g.nodes(data="data"):
        kb = 0
        for op in (*d.ops, *d.post):
            if type(op) is ir.Load and op.key:
                # int(): compiled by Cython (benchmarks/compiled.py), `1 << len(...)` is a shift
                # of C ints, wrong from bit 31 on
                kb |= key_bit.setdefault(op.key, 1 << int(len(key_bit)))
        gen_k[n] = kb
    return key_bit, gen_k


@dataclass(frozen=True)
class PruneTables:
    """What a pruner reads of the graph, made once per function: a function that steals
    parameters is explored twice (`explore`) over the same graph and branches."""

    live: Liveness
    # Where a null test's answer can still be read (`nullness`); None where no state can know a
    # nullness to forget (`nullness.tests_nullness`).
    null: LazySets | None
    # The edges where forgetting has nothing to do (half of the calls on THTensor.c).
    quiet: frozenset
    # Remembered branch answers no later branch reads (`condlive`); None: none can be dropped.
    conds: CondLiveness | None = None

    @classmethod
    def of(cls, cfg, relevant: set[int] | None = None, skip_quiet: bool = True,
           cond_vars: dict | None = None, droppable: frozenset = frozenset()) -> PruneTables:
        """`relevant`: the branches that matter (`slicing.relevant_branches`), None: all;
        `droppable`: the remembered condition keys only branches read (`condlive.droppable_keys`)."""
        effect = effects()
        live = Liveness(cfg, solve=False, effect=effect)
        null_live = nullness.NullLiveness(cfg, relevant, solve=False) if nullness.tests_nullness(cfg) else None
        conds = CondLiveness(cfg, cond_vars or {}, droppable, effect, solve=False) if droppable else None
        solve_together(cfg.graph, [p for p in (live, null_live, conds) if p is not None])
        null = null_live.live if null_live is not None else None
        quiet = nullness.quiet_edges(cfg, null) if null is not None and skip_quiet else frozenset()
        return cls(live, null, quiet, conds)


class Pruner:
    def __init__(self, cfg, cond_vars: dict, pairs: frozenset = frozenset(), relevant: set[int] | None = None,
                 skip_quiet: bool = True, tables: PruneTables | None = None, fated: frozenset | None = None,
                 droppable: frozenset = frozenset()):
        """`tables`: made by an earlier pruner of the same graph with the same `relevant`,
        `skip_quiet` and `droppable`, else made here; `fated`: `nullness.fated_parameters` of the
        graph, when the caller has it (the transfer does); `droppable`: `condlive.droppable_keys`."""
        if tables is None:
            tables = PruneTables.of(cfg, relevant, skip_quiet, cond_vars, droppable)
        self.tables = tables
        self.live, self.null, self.quiet = tables.live, tables.null, tables.quiet
        self.conds = tables.conds
        # The nodes where a join dropped a stored fact (`explore`), after which forgetting may
        # have something to do on a quiet edge.
        self.rejoined: set[int] = set()
        self.fated = nullness.fated_parameters(cfg) if fated is None else fated
        self.cond_vars = cond_vars
        # Pointer comparisons' keys: found equal, two pointers share their nullness, so a later
        # null test of either one decides the other; such a fact lives while either side does.
        self.pairs = pairs
        self.names = cfg.names
        self._dead_conds: dict[int, frozenset] = {}

    def dead_conds(self, died: frozenset) -> frozenset:
        """The condition keys that mention a variable in `died`."""
        out = self._dead_conds.get(died)
        if out is None:
            out = self._dead_conds[died] = frozenset(k for k, vs in self.cond_vars.items() if not vs.isdisjoint(died))
        return out

    def _unbind(self, st: State, node: int, live, candidates: list) -> bool:
        """Drop the dead bindings among `candidates` that no message needs, and the objects
        left without a holder; whether any binding went (`__call__`, where something died)."""
        env, objs = st.env, st.objs
        unbound = False
        names = self.names
        pinned = {o.link for o in objs.values() if o.link is not None}
        pinned.update(st.facts.stored.values())
        # A size fact names variables, and `sizes.known_equal` links a dead one to live
        # ones through the object it holds: its binding must stay.
        sized = set()
        for k, x in st.facts.sizes.items():
            sized.update((k.a, k.b) if type(k) is Same else (x,))
        holders: dict = {}
        for h, x in env.items():
            holders.setdefault(x, []).append(h)
        for v in candidates:
            oid = env.get(v)
            if oid is None or oid in pinned or v in sized:
                continue
            held = holders[oid]
            if any(h in live for h in held):
                # Still reachable: drop only a dead holder that can never name it in a
                # message (a temporary, or one spelled like a live named holder).
                shown = names.get(v, v)
                if v.startswith("$") or any(h in live and not h.startswith("$") and names.get(h, h) == shown
                                            for h in held):
                    del env[v]
                    held.remove(v)
                    unbound = True
                continue
            if oid.kind is Kind.FIELD and oid.site in self.live.keys[node] and objs[oid].null is not _NULL:
                # A later load of the same text would find it again. Not a NULL: no reference
                # to find, and Py_CLEAR's other arm (the store of NULL) kept nothing either.
                continue
            for h in held:
                del env[h]
            held.clear()
            del objs[oid]
        return unbound

    def __call__(self, node: int, st: State, pred: int | None = None) -> None:
        """Forget in `st` (about to enter `node` from `pred`) what no later node can read. With
        `pred`, only what died on the edge is looked at (the rest was looked at in `pred`)."""
        env = st.env
        live = self.live.env[node]
        # Bindings are all looked at: a dead holder kept for its name may go once a live holder
        # spelled alike appears, which is no death on this edge.
        dead = env.keys() - live
        unbound = False  # a holder dropped: what it held may have no holder left that is read
        if pred is None:
            died_f = frozenset(v for k in st.facts.conds for v in self.cond_vars.get(k, ())) - self.live.facts[node]
        else:
            died_f = self.live.died(pred, node)
        if dead:
            objs = st.objs
            # A parameter released or stored keeps its object: the function's summary reads it
            # at the path's end (`summarize`); so does one whose own reference was handed over
            # (`shared`: kept, as `Py_INCREF (key)` then a call storing it on 0 keeps it).
            # (`state.param_fate`, inlined: this runs at every node for every dead binding.)
            candidates = []
            for v in dead:
                oid = env[v]
                o = objs[oid]
                if not o.owned and not (oid.kind is _PARAM and oid.site in self.fated
                                        and (o.gone or o.debt or o.shared or o.null is _NULL or o.floated)):
                    candidates.append(v)
            if candidates:  # a call only here: what follows walks every object and binding anyway
                unbound = self._unbind(st, node, live, candidates)
        if self.null is not None and (unbound or (pred, node) not in self.quiet or pred in self.rejoined):
            nullness.forget(st, self.null[node], self.fated)
        facts = st.facts
        if not facts:
            return
        if facts.consts or facts.excluded:
            # A constant no later test, switch, return or shift reads before an invalidation
            # (`Liveness.consts`), however live its variable: a loop counter set to 0 that is
            # compared with 0 only after its next assignment (TH_TENSOR_APPLY's `t_i`).
            if pred is None:
                died_c = (facts.consts.keys() | facts.excluded.keys()) - self.live.consts[node]
            else:
                died_c = self.live.consts_died(pred, node)
            if died_c:
                for d in (facts.consts, facts.excluded):
                    if d:
                        for v in died_c & d.keys():
                            del d[v]
        if facts.conds and self.conds is not None:  # answers no later branch reads (`condlive`)
            self.conds.drop(pred, node, facts.conds)
        if not died_f:
            return
        if facts.conds:
            alive = self.live.facts[node]
            for k in facts.conds.keys() & self.dead_conds(died_f):
                if k in self.pairs and not self.cond_vars[k].isdisjoint(alive):
                    continue
                del facts.conds[k]
