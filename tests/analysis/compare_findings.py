"""Compare two refcheck JSON reports finding by finding: `python -m tests.analysis.compare_findings A.json B.json`.

Findings are matched on (file, line, column, rule, origin); their message, function and
instantiations must agree too. Errors are compared as a set of messages. `--ignore-functions
NAME,...` leaves out findings whose every instantiation is one of the named functions (functions
that were cut off by the state bound in one of the runs). Exit 1 when anything differs.
"""

from __future__ import annotations

import json
import sys


def _key(f: dict) -> tuple:
    origin = f.get("origin")
    return (f["file"], f["line"], f["column"], f["rule"],
            tuple(origin.values()) if isinstance(origin, dict) else origin)


def compare(a: dict, b: dict, ignore: set[str]) -> list[str]:
    def keep(f):
        return not (ignore and set(f.get("instantiations") or [f["function"]]) <= ignore)

    fa = {_key(f): f for f in a["findings"] if keep(f)}
    fb = {_key(f): f for f in b["findings"] if keep(f)}
    out = []
    for k in sorted(fa.keys() - fb.keys(), key=str):
        out.append(f"only in A: {k} {fa[k]['message']}")
    for k in sorted(fb.keys() - fa.keys(), key=str):
        out.append(f"only in B: {k} {fb[k]['message']}")
    for k in sorted(fa.keys() & fb.keys(), key=str):
        for field in ("message", "function", "instantiations", "name", "path"):
            if fa[k].get(field) != fb[k].get(field):
                out.append(f"{field} differs at {k}: {fa[k].get(field)!r} != {fb[k].get(field)!r}")
    ea = {e["message"] for e in a.get("errors", [])}
    eb = {e["message"] for e in b.get("errors", [])}
    out += [f"error only in A: {m}" for m in sorted(ea - eb)]
    out += [f"error only in B: {m}" for m in sorted(eb - ea)]
    return out


def main(argv: list[str]) -> int:
    ignore: set[str] = set()
    if "--ignore-functions" in argv:
        i = argv.index("--ignore-functions")
        ignore = set(argv[i + 1].split(","))
        del argv[i:i + 2]
    a, b = (json.load(open(p, encoding="utf-8")) for p in argv)
    diffs = compare(a, b, ignore)
    print("\n".join(diffs) if diffs else f"identical: {len(a['findings'])} findings")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
