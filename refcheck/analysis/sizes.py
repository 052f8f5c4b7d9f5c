"""Size facts: which tensor variables are known to have the same number of elements (issue 14).

Kept in `Facts.sizes`, a map of typed keys:
- `Same(a, b)` (a < b) -> True: tensor variables a and b have equal element counts, from a call of
  the `same-size` table (`resizeAs(a, b)`) or the equal edge of a `SizeTest`;
- `CountOf(n)` -> t: the integer variable n holds tensor variable t's element count (`ir.Count`).

A fact ends when a variable it mentions is assigned (`Facts.invalidate`), and every size fact ends
at anything that may resize a tensor: a call that is not pure (acquire, retain and release calls
do not resize their arguments: TH's `new*` functions make new views, never change their
argument), and a store into memory, unless the store goes through memory this function acquired
itself (APPLY's counter arrays), which only ends the facts of the variables holding it.
`assume` decides a `SizeTest` from these facts: `TH_TENSOR_APPLY2(r_, t)`'s "inconsistent tensor
size" edge is infeasible right after `resizeAs(r_, t)`.
"""

from __future__ import annotations

from typing import NamedTuple

from refcheck import ir
from refcheck.analysis.state import Facts, Kind, State


class Same(NamedTuple):
    a: str
    b: str

    def mentions(self, value, var: str) -> bool:
        return var == self.a or var == self.b

    def describe(self, value, n) -> str:
        return f"same size: {n(self.a)} {n(self.b)}"


class CountOf(NamedTuple):
    var: str

    def mentions(self, value, var: str) -> bool:
        return var == self.var or var == value

    def describe(self, value, n) -> str:
        return f"{n(self.var)} = nElement({n(value)})"


def invalidate(sizes: dict, var: str) -> None:
    for k in [k for k, v in sizes.items() if k.mentions(v, var)]:
        del sizes[k]


def same(facts: Facts, a: str, b: str) -> None:
    if a != b:
        facts.sizes[Same(*sorted((a, b)))] = True


def on_same_size(st: State, op: ir.SameSize) -> None:
    """After `resizeAs(a, b)`: a (and whatever holds its object) was resized to b's size."""
    sizes = st.facts.sizes
    if op.a is None:
        sizes.clear()
        return
    if sizes:
        oid = st.env.get(op.a)
        for v in [op.a, *(v for v, o in st.env.items() if oid is not None and o == oid)]:
            invalidate(sizes, v)
    if op.b is not None:
        same(st.facts, op.a, op.b)


def on_count(st: State, op: ir.Count) -> None:
    st.facts.sizes[CountOf(op.var)] = op.tensor


def on_call(st: State, op: ir.Call, conv) -> None:
    """A call that is not pure may resize any tensor it can reach. A call of the `same-size` table
    resizes only its first listed argument: its `SameSize` op, which follows, says which."""
    name = op.callee
    if st.facts.sizes and not conv.matches("pure", name) and conv.same_size_arguments(name, 2) is None:
        st.facts.sizes.clear()


def on_store(st: State, op: ir.Store) -> None:
    sizes = st.facts.sizes
    if not sizes:
        return
    objs = {st.env[v] for v in op.deps if v in st.env}
    if objs and all(o.kind is Kind.ACQUIRE for o in objs):
        # Memory acquired here is reachable only through the variables holding it.
        for v, o in list(st.env.items()):
            if o in objs:
                invalidate(sizes, v)
        return
    sizes.clear()


def known_equal(st: State, a: str, b: str) -> bool:
    """a and b (tensor variables) have the same number of elements on this path: they are linked
    by a chain of size facts and of variables holding one object (one object has one size)."""
    env = st.env
    ob = env.get(b)
    pairs = [k for k in st.facts.sizes if type(k) is Same]
    seen, todo = {a}, [a]
    while todo:
        x = todo.pop()
        ox = env.get(x)
        if x == b or (ox is not None and ox == ob):
            return True
        near = [k.b if k.a == x else k.a for k in pairs if x == k.a or x == k.b]
        if ox is not None:
            near += [v for v, o in env.items() if o == ox]
        for y in near:
            if y not in seen:
                seen.add(y)
                todo.append(y)
    return False


def assume(tr, st: State, cond: ir.SizeTest, taken: bool) -> State | None:
    """The state on the `taken` edge of a size test; None when size facts make it infeasible."""
    equal_edge = taken == cond.equal
    if cond.counts:
        sizes = st.facts.sizes
        a, b = sizes.get(CountOf(cond.a)), sizes.get(CountOf(cond.b))
    else:
        a, b = cond.a, cond.b
    if a is not None and b is not None and known_equal(st, a, b):
        return st.copy() if equal_edge else None
    st2 = tr.assume(st, cond.fallback, taken) if cond.fallback is not None else st.copy()
    if st2 is not None and equal_edge and a is not None and b is not None:
        same(st2.facts, a, b)
    return st2
