"""Per-function states, seconds and findings of the analysis stage alone, on one unit.

    python -m tests.analysis.measure_states UNIT OUT.json [--errors unwind] [-- CLANG_ARGS...]

For comparing the analysis before and after a change: the CFGs are built as the engine builds
them, then each is analysed and timed on its own. Not a test (timings are machine-dependent).
"""

from __future__ import annotations

import json
import sys
import time


def main(argv: list[str]) -> int:
    from refcheck.analysis import analyze
    from refcheck.frontend.builder import build_cfg
    from refcheck.conventions import Conventions
    from refcheck.frontend.unit import parse

    clang_args = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    errors = "abort"
    if "--errors" in argv:
        i = argv.index("--errors")
        errors = argv[i + 1]
        del argv[i:i + 2]
    max_states = 50_000
    if "--max-states" in argv:
        i = argv.index("--max-states")
        max_states = int(argv[i + 1])
        del argv[i:i + 2]
    unit, out = argv
    conv = Conventions(errors=errors)
    parsed = parse(unit, clang_args)
    rows = []
    queue = list(parsed.functions)
    total = 0.0
    while queue:
        fn = queue.pop(0)
        cfg = build_cfg(fn, conv)
        queue[:0] = cfg.lambdas
        t = time.perf_counter()
        res = analyze(cfg, conv, max_states, 1e9)
        dt = time.perf_counter() - t
        total += dt
        rows.append({
            "function": cfg.name, "states": res.states, "seconds": round(dt, 4), "incomplete": res.incomplete,
            "findings": [{"rule": f.rule, "location": [f.location.file, f.location.line, f.location.column],
                          "origin": [f.origin.file, f.origin.line, f.origin.column] if f.origin else None,
                          "message": f.message,
                          "path": [[s.location.line, s.location.column, s.message] for s in f.path]}
                         for f in res.findings]})
    summary = {"unit": unit, "errors": errors, "functions": len(rows), "analysis_seconds": round(total, 2),
               "states": sum(r["states"] for r in rows),
               "incomplete": sum(bool(r["incomplete"]) for r in rows),
               "worst": max(rows, key=lambda r: r["seconds"])["function"] if rows else None}
    with open(out, "w") as fh:
        json.dump({"summary": summary, "functions": rows}, fh, indent=0)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
