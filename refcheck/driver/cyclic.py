"""Which of a unit's definitions form cycles through the records their checks used (issue 32:
refcheck.driver.cycles settles them; refcheck.driver.shards makes a split unit's fixup due)."""

from __future__ import annotations


def members(names: dict, used: dict) -> list[int]:
    """The definitions (index -> name, index -> (name, digest) of the records its check used) in a
    cycle of two or more that used one another's records."""
    where: dict = {}
    for i, name in names.items():
        where.setdefault(name, []).append(i)
    edges = {i: {j for n, _ in u for j in where.get(n, ()) if j != i} for i, u in used.items()}
    reach = {i: _reached(edges, i) for i in edges}
    return sorted(i for i in edges if any(i in reach.get(j, ()) for j in reach[i]))


def _reached(edges: dict, start: int) -> set:
    """The definitions reached from `start` (itself only through a cycle)."""
    seen, todo = set(), list(edges[start])
    while todo:
        j = todo.pop()
        if j not in seen:
            seen.add(j)
            todo.extend(edges.get(j, ()))
    return seen - {start}
