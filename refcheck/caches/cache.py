"""Per-unit results on disk, valid only while the unit and everything it read are unchanged.

The cache is a trust boundary: its directory may come from the pull request under test (a
committed `.refcheck_cache/`) or from a CI cache another branch wrote, so an entry could be
forged to hide a leak. Hence:

- every entry carries an HMAC-SHA256 under a secret key that lives outside the checked tree
  (`REFCHECK_CACHE_KEY`, or a per-user key file created on first use with mode 0600 in the
  user's cache directory): an entry written anywhere else is a miss;
- every value read back is validated all the same (types, finite numbers in range, bounded
  sizes, locations only in the unit's own files): anything unexpected is a miss;
- only regular files are read, with a size bound, never through a symbolic link; the cache
  directory must not be a symbolic link; pruning deletes only files whose names and first bytes
  are its own;
- an entry records the hashes of the bytes that were parsed: a file changed after the run
  started is not cached (its bytes may differ from those the worker parsed), and a result that
  depends on a file being absent ("file not found") is not cached, since absence has no hash.

An entry's key covers everything else that changes a result: refcheck's own code, libclang's
files, the builtin header directory, the unit, its clang arguments, the conventions (errors
mode included) and the analysis bounds.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
from functools import lru_cache
from importlib.util import find_spec

import refcheck
from refcheck.support import safeio
from refcheck.caches.serial import (MAX_ITEMS, MAX_TEXT, Invalid, _obj, _text, dump_result,  # noqa: F401
                                    load_result)
from refcheck.findings import UnitResult
from refcheck.caches.sealed import KeyProblem, _mac, load_secret, prune_directory, replace_atomically, seal, unseal

FORMAT = 5  # 3: path steps may say bears=False; 4: the summaries a unit exports and imported;
# 5: the unit's suppression comments and definitions' extents, each finding's statement text and extent
MAGIC = b"refcheck-cache 2\n"
_ENTRY_NAME = re.compile(r"[0-9a-f]{40}\.json")
# Bounds on what an entry may hold; a real unit is far below each.
MAX_ENTRY_BYTES = 64 << 20
# The kernel stamps ctime from a coarse clock that may lag the real time by a tick.
CLOCK_SLACK_NS = 50_000_000
# frontend/unit.py's CUDA_ROOTS, repeated because importing the frontend loads libclang
# (tests/robustness/test_gate.py checks that the two agree).
CUDA_ROOTS = ("/usr/local/cuda", "/opt/cuda", "/usr/lib/cuda")


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


class FileHasher:
    """Content hashes, each file read once per run; None for a file that cannot be read (or
    is not a regular file, or is over the size bound)."""

    def __init__(self, max_bytes: int = safeio.DEFAULT_MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._memo: dict[str, str | None] = {}
        # Why the last failed read() failed, per path, for the per-file error.
        self.problems: dict[str, str] = {}

    def hash(self, path: str) -> str | None:
        if path not in self._memo:
            try:
                self._memo[path] = _digest(safeio.read_regular(path, self.max_bytes))
            except safeio.UnreadableFile as e:
                self._memo[path] = None
                self.problems[path] = str(e)
        return self._memo[path]

    def read(self, path: str) -> bytes | None:
        """The bytes of a file and its hash recorded in one read (units are read anyway)."""
        try:
            data = safeio.read_regular(path, self.max_bytes)
        except safeio.UnreadableFile as e:
            self._memo[path] = None
            self.problems[path] = str(e)
            return None
        self._memo[path] = _digest(data)
        return data

    def stable_hash(self, path: str, since_ns: int | None, parsed: str | None = None) -> str | None:
        """The hash of a file known not to have changed since `since_ns` (wall clock, ns) and
        during this read; None otherwise. Its bytes are then the bytes a worker parsed.
        `parsed`: the hash the worker took right after parsing (None: not known)."""
        try:
            data, before, after = safeio.read_regular(path, self.max_bytes, with_stat=True)
        except safeio.UnreadableFile:
            return None
        if (before.st_ctime_ns, before.st_size) != (after.st_ctime_ns, after.st_size):
            return None
        digest = _digest(data)
        if path in self._memo and self._memo[path] != digest:  # read differently before the parse
            return None
        if parsed is not None and parsed != digest:  # changed since the worker's parse
            return None
        if since_ns is not None and before.st_ctime_ns >= since_ns:
            return None  # changed during the run: the worker may have parsed other bytes
        if since_ns is not None and before.st_ctime_ns >= since_ns - CLOCK_SLACK_NS:
            # Changed just before the run, or just after it with a stamp from the lagging
            # coarse clock: trusted only when these bytes are the ones read before the parse.
            return digest if path in self._memo or parsed is not None else None
        return digest


@lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """refcheck's own code, libclang's files and the builtin headers: a change to any of them
    invalidates every entry.

    Hashing the package sources (not just __version__) keeps a development checkout honest.
    """
    h = hashlib.blake2b(digest_size=20)
    h.update(refcheck.__version__.encode())
    h.update(_package_identity("clang").encode())
    h.update(_builtin_headers_identity().encode())
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


def _package_identity(name: str) -> str:
    """Names, sizes and mtimes of an installed package's files (libclang's bindings and shared
    library), without importing it (loading libclang costs more than a whole warm run)."""
    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return f"no {name}"
    parts = []
    for directory in spec.submodule_search_locations:
        for dirpath, dirnames, filenames in os.walk(directory):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for fname in sorted(filenames):
                try:
                    st = os.stat(os.path.join(dirpath, fname))
                except OSError:
                    continue
                parts.append(f"{os.path.relpath(os.path.join(dirpath, fname), directory)}:"
                             f"{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(parts)


def _builtin_headers_identity() -> str:
    """What decides the builtin header directory the workers will use (see
    frontend/headers.py), found without loading libclang: the override variable, the candidate
    directories on the machine and the clang-tidy wheel's, each with its stddef.h's stamp.
    Installing or removing a set of headers changes the key, so a result parsed against the
    wrong headers is not served after the fix."""
    import glob

    parts = [f"env={os.environ.get('REFCHECK_RESOURCE_DIR', '')}"]
    patterns = ["/usr/lib/llvm-*/lib/clang/*/include", "/usr/lib/clang/*/include",
                "/usr/lib64/clang/*/include", "/usr/local/lib/clang/*/include",
                "/usr/local/opt/llvm/lib/clang/*/include", "/opt/homebrew/opt/llvm/lib/clang/*/include",
                "/usr/lib/gcc/*/*/include", "/usr/lib64/gcc/*/*/include"]
    try:
        spec = find_spec("clang_tidy")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for d in spec.submodule_search_locations:
            patterns.append(os.path.join(d, "data", "lib", "clang", "*", "include"))
    override = os.environ.get("REFCHECK_RESOURCE_DIR")
    if override:
        patterns.append(os.path.join(override, "include"))
    # The CUDA toolkit the workers probe for (frontend/unit.py's CUDA_ROOTS): whether real CUDA
    # headers or refcheck's prelude are used changes every .cu result.
    for root in CUDA_ROOTS:
        try:
            st = os.stat(os.path.join(root, "include", "cuda_runtime.h"))
        except OSError:
            continue
        parts.append(f"cuda {root}:{st.st_size}:{st.st_mtime_ns}")
    for pattern in patterns:
        for d in sorted(glob.glob(pattern)):
            try:
                st = os.stat(os.path.join(d, "stddef.h"))
            except OSError:
                continue
            parts.append(f"{d}:{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(parts)


def unit_key(path: str, args: list[str], settings_fingerprint: str) -> str:
    text = json.dumps([FORMAT, tool_fingerprint(), path, args, settings_fingerprint])
    return _digest(text.encode())


class Cache:
    def __init__(self, directory: str | None, since_ns: int | None = None,
                 root: str | None = None) -> None:
        """directory None: a disabled cache (--no-cache) that misses and stores nothing.

        since_ns: when the run started (time.time_ns()); files changed since then are not
        cached. root: reported paths are relative to it (locations are checked against the
        entry's own files as reported)."""
        self.directory = directory
        self.entries = os.path.join(directory, "entries") if directory else None
        self.since_ns = since_ns
        self.root = root
        self._pruned = False
        self.hits = 0
        self.misses = 0
        # Why the last load() missed (see explain()).
        self.last_miss = ""
        # Entries rejected as forged, foreign or malformed (a note for the user).
        self.rejected = 0
        # The first write failure, reported once by the caller; the run goes on without a cache.
        self.write_error: str | None = None
        # Why the cache is off for this run (no usable key, a symlinked directory).
        self.disabled: str | None = None
        self._secret: bytes | None = None
        if directory is not None:
            self._open()

    def _open(self) -> None:
        for path in (self.directory, self.entries):
            try:
                if stat.S_ISLNK(os.lstat(path).st_mode):
                    self._disable(f"{path}: is a symbolic link; not using the cache")
                    return
            except OSError:
                pass  # absent, or not a directory: the first write says so
        try:
            self._secret = load_secret()
        except KeyProblem as e:
            self._disable(f"cache key {e}; not using the cache")

    def _disable(self, why: str) -> None:
        self.disabled = why
        self.entries = None

    def _entry_path(self, key: str) -> str:
        return os.path.join(self.entries, key + ".json")

    def load(self, key: str, hasher: FileHasher) -> UnitResult | None:
        """The entry's result, or None (a miss: `last_miss` says why, for `check -v`)."""
        self.last_miss = "the cache is off" if self.entries is None else "no entry under this key"
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
            data = safeio.read_regular(self._entry_path(key), MAX_ENTRY_BYTES, follow=False)
        except safeio.UnreadableFile:
            return None
        try:
            body = unseal(MAGIC, data, lambda b: _mac(self._secret, key, b), "an entry")
            entry = _obj(json.loads(body))
            if entry.get("format") != FORMAT or entry.get("key") != key:
                raise Invalid("another format or key")
            hashes = _obj(entry["hashes"])
            if not hashes or len(hashes) > MAX_ITEMS:
                raise Invalid("hashes")
            for path, digest in hashes.items():
                if not os.path.isabs(path) or not isinstance(digest, str):
                    raise Invalid("hashes")
                if hasher.hash(path) != digest:
                    # A plain miss: something it read has changed.
                    self.last_miss = f"{self._shown(path)} changed" if hasher.hash(path) else \
                        f"{self._shown(path)} is gone or unreadable"
                    return None
            files = None
            if self.root is not None:
                from refcheck.workspace.sources import relative

                files = {relative(os.path.normpath(p), self.root) for p in hashes}
            result = load_result(entry["result"], files)
            if not set(result.includes) <= set(hashes):
                raise Invalid("includes not covered by hashes")
            return result
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError, OverflowError):
            self.rejected += 1
            self.last_miss = "its entry was rejected (forged, foreign or damaged)"
            return None

    def includers(self, header: str) -> set[str] | None:
        """The units whose entries record reading `header` (absolute), from entries this user's
        refcheck wrote (the MAC is checked: a forged entry must not pick what gets checked);
        None when the cache holds no entry at all, so the caller looks elsewhere."""
        if self.entries is None or self.root is None:
            return None
        try:
            names = [n for n in os.listdir(self.entries) if _ENTRY_NAME.fullmatch(n)]
        except OSError:
            return None
        found: set[str] | None = None
        for name in names:
            entry = self._verified(name[:-len(".json")])
            if entry is None:
                continue
            found = found if found is not None else set()
            hashes = entry.get("hashes")
            result = entry.get("result")
            if isinstance(hashes, dict) and header in hashes and isinstance(result, dict) \
                    and isinstance(result.get("file"), str):
                unit = os.path.normpath(os.path.join(self.root, result["file"]))
                if unit in hashes and unit != header:
                    found.add(unit)
        return found

    def _verified(self, key: str) -> dict | None:
        """An entry's JSON when its MAC is this user's, else None."""
        try:
            data = safeio.read_regular(self._entry_path(key), MAX_ENTRY_BYTES, follow=False)
            entry = json.loads(unseal(MAGIC, data, lambda b: _mac(self._secret, key, b), "an entry"))
        except (safeio.UnreadableFile, ValueError, RecursionError):
            return None
        return entry if isinstance(entry, dict) and entry.get("format") == FORMAT else None

    def store(self, key: str, unit_path: str, result: UnitResult, hasher: FileHasher,
              parsed: dict | None = None) -> str | None:
        """parsed: the worker's hashes of the files it read (see pool.Outcome.hashes).
        Returns why the result was not stored (None when it was, or the cache is off)."""
        if self.entries is None or self.write_error is not None:
            return None
        missing = next((e.message for e in result.errors if e.message.endswith("file not found")), None)
        if missing is not None:
            # Depends on a file being absent, which no hash records; keying on the absence would
            # need every directory of the include search path, which the worker does not report.
            return f"never cached: {missing} (a result that depends on a missing file is not stored)"
        files = {unit_path} | {os.path.abspath(p) for p in result.includes}
        hashes = {}
        for p in sorted(files):
            digest = hasher.stable_hash(p, self.since_ns, (parsed or {}).get(p))
            if digest is None:
                # Gone, or changed since the run began: nothing trustworthy to record.
                return f"not cached: {self._shown(p)} changed during the run or is gone"
            hashes[p] = digest
        entry = {"format": FORMAT, "key": key, "hashes": hashes, "result": dump_result(result)}
        body = json.dumps(entry, separators=(",", ":"), ensure_ascii=True).encode()
        data = seal(MAGIC, _mac(self._secret, key, body), body)
        try:
            self._ensure_directory()
            self._prune()
            replace_atomically(self.entries, self._entry_path(key), data)
        except (OSError, safeio.UnwritableFile) as e:
            self.write_error = f"{self.directory}: cannot write cache: {getattr(e, 'strerror', None) or e}"
        return None

    def _shown(self, path: str) -> str:
        if self.root is None:
            return path
        from refcheck.workspace.sources import relative

        return relative(path, self.root)

    # --- why a unit missed, for `check -v` -----------------------------------------------------

    def _unit_record(self, unit_path: str) -> str:
        return os.path.join(self.directory, "units", _digest(unit_path.encode()) + ".json")

    def remember(self, unit_path: str, key: str, parts: dict, uncached: str | None) -> None:
        """Records what the unit's last key was made of (args, settings, tool), and why it was not
        stored, so that the next miss can be explained. Only explanations read it: it is not
        authenticated and decides nothing about results."""
        if self.entries is None or self.write_error is not None:
            return
        record = {"key": key, **parts, "tool": tool_fingerprint(), "uncached": uncached or ""}
        try:
            directory = os.path.dirname(self._unit_record(unit_path))
            os.makedirs(directory, exist_ok=True)
            replace_atomically(directory, self._unit_record(unit_path), json.dumps(record).encode())
        except (OSError, safeio.UnwritableFile):
            pass  # an explanation lost; the results are unaffected

    def explain(self, unit_path: str, key: str, parts: dict) -> str:
        """Why the last load() of this unit missed, as precisely as the records allow."""
        why = getattr(self, "last_miss", "no entry under this key")
        if why != "no entry under this key":
            return why
        try:
            old = _obj(json.loads(safeio.read_regular(self._unit_record(unit_path), MAX_TEXT, follow=False)))
        except (safeio.UnreadableFile, ValueError, RecursionError):
            return "no cache entry for this unit yet (its first run, or the entry was pruned)"
        if old.get("key") == key:
            return _text(old.get("uncached") or "its entry is gone (pruned, or the cache was cleared)")
        if old.get("tool") != tool_fingerprint():
            return "refcheck, libclang or the builtin headers changed since it was cached"
        if old.get("args") != parts.get("args"):
            return "its flags changed: " + _args_change(old.get("args"), parts.get("args") or [])
        if old.get("settings") != parts.get("settings"):
            return "the configuration changed (conventions, errors mode or analysis bounds)"
        return "no entry under this key"

    def previous_seconds(self, unit_path: str) -> float | None:
        """How long the unit's last stored analysis took (its stages' seconds), found through its
        record's last key even when that entry no longer matches the files; None when nothing is
        left. Only the progress display's estimates use it: it decides nothing about results."""
        if self.entries is None:
            return None
        try:
            record = _obj(json.loads(safeio.read_regular(self._unit_record(unit_path), MAX_TEXT,
                                                         follow=False)))
        except (safeio.UnreadableFile, ValueError, RecursionError):
            return None
        key = record.get("key")
        if not isinstance(key, str) or not _ENTRY_NAME.fullmatch(key + ".json"):
            return None  # the record is not authenticated: no path out of entries/ from it
        entry = self._verified(key)
        try:
            timings = entry["result"]["timings"].values()
            seconds = sum(float(v) for v in timings if isinstance(v, (int, float)))
        except (TypeError, KeyError, AttributeError, ValueError):
            return None
        return seconds if math.isfinite(seconds) and seconds >= 0 else None

    def _prune(self) -> None:
        """Once per run (see prune_directory)."""
        if self._pruned:
            return
        self._pruned = True
        prune_directory(self.entries, _ENTRY_NAME, MAGIC)

    def _ensure_directory(self) -> None:
        for path in (self.directory, self.entries):
            if os.path.islink(path):
                raise OSError(f"{path} is a symbolic link")
        if os.path.isdir(self.entries):
            return
        os.makedirs(self.entries, exist_ok=True)
        if os.path.islink(self.entries) or os.path.islink(self.directory):
            raise OSError(f"{self.entries} is a symbolic link")
        # Keep the cache out of version control and backups, as pytest and ruff do.
        for name, text in ((".gitignore", "# created by refcheck\n*\n"),
                           ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                                            "# This directory is refcheck's cache.\n")):
            target = os.path.join(self.directory, name)
            if not os.path.lexists(target):
                try:
                    safeio.write_file(target, text.encode())
                except safeio.UnwritableFile:
                    pass


def _args_change(old, new: list[str]) -> str:
    """`+added -removed` between two argument lists, shortened."""
    if not isinstance(old, list) or not all(isinstance(a, str) for a in old):
        return "(the old ones are not recorded)"
    added = [a for a in new if a not in old]
    removed = [a for a in old if a not in new]
    text = " ".join([f"+{a}" for a in added] + [f"-{a}" for a in removed]) or "their order"
    return json.dumps(text[:300], ensure_ascii=True)[1:-1]
