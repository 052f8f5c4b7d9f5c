"""Sets of names as bits of an int, for the backward fixpoints (liveness, null liveness) that
revisit the nodes of TH's nested APPLY loops many times."""

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
                    i = bit[v] = 1 << len(bit)
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

    def sets_of(self, bits_by_node: dict) -> dict:
        """`set_of` of every value, keys kept: the liveness analyses convert a bit set per node
        (about 195k on THTensor.c), and most are the same few sets, found by one lookup each."""
        sets = self._sets
        slow = self.set_of
        return {n: sets[b] if b in sets else slow(b) for n, b in bits_by_node.items()}
