"""The compiled libclang walk's oracle (tests/test_native.py): every parsable fixture unit's
findings in both --errors modes, the graph of every function it defines and its instance key, as
one JSON document on stdout. The test runs it twice, with the compiled walk and with REFCHECK_PURE_PYTHON=1, and
compares the two documents: the same program must read the same values either way.

Run as `python tests/native_oracle.py` from the repository root (it imports test_fixtures' helpers)."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.setrecursionlimit(20000)

import test_fixtures as tf  # noqa: E402

from refcheck.commands.cfg_dump import to_text  # noqa: E402
from refcheck.frontend import native  # noqa: E402
from refcheck.frontend.builder import build_cfg  # noqa: E402
from refcheck.frontend.clangutil import location  # noqa: E402
from refcheck.frontend.handles import counted_types  # noqa: E402
from refcheck.frontend.unit import parse  # noqa: E402
from refcheck.conventions.presets import PRESETS  # noqa: E402
from refcheck.reuse.instances import Instances  # noqa: E402


def _findings(unit: Path, errors: str) -> list[str]:
    # The whole record (place, message, steps), not only what the expectations compare.
    return sorted(repr(f) for f in tf._analyze(unit, errors).findings)


def _graphs(unit: Path) -> list[str]:
    options = tf._sources(unit)[0].options
    parsed = parse(str(unit), ["-I", str(tf.INCLUDE), *options.clang_args])
    conventions = PRESETS[options.preset].conventions
    conv = replace(conventions, unit_counted=counted_types(parsed.top, conventions))
    return [f"{fn.spelling}\n{to_text(build_cfg(fn, conv))}" for fn in parsed.functions]


def _keys(unit: Path) -> list[str]:
    """The instance key (the whole tuple) of every definition, shared place or not: the keys'
    tokenizer and writer have compiled twins too."""
    options = tf._sources(unit)[0].options
    parsed = parse(str(unit), ["-I", str(tf.INCLUDE), *options.clang_args])
    conv = PRESETS[options.preset].conventions
    instances = Instances(parsed, conv)
    return [f"{fn.spelling} {instances.key(fn, location(fn))!r}" for fn in parsed.functions]


def main() -> None:
    out = {"path": native.CHOICE.why.value, "units": {}}
    for unit in tf._parsable_units():
        out["units"][tf._id(unit)] = {"abort": _findings(unit, "abort"), "unwind": _findings(unit, "unwind"),
                                      "graphs": _graphs(unit), "keys": _keys(unit)}
    json.dump(out, sys.stdout, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
