"""Baselines: accept the findings a code base has today, fail only on new ones.

A finding is identified by the same line-independent fingerprint SARIF results carry (file,
function, rule and the normalized text of the primary and acquisition statements), so that
unrelated edits above it keep it matched while a change to the statements involved makes it new.
Identical fingerprints are counted, so a second copy of the same leak in a function is still new.
"""

from __future__ import annotations

import json
import os
from collections import Counter

from refcheck.support import safeio
from refcheck.support.errors import ConfigError
from refcheck.findings import Finding
from refcheck.findings.fingerprint import base_fingerprint
from refcheck.findings.source import SourceCache

VERSION = 1
# A baseline of a million findings is ~200 MB; anything bigger is not one of ours.
MAX_BYTES = 256 << 20


def fingerprint(finding: Finding, sources: SourceCache) -> str:
    return base_fingerprint(finding, sources)


def write(path: str, findings: list[Finding], sources: SourceCache) -> None:
    records = sorted(({"fingerprint": fingerprint(f, sources), "rule": f.rule,
                       "file": f.location.file, "function": f.function, "message": f.message}
                      for f in findings),
                     key=lambda r: (r["file"], r["function"], r["rule"], r["fingerprint"]))
    text = json.dumps({"version": VERSION, "tool": "refcheck", "findings": records}, indent=2) + "\n"
    try:
        safeio.write_file(path, text.encode("utf-8"))
    except safeio.UnwritableFile as e:
        raise ConfigError(f"{path}: cannot write baseline: {e}") from None


def load(path: str) -> Counter:
    """Fingerprint -> how many findings the baseline accepts with it."""
    return Counter(fp for fp, _ in load_entries(path))


def load_entries(path: str) -> list[tuple[str, str | None]]:
    """(fingerprint, file) for each baseline record; file is None where the record has none."""
    if not os.path.lexists(path):
        raise ConfigError(f"{path}: baseline not found (create it with --write-baseline)")
    try:
        # Bounded and regular files only: a FIFO named as the baseline must not hang the run.
        raw = safeio.read_regular(path, MAX_BYTES)
    except safeio.UnreadableFile as e:
        raise ConfigError(f"{path}: cannot read baseline: {e}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ConfigError(f"{path}: not a refcheck baseline (not valid JSON: {e})") from None
    except RecursionError:
        raise ConfigError(f"{path}: not a refcheck baseline (nested too deeply)") from None
    if not isinstance(data, dict) or data.get("tool") != "refcheck" or not isinstance(data.get("findings"), list):
        raise ConfigError(f"{path}: not a refcheck baseline (expected an object with "
                          f"\"tool\": \"refcheck\" and a \"findings\" list)")
    if data.get("version") != VERSION:
        raise ConfigError(f"{path}: baseline version {data.get('version')!r} is not supported "
                          f"(expected {VERSION}); write it again with --write-baseline")
    entries = []
    for i, record in enumerate(data["findings"]):
        if not isinstance(record, dict) or not isinstance(record.get("fingerprint"), str):
            raise ConfigError(f"{path}: findings[{i}]: expected an object with a \"fingerprint\" string")
        file = record.get("file")
        entries.append((record["fingerprint"], file if isinstance(file, str) else None))
    return entries


def new_findings(findings: list[Finding], accepted: Counter, sources: SourceCache) -> list[Finding]:
    left = Counter(accepted)
    out = []
    for f in findings:
        fp = fingerprint(f, sources)
        if left[fp] > 0:
            left[fp] -= 1
        else:
            out.append(f)
    return out


def fixed_entries(findings: list[Finding], entries: list[tuple[str, str | None]],
                  sources: SourceCache, checked: set[str]) -> int:
    """How many baseline entries no finding matches any more, counting only entries for files
    this run checked: a pre-commit run over two files says nothing about the rest."""
    left = Counter(fingerprint(f, sources) for f in findings)
    fixed = 0
    for fp, file in entries:
        if left[fp] > 0:
            left[fp] -= 1
        elif file in checked:
            fixed += 1
    return fixed
