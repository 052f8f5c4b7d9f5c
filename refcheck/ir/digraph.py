"""The directed graph a function's CFG is held in: the part of networkx's `DiGraph` interface that
refcheck uses, on the same three dicts (node attributes, successors, predecessors, all in insertion
order), so that every iteration visits nodes and edges in the order networkx did.

Why not networkx itself: importing it took 90 ms, a third of a small unit's whole check, and a
worker needs it before its first graph. Graphs built with networkx (tests make some by hand) still
work wherever this class does: only the shared interface is used.
"""

from __future__ import annotations

from typing import Iterator


class _Nodes:
    """`g.nodes`: iterate, test, `g.nodes[n]` (the attribute dict), `g.nodes(data="key")`."""

    __slots__ = ("_node", "_memo")

    def __init__(self, node: dict, memo: dict) -> None:
        self._node = node
        self._memo = memo

    def __iter__(self) -> Iterator:
        return iter(self._node)

    def __len__(self) -> int:
        return len(self._node)

    def __contains__(self, n) -> bool:
        return n in self._node

    def __getitem__(self, n) -> dict:
        return self._node[n]

    def __call__(self, data: str | bool = False, default=None):
        if data is False:
            return iter(self._node)
        if data is True:
            return iter(self._node.items())
        # A tuple, not a generator: every analysis reads all of it (dict(g.nodes(data="data"))),
        # a dozen times per function (the transfer, the first pass, the tables): made once per
        # graph until the graph changes (`DiGraph.memo`), and immutable since shared.
        key = ("nodes", data, default)
        out = self._memo.get(key)
        if out is None:
            out = self._memo[key] = tuple([(n, d.get(data, default)) for n, d in self._node.items()])
        return out


class _Edges:
    """`g.edges`: iterate `(u, v)` pairs, `g.edges[u, v]` (the attribute dict)."""

    __slots__ = ("_succ",)

    def __init__(self, succ: dict) -> None:
        self._succ = succ

    def __iter__(self) -> Iterator[tuple]:
        return ((u, v) for u, vs in self._succ.items() for v in vs)

    def __len__(self) -> int:
        return sum(len(vs) for vs in self._succ.values())

    def __getitem__(self, edge: tuple) -> dict:
        u, v = edge
        return self._succ[u][v]


class DiGraph:
    """Nodes with attribute dicts, directed edges with attribute dicts; no parallel edges."""

    __slots__ = ("_node", "_succ", "_pred", "_memo")

    def __init__(self) -> None:
        self._node: dict = {}
        self._succ: dict = {}
        self._pred: dict = {}
        # Tables read off the graph alone (its node data listing, its components), made once
        # and dropped by every change through the methods below (`memo`).
        self._memo: dict = {}

    @property
    def nodes(self) -> _Nodes:
        return _Nodes(self._node, self._memo)

    def memo(self, key, make):
        """`make(self)`, made once until the graph next changes: the analysis reads the same
        graph-only tables from the first pass, the return witness and the exploration. The
        value is shared: callers never change it."""
        out = self._memo.get(key)
        if out is None:
            out = self._memo[key] = make(self)
        return out

    @property
    def edges(self) -> _Edges:
        return _Edges(self._succ)

    def add_node(self, n, **attr) -> None:
        self._memo.clear()
        if n not in self._node:
            self._node[n] = attr
            self._succ[n] = {}
            self._pred[n] = {}
        else:
            self._node[n].update(attr)

    def add_nodes_from(self, nodes) -> None:
        for n in nodes:
            self.add_node(n)

    def add_edge(self, u, v, **attr) -> None:
        self._memo.clear()
        for n in (u, v):
            if n not in self._node:
                self.add_node(n)
        data = self._succ[u].get(v)
        if data is None:
            data = self._succ[u][v] = self._pred[v][u] = {}
        data.update(attr)

    def remove_nodes_from(self, nodes) -> None:
        self._memo.clear()
        for n in nodes:
            if n not in self._node:
                continue
            for v in self._succ.pop(n):
                del self._pred[v][n]
            for u in self._pred.pop(n):
                del self._succ[u][n]
            del self._node[n]

    def successors(self, n) -> Iterator:
        return iter(self._succ[n])

    def predecessors(self, n) -> Iterator:
        return iter(self._pred[n])

    @property
    def succ(self) -> dict:
        """Node -> {successor: edge attributes} (networkx's `succ`; read it, never write it)."""
        return self._succ

    @property
    def pred(self) -> dict:
        """Node -> {predecessor: edge attributes} (networkx's `pred`; read it, never write it)."""
        return self._pred

    def adjacency(self) -> Iterator[tuple]:
        """(node, {successor: edge attributes}) for every node."""
        return iter(self._succ.items())

    def out_degree(self, n) -> int:
        return len(self._succ[n])

    def in_degree(self, n) -> int:
        return len(self._pred[n])

    def number_of_nodes(self) -> int:
        return len(self._node)

    def number_of_edges(self) -> int:
        return sum(len(vs) for vs in self._succ.values())

    def __getitem__(self, u) -> dict:
        """`g[u][v]`: the edge's attribute dict."""
        return self._succ[u]

    def __iter__(self) -> Iterator:
        return iter(self._node)

    def __len__(self) -> int:
        return len(self._node)

    def __contains__(self, n) -> bool:
        return n in self._node


def descendants(g, start) -> set:
    """The nodes reachable from `start`, `start` itself left out (as networkx's `descendants`)."""
    seen = {start}
    todo = [start]
    while todo:
        for m in g.successors(todo.pop()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    seen.discard(start)
    return seen


def reaching(seed: set, edges: dict) -> set:
    """`seed` grown by every key of `edges` from which a chain of its edges leads into it (a
    function calling one that mentions a global, a field copied into one given up); `seed` is
    grown in place and returned. One pass over the reversed edges, not a loop to a fixed point."""
    into: dict = {}
    for k, targets in edges.items():
        for t in targets:
            into.setdefault(t, []).append(k)
    todo = list(seed)
    while todo:
        for k in into.get(todo.pop(), ()):
            if k not in seed:
                seed.add(k)
                todo.append(k)
    return seed


def immediate_dominators(g, start) -> dict:
    """Each node reachable from `start` mapped to its immediate dominator, `start` to itself
    (Cooper, Harvey and Kennedy's iteration, as networkx's `immediate_dominators`)."""
    return dominators(start, g.successors, g.predecessors)


def dominators(start, successors, predecessors) -> dict:
    """The immediate dominators of the graph given by `successors(n)` and `predecessors(n)`
    (iterables), from `start`: one iteration for dominators and, over the reversed graph,
    post-dominators (analysis/slicing.py)."""
    order: list = []  # postorder from start
    seen = {start}
    stack = [(start, iter(successors(start)))]
    while stack:
        node, it = stack[-1]
        for m in it:
            if m not in seen:
                seen.add(m)
                stack.append((m, iter(successors(m))))
                break
        else:
            stack.pop()
            order.append(node)
    number = {n: i for i, n in enumerate(order)}
    idom = {start: start}
    changed = True
    while changed:
        changed = False
        for n in reversed(order):
            if n == start:
                continue
            new = None
            for p in predecessors(n):
                if p not in idom:
                    continue
                if new is None:
                    new = p
                    continue
                a, b = p, new
                while a != b:
                    while number[a] < number[b]:
                        a = idom[a]
                    while number[b] < number[a]:
                        b = idom[b]
                new = a
            if new is not None and idom.get(n) != new:
                idom[n] = new
                changed = True
    return idom


def out_edges(g) -> dict:
    """Node -> its ((successor, edge attributes), ...): read at every step by the first pass's
    flow and by both transfers of a function, made once per graph (`DiGraph.memo`; shared:
    never changed by its readers)."""
    def make(g):
        return {n: tuple(edges.items()) for n, edges in g.adjacency()}
    memo = getattr(g, "memo", None)
    return memo("out_edges", make) if memo is not None else make(g)


def components(g) -> dict:
    """Each node mapped to the number of its strongly connected component (Tarjan's algorithm,
    iterative: a CFG's depth-first paths are as long as the function). Made once per graph
    (`DiGraph.memo`): the return witness's transfer and the exploration's both ask."""
    memo = getattr(g, "memo", None)
    return memo("components", _components) if memo is not None else _components(g)


def _components(g) -> dict:
    index: dict = {}
    low: dict = {}
    comp: dict = {}
    stack: list = []
    on: set = set()
    found = 0
    for root in g:
        if root in index:
            continue
        work = [(root, iter(g.successors(root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            for m in it:
                if m not in index:
                    index[m] = low[m] = len(index)
                    stack.append(m)
                    on.add(m)
                    work.append((m, iter(g.successors(m))))
                    break
                if m in on:
                    low[node] = min(low[node], index[m])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    while True:
                        m = stack.pop()
                        on.discard(m)
                        comp[m] = found
                        if m == node:
                            break
                    found += 1
    return comp
