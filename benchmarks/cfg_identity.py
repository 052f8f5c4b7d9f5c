"""Whether the graph build gives the same graphs as another checkout's: a canonical dump of every
function's graph (locals' libclang hashes renumbered) (lambdas included) of torch7's lib/TH (15 units, `torch7.FLAGS`), in both
--errors modes of the "th" preset, reduced to one digest per unit and mode.

    python benchmarks/cfg_identity.py --out base.json                  # a baseline, from any checkout
    python benchmarks/cfg_identity.py --compare base.json              # this checkout against it
    python benchmarks/cfg_identity.py --out new.json --dump DIR        # also each unit's dump, to diff

benchmarks/results/cfg_identity_1e02e79.json is the baseline of commit 1e02e79 (libclang 18.1.1,
torch7-lib-TH-814ea4a): `--compare` it to check a change to the graph build.

Which checkout's refcheck runs is the one on `sys.path` first: run it with PYTHONPATH=CHECKOUT (the
script itself imports nothing of refcheck at load). Units run in --jobs processes; the dump is
made with sets sorted (their repr order is hash-seed dependent) and everything else in the order
the build made it (node ids, edge order, op order, dict order), so a reordering shows.
It also records, per function, `build_cfg_if_relevant`'s verdict (built or skipped), and the CPU
seconds of the build calls (time.process_time), for a rough before/after.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import hashlib
import json
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch7  # noqa: E402


def canon(x) -> str:
    """repr with sets sorted, dataclasses by field."""
    if isinstance(x, (set, frozenset)):
        return "{" + ", ".join(sorted(canon(v) for v in x)) + "}"
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return type(x).__name__ + "(" + ", ".join(f"{f.name}={canon(getattr(x, f.name))}"
                                                  for f in dataclasses.fields(x)) + ")"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{canon(k)}: {canon(v)}" for k, v in x.items()) + "}"
    if isinstance(x, list):
        return "[" + ", ".join(canon(v) for v in x) + "]"
    if isinstance(x, tuple):
        return "(" + ", ".join(canon(v) for v in x) + ",)"
    return repr(x)


def dump(cfg) -> str:
    g = cfg.graph
    lines = [f"fn {cfg.name} loc={canon(cfg.loc)} entry={cfg.entry} exit={cfg.exit}",
             f"params {canon(cfg.params)}", f"names {canon(cfg.names)}", f"lambdas {len(cfg.lambdas)}"]
    for n, d in g.nodes(data=True):
        lines.append(f"n {n} {canon(d)}")
    for a, b, d in g.edges(data=True):
        lines.append(f"e {a} {b} {canon(d)}")
    return _HASHES.sub(_Numbering(), "\n".join(lines))


# A local's value name is `spelling#hash` with libclang's hash of its declaration, which depends on
# where the process's allocations land (it differs from run to run): each distinct one is numbered
# in order of first appearance within the function (a bijection, so equal graphs dump equal).
_HASHES = re.compile(r"(?<=\w)#\d+")


class _Numbering(dict):
    def __call__(self, m):
        return self.setdefault(m.group(0), f"#v{len(self) + 1}")


def unit(job):
    path, mode, corpus, dump_dir = job
    os.chdir(corpus)
    from refcheck.frontend.builder import build_cfg, build_cfg_if_relevant
    from refcheck.frontend.unit import parse
    from refcheck.conventions.presets import PRESETS

    conv = dataclasses.replace(PRESETS["th"].conventions, errors=mode)
    parsed = parse(path, list(torch7.FLAGS))
    if conv.errors == "unwind" and conv.may_raise_summaries:  # as the engine does
        from refcheck.frontend.raises import may_raise_functions
        conv = dataclasses.replace(conv, unit_may_raise=may_raise_functions(parsed.functions, conv))
    h = hashlib.sha256()
    out = []
    cpu = 0.0
    graphs = 0
    for top in parsed.functions:
        queue = [top]
        while queue:
            fn = queue.pop(0)
            t = time.process_time()
            relevant = build_cfg_if_relevant(fn, conv) is not None
            cfg = build_cfg(fn, conv)
            cpu += time.process_time() - t
            graphs += 1
            queue[:0] = cfg.lambdas
            text = f"relevant={relevant}\n{dump(cfg)}\n"
            h.update(text.encode())
            if dump_dir:
                out.append(text)
    if dump_dir:
        name = os.path.join(dump_dir, f"{os.path.basename(path)}.{mode}.txt")
        with open(name, "w", encoding="utf-8") as f:
            f.writelines(out)
    return f"{path} {mode}", {"digest": h.hexdigest(), "graphs": graphs, "cpu_s": round(cpu, 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the digests here (JSON)")
    ap.add_argument("--compare", help="a digests file to compare with")
    ap.add_argument("--dump", help="a directory for each unit's canonical dump")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--units", nargs="*", help="lib/TH/X.c paths (default: all 15)")
    ap.add_argument("--modes", nargs="*", default=["abort", "unwind"])
    a = ap.parse_args()
    import refcheck
    print(f"refcheck from {os.path.dirname(refcheck.__file__)}")
    corpus = torch7.extracted(torch7.find_snapshot())
    units = a.units or sorted(os.path.relpath(p, corpus) for p in glob.glob(os.path.join(corpus, "lib/TH/*.c")))
    dump_dir = os.path.abspath(a.dump) if a.dump else None
    if dump_dir:
        os.makedirs(dump_dir, exist_ok=True)
    # THTensor.c first: it is most of the work.
    units.sort(key=lambda u: u != torch7.ALONE)
    jobs = [(u, m, corpus, dump_dir) for u in units for m in a.modes]
    with ProcessPoolExecutor(a.jobs) as pool:
        results = dict(pool.map(unit, jobs))
    results = dict(sorted(results.items()))
    for k, v in results.items():
        print(f"{k:40} {v['graphs']:5} graphs {v['cpu_s']:8.2f} s cpu  {v['digest'][:16]}")
    print(f"total build cpu {sum(v['cpu_s'] for v in results.values()):.2f} s")
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    if a.compare:
        with open(a.compare, encoding="utf-8") as f:
            base = json.load(f)
        bad = [k for k in results if k not in base or base[k]["digest"] != results[k]["digest"]]
        bad += [k for k in base if k not in results]
        print("IDENTICAL" if not bad else f"DIFFERENT: {', '.join(bad)}")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
