"""Per-function results on disk: after an edit inside one function body, only that function is
built and analysed again; every other function's findings come from a table written by the
previous run of the same unit.

A function's key covers everything its result can depend on:

- the unit's settings key (`cache.unit_key`: refcheck's code, libclang, the builtin headers, the
  unit's path and clang arguments, the conventions and bounds), which holds no file bytes;
- the *skeleton* of every file the unit read: its bytes as libclang parsed them with the body of
  every checked definition cut out. An edit inside a body leaves it unchanged; an edit to a
  macro, a declaration, a typedef or a header changes it, and with it every key of the unit;
- the function's identity: its name, the file, line and column of its definition, and which
  occurrence of that identity it is. Findings carry line numbers (and `__LINE__` may expand in
  the body), so a function that moved to another line is a miss;
- the hash of its own body bytes;
- with may-raise summaries (errors = "unwind"), the unit's set of functions that may raise,
  since a callee's body changes its callers' results;
- where the conventions read other bodies of the unit for one function's check (`whole_unit`:
  the glib and cpython presets' callbacks found in the unit, the destroyers of a record whose
  field a store fills, `frontend.recordfrees` and `fieldowners`), every checked body: an edit
  anywhere in the unit misses every function of it, as a unit-cache miss would.

Generic TH code (generic/THTensorMath.c included once per type) gives 7-8 definitions with the
same body bytes: their names differ, and the skeleton covers the macros that make them differ.

The tables are as untrusted as cache entries (see refcheck/caches/cache.py): sealed with the same HMAC
key, validated the same way (the value of every function is checked as a cache entry's result
is: types, bounds, locations only in the unit's own files), read only as regular files never
through a symbolic link, written atomically, pruned by the same age rule. A table that fails any
check is ignored whole, with one warning, and every function is analysed again.

Not cached at all: units that parsed with errors (clang's recovery may tie one body's AST to
another's), units that expand `__COUNTER__` (its values depend on every expansion before), and
functions that hit the per-function time limit (a slower machine's result).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from dataclasses import dataclass

from refcheck.support import safeio
from refcheck.caches.serial import MAX_ITEMS, Invalid, _count, _obj, dump_result, load_result
from refcheck.caches.sealed import prune_directory, replace_atomically, seal, unseal
from refcheck.findings import Finding, ToolError, UnitResult
from refcheck.conventions.summary import DEFAULT, Source, Summary
from refcheck.conventions.records import RecordError, parse_record, record_table

FORMAT = 4  # 2: path steps may say bears=False (cache.FORMAT 3); 3: each function's own summary and the ones it used;
# 4: findings carry their statement text and extent (cache.FORMAT 5)
MAGIC = b"refcheck-functions 1\n"
SUBDIR = "functions"
# One table per unit and settings; THTensor.c's (1903 functions) is about 1 MB.
MAX_TABLE_BYTES = 64 << 20
_TABLE_NAME = re.compile(r"[0-9a-f]{40}\.json")
CATEGORIES = ("skipped", "shared", "analysed", "proved")
# Results that depend on the machine's speed rather than the code.
TIMED_OUT = "time limit reached"
_pruned = False
# How a note about a table that could not be written starts (the runner drops it when the
# whole cache directory is unwritable, which it reports once itself).
UNWRITABLE_TABLE = "per-function cache: "


def _digest(*parts: bytes) -> str:
    h = hashlib.blake2b(digest_size=20)
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))  # lengths keep ("ab", "c") apart from ("a", "bc")
        h.update(p)
    return h.hexdigest()


@dataclass(frozen=True)
class Outcome:
    """What checking one function (and the lambdas inside it) gave: findings with paths already
    relative to the root, tool errors (why it was not fully checked), how many functions it
    counted, and how each was checked (category -> number)."""

    findings: tuple[Finding, ...]
    errors: tuple[ToolError, ...]
    functions: int
    counts: tuple[tuple[str, int], ...]
    # The function's inferred summary, and (name, digest) of every summary its check used: a hit
    # counts only while those are unchanged (a callee's body edit that changes its summary).
    summary: Summary = DEFAULT
    used: tuple[tuple[str, str], ...] = ()


def _dump(o: Outcome) -> dict:
    d = dump_result(UnitResult("", list(o.findings), list(o.errors), o.functions))
    return {"functions": d["functions"], "errors": d["errors"], "findings": d["findings"],
            "counts": dict(o.counts), "summary": record_table(o.summary), "used": [list(u) for u in o.used]}


def _load(d, files: set[str]) -> Outcome:
    """Raises Invalid (a ValueError) on anything unexpected, as cache.load_result does."""
    d = _obj(d)
    files = files | {""}  # the placeholder unit name below
    r = load_result({"file": "", "functions": d["functions"], "includes": [], "timings": {},
                     "errors": d["errors"], "findings": d["findings"]}, files)
    counts = _obj(d["counts"])
    if not set(counts) <= set(CATEGORIES):
        raise Invalid("counts")
    try:
        summary = parse_record(_obj(d["summary"]), "summary", Source.INFERRED)
    except RecordError as e:
        raise Invalid(str(e)) from None
    used = tuple((n, h) for n, h in d["used"] if isinstance(n, str) and isinstance(h, str))
    if len(used) != len(d["used"]):
        raise Invalid("used")
    return Outcome(tuple(r.findings), tuple(r.errors), r.functions,
                   tuple((k, _count(counts[k])) for k in CATEGORIES if k in counts),
                   summary if summary.says_something else DEFAULT, used)


def _mac(secret: bytes, name: str, body: bytes) -> str:
    return hmac.new(secret, b"functions\n" + name.encode() + b"\n" + body, hashlib.sha256).hexdigest()


def table_path(directory: str, unit_path: str, unit_key: str) -> str:
    """Where the table of `unit_path` under settings `unit_key` lives in cache `directory`."""
    name = _digest(b"table", os.path.abspath(unit_path).encode(), unit_key.encode()) + ".json"
    return os.path.join(directory, SUBDIR, name)


class FunctionCache:
    """One unit's table: keys of its functions, the entries read back, the entries to write.

    Built after the parse; `keys[i]` is None for a function never served from the table."""

    def __init__(self, directory: str, unit_key: str, unit_path: str, parsed,
                 places: list, files: set[str], may_raise: frozenset | None, secret: bytes,
                 whole_unit: bool = False) -> None:
        """places: each definition's Location (clangutil.location); files: the unit's files as
        findings name them (relative to the root); whole_unit: every body is in every key."""
        from refcheck.frontend.unit import body_of, parsed_contents

        self.directory = os.path.join(directory, SUBDIR)
        # One table per unit and settings: checking a unit alternately under two configurations
        # (errors = "abort", then "unwind") keeps both tables instead of each run emptying the
        # other's. Tables of settings no longer used go by the cache's age rule.
        self.path = table_path(directory, unit_path, unit_key)
        self.name = os.path.basename(self.path)
        self.files = files
        self.secret = secret
        self.rejected: str | None = None
        self.write_error: str | None = None
        self.hits = 0
        self.asked_by_hits: set[str] = set()  # the summaries the hits' checks used, by name
        self._read: dict[str, Outcome] | None = None
        self._raw: dict[str, dict] = {}  # the entries read, authenticated and validated
        self._new: dict[str, dict] = {}
        self.keys: list[str | None] = [None] * len(parsed.functions)
        if parsed.partial:
            return
        contents = parsed_contents(parsed.tu, parsed.includes)
        if contents is None or any(b"__COUNTER__" in data for data in contents.values()):
            return
        names: dict = {}
        bodies = [body_of(fn, names) for fn in parsed.functions]
        cuts: dict[str, set[tuple[int, int]]] = {}
        for b in bodies:
            if b is not None and b.file in contents and b.end <= len(contents[b.file]):
                cuts.setdefault(b.file, set()).add((b.start, b.end))
        skeleton = hashlib.blake2b(digest_size=20)
        for name in sorted(contents):
            skeleton.update(_digest(name.encode(), *_pieces(contents[name], cuts.get(name, ()))).encode())
        raising = b"\n".join(sorted(n.encode() for n in may_raise)) if may_raise is not None else b"-"
        everything = b"-"
        if whole_unit:
            everything = _digest(*(contents[b.file][b.start:b.end] for b in bodies
                                   if b is not None and (b.start, b.end) in cuts.get(b.file, ()))).encode()
        unit = _digest(unit_key.encode(), skeleton.hexdigest().encode(), raising, everything)
        seen: dict[tuple, int] = {}
        for i, (fn, place, b) in enumerate(zip(parsed.functions, places, bodies)):
            if b is None or (b.start, b.end) not in cuts.get(b.file, ()):
                continue
            identity = (fn.spelling, place.file, place.line, place.column)
            n = seen[identity] = seen.get(identity, 0) + 1
            self.keys[i] = _digest(unit.encode(), json.dumps([*identity, n]).encode(),
                                   contents[b.file][b.start:b.end])

    # --- reading ---------------------------------------------------------------------------------

    def get(self, key: str | None) -> Outcome | None:
        if key is None:
            return None
        if self._read is None:
            self._read = self._load_table()
        hit = self._read.get(key)
        if hit is not None:
            self.hits += 1
        return hit

    def has(self, key: str | None) -> bool:
        """Whether `get(key)` would hit, without counting a hit."""
        if key is None:
            return False
        if self._read is None:
            self._read = self._load_table()
        return key in self._read

    def _load_table(self) -> dict[str, Outcome]:
        if os.path.islink(self.directory):  # could point anywhere; save() refuses it too
            self.rejected = f"{self.directory}: is a symbolic link"
            return {}
        try:
            data = safeio.read_regular(self.path, MAX_TABLE_BYTES, follow=False)
        except safeio.UnreadableFile as e:
            if os.path.lexists(self.path):  # absent is the plain first run; anything else is odd
                self.rejected = f"{self.path}: {e}"
            return {}
        try:
            body = unseal(MAGIC, data, lambda b: _mac(self.secret, self.name, b), "a table")
            table = _obj(json.loads(body))
            if table.get("format") != FORMAT:
                raise Invalid("another format")
            entries = _obj(table["entries"])
            if len(entries) > MAX_ITEMS:
                raise Invalid("too many entries")
            out = {}
            for key, value in entries.items():
                if not re.fullmatch(r"[0-9a-f]{40}", key):
                    raise Invalid("key")
                out[key] = _load(value, self.files)
            self._raw = entries
            return out
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError, OverflowError) as e:
            self.rejected = f"{self.path}: {e or type(e).__name__}"
            return {}

    # --- writing ---------------------------------------------------------------------------------

    def put(self, key: str | None, outcome: Outcome) -> None:
        """Call before the findings are merged (merging changes them in place)."""
        if key is None or any(TIMED_OUT in e.message for e in outcome.errors):
            return
        self._new[key] = _dump(outcome)

    def keep(self, key: str) -> None:
        """A hit stays in the table written at the end."""
        self._new[key] = self._raw[key]

    def save(self) -> None:
        """Writes this run's entries (the hits kept, the misses added) as the whole table: what
        the unit no longer defines drops out, so a table never outgrows its unit."""
        self.write_error = _write(self.path, self._new, self.secret)


def write_table(directory: str, unit_path: str, unit_key: str, entries: dict) -> str | None:
    """Writes a unit's whole table from its entries as FunctionCache gathers them (the parent's
    merge of a unit checked in shards); returns why it could not, or None."""
    from refcheck.caches.sealed import KeyProblem, load_secret

    try:
        secret = load_secret()
    except KeyProblem:
        return None  # the unit cache is off for the same reason, and says so
    return _write(table_path(directory, unit_path, unit_key), entries, secret)


def _write(path: str, entries: dict, secret: bytes) -> str | None:
    if not entries:
        return None
    directory, name = os.path.dirname(path), os.path.basename(path)
    body = json.dumps({"format": FORMAT, "entries": entries}, separators=(",", ":"),
                      ensure_ascii=True).encode()
    data = seal(MAGIC, _mac(secret, name, body), body)
    if len(data) > MAX_TABLE_BYTES:
        return None
    try:
        _ensure_directory(directory)
        global _pruned
        if not _pruned:  # once per process, as the unit cache prunes once per run
            _pruned = True
            prune_directory(directory, _TABLE_NAME, MAGIC)
        # Two runs writing the same unit's table: the last rename wins, whole.
        replace_atomically(directory, path, data)
    except OSError as e:
        return f"{directory}: cannot write: {e.strerror or e}"
    return None


def _pieces(data: bytes, cuts) -> list[bytes]:
    """The bytes outside the (start, end) ranges, in order; overlapping ranges merged."""
    out, pos = [], 0
    for start, end in sorted(cuts):
        if start > pos:
            out.append(data[pos:start])
        pos = max(pos, end)
    out.append(data[pos:])
    return out


def _ensure_directory(directory: str) -> None:
    """The cache directory exists (the unit cache made it) or is made here; never a link."""
    parent = os.path.dirname(directory)
    for path in (parent, directory):
        if os.path.islink(path):
            raise OSError(f"{path} is a symbolic link")
    if not os.path.isdir(directory):
        os.makedirs(directory, exist_ok=True)
        if os.path.islink(directory) or os.path.islink(parent):
            raise OSError(f"{directory} is a symbolic link")
