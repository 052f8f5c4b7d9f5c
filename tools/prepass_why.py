"""Tabulate REFCHECK_PREPASS_WHY's lines (refcheck/analysis/prepass.py): per reason the first pass
gave for not proving a function, how many analyses, their exploration's CPU seconds and states, and
how many of them had findings.

    REFCHECK_PREPASS_WHY=/tmp/why.jsonl refcheck check ... --no-cache
    python tools/prepass_why.py /tmp/why.jsonl
"""

from __future__ import annotations

import json
import sys


def table(lines) -> list[str]:
    rows: dict[tuple, list] = {}
    first = 0.0
    for line in lines:
        r = json.loads(line)
        first += r["pass_s"]
        key = (r["why"] or "PROVED", "with findings" if r.get("findings") else "no finding")
        acc = rows.setdefault(key, [0, 0.0, 0])
        acc[0] += 1
        acc[1] += r.get("explore_s", 0.0)
        acc[2] += r.get("states", 0)
    total = sum(a[0] for a in rows.values())
    out = [f"{total} analyses, first pass {first:.2f} s, explorations {sum(a[1] for a in rows.values()):.2f} s"]
    for (why, found), (n, secs, states) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
        out.append(f"{n:5d} {secs:7.2f} s {states:8d} states  {why} ({found})")
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tools/prepass_why.py FILE.jsonl", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as f:
            print("\n".join(table(f)))
    except (OSError, ValueError, KeyError) as e:
        print(f"prepass_why: cannot read {argv[0]}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
