"""Checking the Golden Rule on every path of one function's CFG.

`state` holds the typed abstract state, `transfer` the transfer function of each IR op (it
emits typed events, `refcheck.rules.events`), `explore` the worklist over (node, state) pairs, and
`report` turns events into findings through the rules of `refcheck.rules`.
"""

from __future__ import annotations

from dataclasses import replace

from refcheck.analysis.constresults import constant_if_null, result_constant
from refcheck.analysis.explore import FACT_VARIANTS, Result, explore
from refcheck.analysis.prepass import first_pass
from refcheck.ir.cfg import FunctionCFG
from refcheck.conventions import Conventions
from refcheck.conventions.summary import Source
from refcheck.rules import RULES

__all__ = ["FACT_VARIANTS", "Result", "analyze"]


def analyze(cfg: FunctionCFG, conv: Conventions, max_states: int = 50_000, seconds: float = 10.0) -> Result:
    """The function's check: the first pass's proof where it finds one (`prepass`), else its
    exploration; its record with the constants its returns give (`constresults`, read off the graph)."""
    result = first_pass(cfg, conv, lambda **kw: explore(cfg, conv, RULES.values(), max_states, seconds, **kw))
    if result.incomplete:
        return result
    always, if_null = result_constant(cfg), constant_if_null(cfg)
    if always is None and not if_null:
        return result
    summary = replace(result.summary, result_constant=always, constant_if_null=if_null, source=Source.INFERRED)
    return replace(result, summary=summary)
