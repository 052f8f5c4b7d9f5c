"""The locations a function writes through its pointer parameters, read off its graph before
its exploration (the summarizer's out-parameter slots, the transfer's flag targets)."""

from __future__ import annotations

from refcheck import ir


def slot_keys(cfg, index: dict) -> dict[int, set]:
    """Per pointer parameter's index, the location keys of the stores through it: known before
    the exploration, so that a return reached before the first store explored has its slot's
    state too (fixtures/forwarded_fills.c's early `return -1`)."""
    slots: dict[int, set] = {}
    for _, d in cfg.graph.nodes(data="data"):
        for op in d.ops if d is not None else ():
            if type(op) is ir.Store and op.target and op.through in index:
                slots.setdefault(index[op.through], set()).add(op.target)
    return slots


def flag_targets(cfg, data: dict) -> dict:
    """Location key -> parameter index of the integer constants stored through a pointer
    parameter (`*is_copy = false;`)."""
    index = {v: i for i, (v, is_ptr) in enumerate(cfg.params) if v is not None and is_ptr}
    return {op.target: index[op.through] for d in data.values() for op in d.ops
            if type(op) is ir.Store and op.truth is not None and op.through in index and op.target}
