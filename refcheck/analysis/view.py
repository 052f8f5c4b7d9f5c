"""The ownership states the analysis explores at each node, as text (`refcheck cfg --states`).

One line per distinct state reaching a node, taken before the node's ops run:
`t -> a3.0#0` binds variables to objects; `a3.0#0: acquire THFloatTensor_new owned=1` says what
is known of each object; `| ...` lists the branch facts.
"""

from __future__ import annotations

from refcheck.analysis.explore import Result, explore
from refcheck.analysis.state import Obj, State
from refcheck.ir.cfg import FunctionCFG
from refcheck.conventions import Conventions
from refcheck.rules.events import Gone, Nullness


def describe_obj(o: Obj) -> str:
    parts = [o.origin.name.lower(), o.name, f"owned={o.owned}"]
    if o.gone is not Gone.NO:
        parts.append(o.gone.name.lower())
    if o.null is not Nullness.MAYBE:
        parts.append(o.null.name.lower())
    if o.debt:
        parts.append(f"debt={o.debt}")
    if o.link is not None:
        parts.append(f"link={o.link.text()}")
    return " ".join(parts)


def describe(st: State, names: dict) -> str:
    env = ", ".join(f"{names.get(v, v)} -> {oid.text()}" for v, oid in sorted(st.env.items(), key=lambda kv:
                                                                                    names.get(kv[0], kv[0])))
    objs = "; ".join(f"{oid.text()}: {describe_obj(o)}" for oid, o in sorted(st.objs.items(),
                                                                           key=lambda kv: kv[0].text()))
    facts = ", ".join(st.facts.describe(names))
    text = "{" + env + "}" + (f" {objs}" if objs else "")
    return text + (f" | {facts}" if facts else "")


def state_table(cfg: FunctionCFG, conv: Conventions, rules=(), max_states: int = 50_000,
                seconds: float = 10.0, prune: bool = True) -> tuple[dict[int, list[str]], Result]:
    """Per node, the distinct states explored there (in exploration order), and the result."""
    table: dict[int, list[str]] = {}

    def observe(node: int, st: State) -> None:
        lines = table.setdefault(node, [])
        text = describe(st, cfg.names)
        if text not in lines:
            lines.append(text)

    result = explore(cfg, conv, rules, max_states, seconds, observe=observe, prune=prune)
    return table, result
