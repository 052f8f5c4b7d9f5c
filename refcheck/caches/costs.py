"""Measured costs of a sharded unit's definitions: the CPU seconds each one's check took in the
last run, by the definition's name and place (driver/shards.identity), so that the next run
splits the unit by them rather than by an estimate (driver/shards.costs).

One small file per unit under the cache directory, as untrusted as the rest of it
(refcheck/caches/cache.py): sealed with the same HMAC key, read only as a regular file never
through a symbolic link, bounded, every value validated, written atomically, pruned by the same
age rule. A file that fails any check is no costs at all: the split falls back to the estimate,
which decides only how the work is shared, never a result.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re

from refcheck.caches.sealed import KeyProblem, _mac, load_secret, prune_directory, replace_atomically, seal, unseal
from refcheck.support import safeio

FORMAT = 1
MAGIC = b"refcheck-costs 1\n"
SUBDIR = "costs"
MAX_BYTES = 16 << 20
MAX_DEFINITIONS = 200_000
MAX_IDENTITY = 4096
# A definition's check is bounded by its time limit (function-seconds); far above it is no timing.
MAX_SECONDS = 86_400.0
_NAME = re.compile(r"[0-9a-f]{40}\.json")
_pruned = False


def path_for(directory: str, unit_path: str) -> str:
    name = hashlib.sha1(os.path.abspath(unit_path).encode("utf-8", "surrogateescape")).hexdigest()
    return os.path.join(directory, SUBDIR, name + ".json")


def read_costs(directory: str | None, unit_path: str) -> dict:
    """The unit's measured costs (identity -> seconds); empty when there are none or the file is
    not one this user's refcheck wrote for this unit, whole and valid."""
    if directory is None:
        return {}
    path = path_for(directory, unit_path)
    try:
        secret = load_secret()
        data = safeio.read_regular(path, MAX_BYTES, follow=False)
        doc = json.loads(unseal(MAGIC, data, lambda b: _mac(secret, os.path.basename(path), b), "a costs file"))
    except (KeyProblem, safeio.UnreadableFile, ValueError, RecursionError, OSError):
        return {}
    return _valid(doc, unit_path)


def _valid(doc, unit_path: str) -> dict:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("unit") != os.path.abspath(unit_path):
        return {}
    costs = doc.get("costs")
    if not isinstance(costs, dict) or len(costs) > MAX_DEFINITIONS:
        return {}
    for k, v in costs.items():
        if (not isinstance(k, str) or len(k) > MAX_IDENTITY or isinstance(v, bool) or not isinstance(v, (int, float))
                or not math.isfinite(v) or not 0 <= v <= MAX_SECONDS):
            return {}
    return {k: float(v) for k, v in costs.items()}


def write_costs(directory: str, unit_path: str, costs: dict) -> str | None:
    """Writes the unit's measured costs (replacing the last run's); returns why it could not, or
    None (also when the cache key is unusable: the unit cache is off then, and says so)."""
    if not costs or len(costs) > MAX_DEFINITIONS:
        return None
    try:
        secret = load_secret()
    except KeyProblem:
        return None
    path = path_for(directory, unit_path)
    body = json.dumps({"format": FORMAT, "unit": os.path.abspath(unit_path),
                       "costs": {k: round(v, 5) for k, v in sorted(costs.items())}},
                      separators=(",", ":"), ensure_ascii=True).encode()
    data = seal(MAGIC, _mac(secret, os.path.basename(path), body), body)
    if len(data) > MAX_BYTES:
        return None
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, exist_ok=True)
        if os.path.islink(folder) or not os.path.isdir(folder):
            return f"{folder}: not a directory"
        global _pruned
        if not _pruned:  # once per process, as the other cache files
            _pruned = True
            prune_directory(folder, _NAME, MAGIC)
        replace_atomically(folder, path, data)
    except (OSError, safeio.UnwritableFile) as e:
        return f"{folder}: cannot write: {getattr(e, 'strerror', None) or e}"
    return None
