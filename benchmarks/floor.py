"""The parse floor: the units refcheck would check, parsed by libclang with exactly refcheck's
arguments and options, one process, and nothing else. Prints JSON: seconds per unit.

    python benchmarks/floor.py CORPUS_DIR src
    python benchmarks/floor.py CORPUS_DIR lib/TH/*.c --clang-arg=-Ilib/TH   # as refcheck's --clang-arg
    python benchmarks/floor.py CORPUS_DIR -p build   # every unit of a compile database, its arguments
"""

from __future__ import annotations

import json
import os
import sys
import time


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: floor.py CORPUS_DIR PATH...", file=sys.stderr)
        return 2
    corpus = argv[0]
    extra = [a.split("=", 1)[1] for a in argv[1:] if a.startswith("--clang-arg=")]
    paths = [a for a in argv[1:] if not a.startswith("--clang-arg=")]
    database = paths[1] if paths[:1] == ["-p"] and len(paths) == 2 else None
    os.chdir(corpus)
    if database is not None:
        return _database_floor(database, extra)
    import clang.cindex as ci

    # Arguments as refcheck builds them (runner.args_for -> frontend.parse), so that the floor
    # parses the same thing; refcheck's code only computes the argument list here.
    from refcheck.workspace import config
    from refcheck.frontend.unit import language_args
    from refcheck.frontend.headers import find_builtin_headers
    from refcheck.workspace.sources import discover

    cfg = config.load()
    units = discover(paths, cfg.extensions, cfg.exclude, cfg.root)
    builtin = list(find_builtin_headers().args)
    index = ci.Index.create()
    per_unit = {}
    for path in units:
        user = cfg.fallback_args() + extra
        args = language_args(path, user) + builtin + user
        started = time.perf_counter()
        # The bare parse: no detailed preprocessing record, which refcheck's own parse asks for
        # (frontend/unit.DETAILED_RECORD) and pays for on its side of the ratio.
        tu = index.parse(path, args=args, options=0)
        errors = sum(1 for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error)
        del tu
        per_unit[os.path.relpath(path)] = {
            "seconds": time.perf_counter() - started, "errors": errors}
    json.dump({"units": per_unit, "parse_seconds": sum(u["seconds"] for u in per_unit.values())},
              sys.stdout)
    return 0


def _database_floor(database: str, extra: list[str]) -> int:
    """`-p BUILD`: every unit the compile database lists, with the arguments refcheck's
    `check -p BUILD` gives it (the database's, adapted to clang as driver/units.py does)."""
    import clang.cindex as ci

    from refcheck.frontend import gcc
    from refcheck.driver.units import _builtin_include
    from refcheck.frontend.headers import find_builtin_headers
    from refcheck.frontend.unit import language_args
    from refcheck.workspace import compdb

    db = compdb.load(database)
    builtin = list(find_builtin_headers().args)
    index = ci.Index.create()
    per_unit = {}
    for path in sorted(db.units):
        user = list(gcc.adapt(db.units[path], _builtin_include(), from_database=True).args) + extra
        started = time.perf_counter()
        tu = index.parse(path, args=language_args(path, user) + builtin + user, options=0)
        errors = sum(1 for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error)
        del tu
        per_unit[os.path.relpath(path)] = {"seconds": time.perf_counter() - started, "errors": errors}
    json.dump({"units": per_unit, "parse_seconds": sum(u["seconds"] for u in per_unit.values())}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
