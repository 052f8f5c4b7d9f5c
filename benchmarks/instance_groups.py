"""Where a unit's builds go under instance keys: how many instance groups are built, and how
many of those build a graph an earlier group at the same place already had (a build the keys
could have saved), with the names each such pair was keyed apart by.

    python benchmarks/instance_groups.py [--path DIR] [--unit lib/TH/THTensor.c] [--mode abort] [--show N]

Every definition at a place with several is keyed (refcheck/reuse/instances.py); each group's
first member is built and class-keyed (refcheck/reuse/renaming.py). Read-only: it checks nothing.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch7  # noqa: E402


def groups(unit: str, mode: str) -> dict:
    from refcheck.conventions.presets import PRESETS
    from refcheck.frontend.builder import build_cfg_if_relevant
    from refcheck.frontend.clangutil import location
    from refcheck.frontend.unit import parse
    from refcheck.reuse.instances import Instances
    from refcheck.reuse.renaming import class_key

    conv = dataclasses.replace(PRESETS["th"].conventions, errors=mode)
    parsed = parse(unit, list(torch7.FLAGS))
    places = [location(fn) for fn in parsed.functions]
    sites = collections.Counter(places)
    started = time.process_time()
    instances = Instances(parsed, conv)
    first: dict = {}  # instance key -> (index, names)
    for i, (fn, place) in enumerate(zip(parsed.functions, places)):
        got = instances.key(fn, place) if sites[place] > 1 else None
        if got is not None and got[0] not in first:
            first[got[0]] = (i, got[1])
    seconds = time.process_time() - started
    built, redundant, seen = 0, [], {}
    for i, names in first.values():
        cfg = build_cfg_if_relevant(parsed.functions[i], conv)
        if cfg is None:
            continue
        built += 1
        key = (places[i], class_key(cfg, conv)[0])
        if key in seen:
            j, earlier = seen[key]
            redundant.append((parsed.functions[j].spelling, parsed.functions[i].spelling,
                              sorted(set(earlier) ^ set(names))))
        else:
            seen[key] = (i, names)
    return {"keyed": sum(1 for p in places if sites[p] > 1), "groups": len(first), "built": built,
            "classes": len(seen), "redundant": redundant, "key seconds": round(seconds, 3)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--path", help="directory holding lib/TH (default: the snapshot in ../shared/corpora)")
    ap.add_argument("--unit", default="lib/TH/THTensor.c")
    ap.add_argument("--mode", default="abort")
    ap.add_argument("--show", type=int, default=10, help="redundant builds to list")
    a = ap.parse_args(argv)
    os.chdir(a.path or torch7.extracted(torch7.find_snapshot()))
    r = groups(a.unit, a.mode)
    print(f"{a.unit} {a.mode}: {r['keyed']} keyed definitions, {r['groups']} instance groups "
          f"({r['key seconds']} s of keys), {r['built']} built, {r['classes']} graph classes, "
          f"{len(r['redundant'])} builds of a graph an earlier group at the place had")
    for first, later, apart in r["redundant"][:a.show]:
        print(f"  {later} = {first}; names of one only: {' '.join(apart[:8])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
