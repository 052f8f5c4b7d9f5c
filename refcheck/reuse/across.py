"""Analyses shared between the units one process checks (issues 30, 32).

A function defined in a project header (GLib's `G_DEFINE_AUTOPTR_CLEANUP_FUNC` helpers, inline
accessors) is built and analysed again in every unit that includes it: libmbim's 61 units check
125 such definitions 10 to 61 times each. A source file compiled twice (totem-pl-parser's
library and its `-DTOTEM_PL_PARSER_MINI` twin) analyses its heaviest functions twice.

An analysis reads the graph and what the conventions say of the names in it, nothing of the unit
around it: that is the premise of the class keys (`renaming.class_key`) by which a unit's
identical instances share one analysis. Here the same key, with the conventions' fingerprint,
the inferred record of every name in the graph and the bounds, keys the analyses of the
definitions another unit may repeat: those of a file an earlier unit of this process had
definitions from (a header), and every definition of a main file an earlier unit had (a twin
compilation). Equal keys, equal
analyses; the graph is still built (the key is the built graph), only the exploration is saved.
"""

from __future__ import annotations

import hashlib

from refcheck.reuse.renaming import class_key, renamed_result, renamer

# Kept results, by key digest: a few thousand on a GLib code base (each a small result: the
# findings and the summary). Dropped whole past this many, as the class keys' own tables are.
LIMIT = 20_000

_DONE: dict[bytes, tuple] = {}
_MAINS: set[str] = set()  # the main files of the units this process has checked
# File -> the main file of the first unit that analysed a definition in it: a file only one
# unit's definitions come from (torch7's generic/*.c bodies, each included by one unit) is
# never keyed, and a header is keyed from the second unit that includes it.
_FILES: dict[str, str] = {}
# On in the pool's workers (`start`), which check many units of one run; off elsewhere (a
# check in process, the tests'), which keeps no state between checks.
_ON = [False]


def start() -> None:
    """This process's units share their analyses from now on."""
    _ON[0] = True


def _same(s: str) -> str:
    return s


class Across:
    """One unit's access to the process's shared analyses."""

    def __init__(self, main: str, conv, bounds: tuple, share: bool = True) -> None:
        self.main, self.share = main, share
        # A main file met before in this process: its definitions may recur too (a twin).
        self.twin = main in _MAINS
        _MAINS.add(main)
        self.conv = conv
        self.took = False  # whether the last `analyse` took an earlier unit's result
        # The conventions' fields once per unit (a GIR-sized table makes a long text).
        self.which = repr((bounds, hashlib.blake2b(conv.fingerprint().encode(), digest_size=20).hexdigest()))

    def eligible(self, cfg) -> bool:
        """Whether another unit of this process checked a definition of the same file."""
        if not (_ON[0] and self.share):
            return False
        return self.twin or _FILES.setdefault(cfg.loc.file, self.main) != self.main

    def analyse(self, cfg, analyze, keyed: tuple | None = None):
        """`analyze(cfg)`, or the result an identical graph had in an earlier unit (`took`).
        Either way the records asked are the analysis's: the key's own asks are undone, and a
        taken result's asks (noted where it was made) are asked again. `keyed`: the graph's
        (key, tokens) where the unit's plan wrote them already (its asks are the plan's)."""
        table = self.conv.inferred
        self.took = False
        if table is None or not self.eligible(cfg):
            return analyze(cfg)
        asked, ever = table.asked, table.ever
        if keyed is not None:
            key, tokens = keyed
        else:
            table.asked, table.ever = set(), set()
            try:
                key, tokens = class_key(cfg, self.conv)
            finally:
                table.asked, table.ever = asked, ever
        if key[0] == "unshared":
            return analyze(cfg)
        digest = self._digest(key, tokens, table.known)
        got = _DONE.get(digest)
        if got is not None:
            result, asks, names = got
            table.asked.update(asks)
            table.ever.update(asks)
            self.took = True
            return renamed_result(result, renamer(names, tokens))
        table.asked = set()
        try:
            res = analyze(cfg)
        finally:
            asks, table.asked = frozenset(table.asked), asked
            asked.update(asks)
        if len(_DONE) >= LIMIT:
            _DONE.clear()
        _DONE[digest] = (renamed_result(res, _same), asks, tokens)
        return res

    def _digest(self, key: tuple, tokens: list[str], known: dict) -> bytes:
        """The class key with what it leaves to the unit: the names themselves but for a
        declaration's hash (`_ptr#2658241593`: the unit's own number; the key's numbering
        keeps two such names apart), each name's inferred record (its verdict reads a
        library's record first, where a name has one), the conventions' fields and the bounds."""
        names = tuple(t.split("#", 1)[0] for t in tokens)
        records = tuple(known.get(n) for n in names)
        text = repr((key, names, records, self.which))
        return hashlib.blake2b(text.encode(), digest_size=20).digest()


def forget() -> None:
    """Drops every kept analysis, and stops keeping them (tests)."""
    _DONE.clear()
    _MAINS.clear()
    _FILES.clear()
    _ON[0] = False
