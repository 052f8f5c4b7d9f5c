"""What a join of NULL-or-owned states could save at most, on one unit (a measurement, not a test).

    python -m tests.analysis.nulljoin_bound UNIT [--errors unwind] [--forget SUBSTR] [-- CLANG_ARGS...]

Every function is explored as the engine explores it; at each node the states seen are counted
three ways: distinct (core, facts), the explorer's own key; distinct (core up to NULL-or-owned,
facts), where a variable holding a known NULL and one holding a fresh owned acquisition nothing
else knows of (not escaped, shared, kept, owed, linked, nor named by a stored fact) count as one;
and the same with the integer constants of variables whose name contains SUBSTR forgotten too
(`--forget contiguous`: TH_TENSOR_APPLY's `*_contiguous`, which decide its counters). The second
count bounds what a join that keeps facts exact could reach, the third what one that drops the
deciding constants could, before whatever the lost facts would split again
(docs/history/performance.md, "Eleventh session: NULL-or-owned joins").
"""

from __future__ import annotations

import collections
import json
import sys

from refcheck.analysis.state import Kind, State
from refcheck.rules.events import Gone


def _fresh_owned(st: State) -> set:
    """The objects a NULL-or-owned join could stand for: fresh, owned once, known to no one else."""
    named = set(st.facts.stored.values())
    for o in st.objs.values():
        if o.link is not None:
            named.add(o.link)
        named.update(o.may_be)
    return {oid for oid, o in st.objs.items()
            if oid.kind is Kind.ACQUIRE and o.owned == 1 and o.gone is Gone.NO and oid not in named
            and not (o.escaped or o.debt or o.paid or o.shared or o.kept or o.link or o.may_be or o.by_location)}


def null_or_owned_core(st: State) -> tuple:
    """`State.core` with each variable holding NULL or a fresh owned object spelled alike."""
    fresh = _fresh_owned(st)
    env = frozenset((v, "null-or-owned" if oid.kind is Kind.NULL or oid in fresh else oid) for v, oid in st.env.items())
    objs = frozenset((k, o.cid) for k, o in st.objs.items()
                     if k not in fresh and k.kind is not Kind.NULL)
    return env, objs


def facts_key(st: State, forget: str | None = None) -> tuple:
    f = st.facts
    consts = frozenset((k, v) for k, v in f.consts.items() if forget is None or forget not in k)
    return (frozenset(f.conds.items()), consts, frozenset(f.excluded.items()), frozenset(f.stored.items()),
            frozenset(f.sizes.items()))


def count(cfg, conv, forget: str | None) -> tuple:
    from refcheck.analysis.explore import explore
    from refcheck.rules import RULES
    per: dict = collections.defaultdict(list)
    res = explore(cfg, conv, RULES.values(), observe=lambda n, s: per[n].append(s))
    exact = sum(len({(s.core(), facts_key(s)) for s in ss}) for ss in per.values())
    joined = sum(len({(null_or_owned_core(s), facts_key(s)) for s in ss}) for ss in per.values())
    dropped = sum(len({(null_or_owned_core(s), facts_key(s, forget)) for s in ss}) for ss in per.values())
    return res.states, exact, joined, dropped


def main(argv: list[str]) -> int:
    from refcheck.conventions import Conventions
    from refcheck.frontend.builder import build_cfg
    from refcheck.frontend.unit import parse

    clang_args = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    opts = {"--errors": "abort", "--forget": None}
    for name in opts:
        if name in argv:
            i = argv.index(name)
            opts[name] = argv[i + 1]
            del argv[i:i + 2]
    conv = Conventions(errors=opts["--errors"])
    queue = list(parse(argv[0], clang_args).functions)
    totals = [0, 0, 0, 0]
    while queue:
        cfg = build_cfg(queue.pop(0), conv)
        queue[:0] = cfg.lambdas
        for i, n in enumerate(count(cfg, conv, opts["--forget"])):
            totals[i] += n
    keys = ("states", "node_core_facts", "null_or_owned_exact_facts", "null_or_owned_forgotten")
    print(json.dumps(dict(zip(keys, totals))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
