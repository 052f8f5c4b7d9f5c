"""Which of a unit's definitions form cycles through the records their checks used (issue 32:
refcheck.driver.cycles settles them; refcheck.driver.shards makes a split unit's fixup due)."""

from __future__ import annotations


def members(names: dict, used: dict) -> list[int]:
    """The definitions (index -> name, index -> (name, digest) of the records its check used) in a
    cycle of two or more that used one another's records."""
    edges = _edges(names, used)
    reach = {i: _reached(edges, i) for i in edges}
    return sorted(i for i in edges if any(i in reach.get(j, ()) for j in reach[i]))


def inner(names: dict, used: dict, cycle: list) -> set:
    """The cycle's members and the definitions between two of them (one used a record that
    used a member's, and a member used its record): every record a member's check depends on.
    The others only use the members' records; their checks cannot change a member's."""
    edges = _edges(names, used)
    ring = set(cycle)
    reaches = {i for i in edges if i not in ring and not ring.isdisjoint(_reached(edges, i))}
    return ring | {i for i in reaches if any(i in _reached(edges, m) for m in ring)}


def _edges(names: dict, used: dict) -> dict:
    """Definition -> the definitions whose records its check used."""
    where: dict = {}
    for i, name in names.items():
        where.setdefault(name, []).append(i)
    return {i: {j for n, _ in u for j in where.get(n, ()) if j != i} for i, u in used.items()}


def _reached(edges: dict, start: int) -> set:
    """The definitions reached from `start` (itself only through a cycle)."""
    seen, todo = set(), list(edges[start])
    while todo:
        j = todo.pop()
        if j not in seen:
            seen.add(j)
            todo.extend(edges.get(j, ()))
    return seen - {start}
