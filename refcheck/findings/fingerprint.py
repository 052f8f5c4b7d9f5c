"""Line-independent identities for findings (SARIF partialFingerprints).

Code scanning services match results between runs by these, so a finding must keep its
fingerprint when unrelated edits shift it down the file, and get a new one when the statements
involved change. We hash what a reader would call "the same defect": the file, the function, the
rule and the normalized text of the primary and the acquisition statements: the text the unit's
check carried with the finding (`Finding.statements`), or for a finding made without one, the
source as it is now.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

from refcheck.findings import Finding
from refcheck.findings.source import SourceCache, statement_text

KEY = "refcheckFingerprint/v1"

_DIGITS = re.compile(r"\d+")


def base_fingerprint(finding: Finding, sources: SourceCache) -> str:
    parts = [finding.location.file, finding.function, finding.rule]
    carried = finding.statements
    if carried is not None:  # read by the unit's check from the bytes it parsed
        parts += [carried.primary, carried.origin]
    else:  # a finding made elsewhere: the source as it is now
        parts.append(_statement(finding.location.file, finding.location.line,
                                finding.location.column, sources))
        origin = finding.origin
        parts.append(_statement(origin.file, origin.line, origin.column, sources) if origin else "")
    if None in parts:
        # Source unreadable: the message names the variable and how it was acquired; drop the
        # line numbers it may quote so that the fingerprint still survives line shifts.
        parts = [p for p in parts if p is not None] + [_DIGITS.sub("", finding.message)]
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32]


def _statement(path: str, line: int, column: int, sources: SourceCache) -> str | None:
    lines = sources.lines(path)
    return None if lines is None else statement_text(lines, line, column)


def fingerprints(findings: list[Finding], sources: SourceCache) -> list[str]:
    """One fingerprint per finding, in order; equal bases get an occurrence suffix.

    Two early `return NULL;` exits that leak the same reference hash alike; numbering them in
    source order (as GitHub's own primaryLocationLineHash does) keeps every result distinct.
    """
    seen: Counter[str] = Counter()
    out = []
    for f in findings:
        base = base_fingerprint(f, sources)
        seen[base] += 1
        out.append(f"{base}:{seen[base]}")
    return out
