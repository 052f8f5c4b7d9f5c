"""Whether the instance keys (refcheck/reuse/instances.py) only ever group definitions whose
graphs are the same: every definition is built, and each one that shares an instance key with
an earlier one must

- get the same verdict from `build_cfg_if_relevant` (both skipped, or both built),
- have the same class key (refcheck.reuse.renaming: the same graph up to a renaming of names),
- and be renamed alike: the names the instance key pairs, applied to the first definition's
  graph tokens, give this one's graph tokens (apart from locals' declaration hashes, which
  findings never show), so that the first one's findings renamed by the instance key are this
  one's findings.

    python benchmarks/instances_check.py [--path DIR] [--modes abort,unwind] [--out FILE]

It reads torch7's lib/TH (15 units, `torch7.FLAGS`) by default, and prints and writes how many
definitions had a key, how many were grouped, and every disagreement (exit 1 when there is one).
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch7  # noqa: E402


def check_unit(path: str, mode: str) -> dict:
    from refcheck.conventions.presets import PRESETS
    from refcheck.frontend.unit import parse
    from refcheck.reuse.plan import verify

    conv = dataclasses.replace(PRESETS["th"].conventions, errors=mode)
    parsed = parse(path, list(torch7.FLAGS))
    if mode == "unwind" and conv.may_raise_summaries:
        from refcheck.frontend.raises import may_raise_functions
        conv = dataclasses.replace(conv, unit_may_raise=may_raise_functions(parsed.functions, conv))
    started = time.process_time()
    keyed, grouped, wrong = verify(parsed, conv)
    return {"definitions": len(parsed.functions), "keyed": keyed, "grouped": grouped,
            "disagreements": [dataclasses.asdict(d) for d in wrong],
            "check seconds": round(time.process_time() - started, 3)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--path", help="directory holding lib/TH (default: the snapshot in ../shared/corpora)")
    ap.add_argument("--modes", default="abort,unwind")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "instances_check.json"))
    a = ap.parse_args(argv)
    root = a.path or torch7.extracted(torch7.find_snapshot())
    os.chdir(root)
    units = sorted(glob.glob("lib/TH/*.c"))
    report = {"corpus": root, "units": {}}
    bad = 0
    for mode in a.modes.split(","):
        for unit in units:
            r = check_unit(unit, mode)
            report["units"][f"{unit} {mode}"] = r
            bad += len(r["disagreements"])
            print(f"{mode:6} {unit:32} definitions {r['definitions']:5}"
                  f"  keyed {r['keyed']:5}  grouped {r['grouped']:5}  disagreements {len(r['disagreements'])}"
                  f"  {r['check seconds']:.2f} s", flush=True)
            for d in r["disagreements"][:10]:
                print("   ", d)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    print(f"{bad} disagreement(s); written to {a.out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
