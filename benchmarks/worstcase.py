"""Worst-case functions: deeply nested branches, a long switch, many owned references at once,
each at growing sizes. refcheck's per-function bounds (max-states, function-seconds) must keep
the time of one function bounded however the paths multiply; this measures it."""

from __future__ import annotations

import os
import statistics

import checks
import corpus

SHAPES = ("nested", "switch", "many")


def nested(n: int) -> list[str]:
    out = ["void worst_nested(THFloatTensor *src, const int *c)", "{"]
    for i in range(n):
        pad = "  " * (i + 1)
        out += [f"{pad}if (c[{i}]) {{", f"{pad}  THFloatTensor *t{i} = THFloatTensor_newClone(src);"]
    for i in reversed(range(n)):
        pad = "  " * (i + 1)
        out += [f"{pad}  THFloatTensor_free(t{i});", f"{pad}}}"]
    return out + ["}"]


def switch(n: int) -> list[str]:
    out = ["int64_t worst_switch(THFloatTensor *src, int k)", "{", "  int64_t r = 0;",
           "  THFloatTensor *t = THFloatTensor_newContiguous(src);", "  switch (k) {"]
    for i in range(n):
        out += [f"  case {i}: {{", "    THFloatTensor *v = THFloatTensor_newSelect(t, 0, k);",
                f"    r += THFloatTensor_size(v, 0) * {i + 1};", "    THFloatTensor_free(v);"]
        out += ["    THFloatTensor_free(t);", "    return r;", "  }"] if i % 3 == 0 else ["    break;", "  }"]
    return out + ["  default:", "    break;", "  }", "  THFloatTensor_free(t);", "  return r;", "}"]


def many(n: int) -> list[str]:
    out = ["int64_t worst_many(THFloatTensor *src, const int *c)", "{", "  int64_t r = 0;"]
    out += [f"  THFloatTensor *t{i} = THFloatTensor_newNarrow(src, 0, {i}, 1);" for i in range(n)]
    out += [f"  if (c[{i}])\n    r += THFloatTensor_size(t{i}, 0);" for i in range(n)]
    out += [f"  THFloatTensor_free(t{i});" for i in range(n)]
    return out + ["  return r;", "}"]


def write(directory: str, sizes: list[int]) -> list[tuple[str, int, str]]:
    """One unit per (shape, size) over the corpus headers: (shape, size, unit path)."""
    corpus.generate(directory, 0.001)  # the headers (and a tiny unit we do not check)
    os.makedirs(os.path.join(directory, "worst"), exist_ok=True)
    units = []
    for shape in SHAPES:
        for n in sizes:
            rel = f"worst/{shape}_{n}.c"
            body = globals()[shape](n)
            with open(os.path.join(directory, rel), "w", encoding="utf-8") as f:
                f.write('#include "THB.h"\n\n' + "\n".join(body) + "\n")
            units.append((shape, n, rel))
    return units


def measure(directory: str, sizes: list[int], repeat: int) -> list[dict]:
    rows = []
    for shape, n, rel in write(directory, sizes):
        times, errors, findings = [], 0, 0
        for _ in range(repeat):
            c = checks.refcheck(directory, [rel], jobs=1, cache_dir=None)
            times.append(c.stages.get("cfg", 0.0) + c.stages.get("analysis", 0.0))
            errors, findings = c.tool_errors, len(c.findings)
        rows.append({"shape": shape, "size": n, "seconds": statistics.median(times),
                     "runs": times, "bounded": errors > 0, "findings": findings})
        print(f"  worst {shape:<7} n={n:<4} {rows[-1]['seconds']:.3f} s"
              f"{'  (bound reached: not fully checked)' if errors else ''}", flush=True)
    return rows
