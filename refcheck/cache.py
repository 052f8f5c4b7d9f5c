"""Per-unit results on disk, valid only while the unit and everything it read are unchanged.

An entry is keyed on what goes into the analysis besides file contents (refcheck's own code,
libclang's version, the unit, its arguments, the conventions) and records the content hash of
every file the unit read. Anything unexpected in an entry (bad JSON, another format, a foreign
key, a wrong shape) makes it a miss: the cache is never trusted, only used. Entries are written
to a temporary file and renamed, so readers and concurrent runs see a whole entry or none.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from functools import lru_cache
from importlib.util import find_spec

import refcheck
from refcheck.model import Finding, Location, Step, ToolError, UnitResult

FORMAT = 1
# Entries not written for this long are deleted by the next run that writes one. Every edit of
# refcheck's code (or the flags, or the conventions) orphans a set of entries; a used entry that
# gets pruned costs one re-analysis a week. Age rather than version decides, so two refcheck
# versions in use side by side (pre-commit's and a checkout's) do not evict each other.
PRUNE_AFTER_SECONDS = 7 * 24 * 3600
# Temporary files of a run killed mid-write (SIGKILL; Ctrl-C cleans up its own).
STALE_TEMP_SECONDS = 3600


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


class FileHasher:
    """Content hashes, each file read once per run; None for a file that cannot be read."""

    def __init__(self) -> None:
        self._memo: dict[str, str | None] = {}
        self.contents: dict[str, bytes] = {}

    def hash(self, path: str) -> str | None:
        if path not in self._memo:
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                self._memo[path] = None
            else:
                self._memo[path] = _digest(data)
        return self._memo[path]

    def read(self, path: str) -> bytes | None:
        """The bytes of a file and its hash recorded in one read (units are read anyway)."""
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            self._memo[path] = None
            return None
        self._memo[path] = _digest(data)
        return data


@lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """refcheck's own code and libclang's version: a change to either invalidates every entry.

    Hashing the package sources (not just __version__) keeps a development checkout honest.
    """
    h = hashlib.blake2b(digest_size=20)
    h.update(refcheck.__version__.encode())
    h.update(_libclang_identity().encode())
    package = os.path.dirname(refcheck.__file__)
    for dirpath, dirnames, filenames in os.walk(package):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                full = os.path.join(dirpath, name)
                h.update(os.path.relpath(full, package).encode())
                with open(full, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


def _libclang_identity() -> str:
    """Names, sizes and mtimes of the clang bindings and shared library, without importing them
    (loading libclang costs more than a whole warm run)."""
    spec = find_spec("clang")
    if spec is None or not spec.submodule_search_locations:
        return "no libclang"
    parts = []
    for directory in spec.submodule_search_locations:
        for dirpath, dirnames, filenames in os.walk(directory):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                st = os.stat(os.path.join(dirpath, name))
                parts.append(f"{os.path.relpath(os.path.join(dirpath, name), directory)}:{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(parts)


def unit_key(path: str, args: list[str], settings_fingerprint: str) -> str:
    text = json.dumps([FORMAT, tool_fingerprint(), path, args, settings_fingerprint])
    return _digest(text.encode())


# --- UnitResult <-> JSON ------------------------------------------------------------------------

def _loc(d) -> Location:
    return Location(str(d["file"]), int(d["line"]), int(d["column"]))


def _loc_out(loc: Location) -> dict:
    return {"file": loc.file, "line": loc.line, "column": loc.column}


def dump_result(r: UnitResult) -> dict:
    return {
        "file": r.file,
        "functions": r.functions,
        "includes": list(r.includes),
        "timings": dict(r.timings),
        "errors": [{"file": e.file, "message": e.message, "line": e.line, "column": e.column,
                    "severity": e.severity} for e in r.errors],
        "findings": [{
            "rule": f.rule, "name": f.name, "location": _loc_out(f.location),
            "function": f.function, "message": f.message,
            "path": [{"location": _loc_out(s.location), "message": s.message} for s in f.path],
            "instantiations": list(f.instantiations),
            "origin": _loc_out(f.origin) if f.origin else None,
        } for f in r.findings],
    }


def load_result(d: dict) -> UnitResult:
    """Raises KeyError, TypeError or ValueError on any shape it does not expect."""
    def strings(v) -> list[str]:
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise TypeError("expected a list of strings")
        return list(v)

    timings = d["timings"]
    if not isinstance(timings, dict):
        raise TypeError("timings")
    return UnitResult(
        file=str(d["file"]),
        functions=int(d["functions"]),
        includes=strings(d["includes"]),
        timings={str(k): float(v) for k, v in timings.items()},
        errors=[ToolError(str(e["file"]), str(e["message"]), int(e["line"]), int(e["column"]),
                          str(e["severity"])) for e in d["errors"]],
        findings=[Finding(
            rule=str(f["rule"]), name=str(f["name"]), location=_loc(f["location"]),
            function=str(f["function"]), message=str(f["message"]),
            path=[Step(_loc(s["location"]), str(s["message"])) for s in f["path"]],
            instantiations=strings(f["instantiations"]),
            origin=_loc(f["origin"]) if f["origin"] is not None else None,
        ) for f in d["findings"]],
    )


class Cache:
    def __init__(self, directory: str | None) -> None:
        """directory None: a disabled cache (--no-cache) that misses and stores nothing."""
        self.directory = directory
        self.entries = os.path.join(directory, "entries") if directory else None
        self._pruned = False
        self.hits = 0
        self.misses = 0
        # The first write failure, reported once by the caller; the run goes on without a cache.
        self.write_error: str | None = None

    def _entry_path(self, key: str) -> str:
        return os.path.join(self.entries, key + ".json")

    def load(self, key: str, hasher: FileHasher) -> UnitResult | None:
        if self.entries is None:
            return None
        result = self._load(key, hasher)
        if result is None:
            self.misses += 1
        else:
            self.hits += 1
        return result

    def _load(self, key: str, hasher: FileHasher) -> UnitResult | None:
        try:
            with open(self._entry_path(key), "rb") as f:
                entry = json.loads(f.read())
            if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
                return None
            hashes = entry["hashes"]
            if not isinstance(hashes, dict) or not hashes:
                return None
            for path, digest in hashes.items():
                if hasher.hash(path) != digest:
                    return None
            return load_result(entry["result"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None

    def store(self, key: str, unit_path: str, result: UnitResult, hasher: FileHasher) -> None:
        if self.entries is None or self.write_error is not None:
            return
        files = {unit_path} | {os.path.abspath(p) for p in result.includes}
        hashes = {}
        for p in sorted(files):
            digest = hasher.hash(p)
            if digest is None:
                return  # a file it read is gone already: nothing trustworthy to record
            hashes[p] = digest
        entry = {"format": FORMAT, "key": key, "hashes": hashes, "result": dump_result(result)}
        try:
            self._ensure_directory()
            self._prune()
            fd, tmp = tempfile.mkstemp(dir=self.entries, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(entry, f, separators=(",", ":"))
                # mkstemp creates 0600; entries are as shareable as the sources they describe.
                os.chmod(tmp, 0o644)
                os.replace(tmp, self._entry_path(key))
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError as e:
            self.write_error = f"{self.directory}: cannot write cache: {e.strerror or e}"

    def _prune(self) -> None:
        """Once per run: another run may be reading these, but it treats a vanished entry as
        the miss it would have been after a week anyway."""
        if self._pruned:
            return
        self._pruned = True
        now = time.time()
        with os.scandir(self.entries) as it:
            for e in it:
                try:
                    age = now - e.stat().st_mtime
                    limit = STALE_TEMP_SECONDS if e.name.startswith(".tmp-") else PRUNE_AFTER_SECONDS
                    if e.name.endswith(".json") and age > limit:
                        os.unlink(e.path)
                except OSError:
                    pass

    def _ensure_directory(self) -> None:
        if os.path.isdir(self.entries):
            return
        os.makedirs(self.entries, exist_ok=True)
        # Keep the cache out of version control and backups, as pytest and ruff do.
        for name, text in ((".gitignore", "# created by refcheck\n*\n"),
                           ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                                            "# This directory is refcheck's cache.\n")):
            target = os.path.join(self.directory, name)
            if not os.path.exists(target):
                with open(target, "w", encoding="utf-8") as f:
                    f.write(text)
