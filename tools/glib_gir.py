"""Writes refcheck/data/glib_gir.json, the `glib` preset's ownership table, from GLib's .gir files.

    python tools/glib_gir.py [--gir-dir /usr/share/gir-1.0] [-o refcheck/data/glib_gir.json]

Reads GLib-2.0.gir, GModule-2.0.gir (gmodule.h, beside glib.h), GObject-2.0.gir and Gio-2.0.gir
(Debian: gir1.2-glib-2.0 / libgirepository1.0-dev) and records, per C function, what refcheck.conventions.gir reads from them.
Functions whose names the preset's own patterns make a retain, release or consume
(g_object_ref, g_object_unref, g_free, ...) keep that role and are left out: GIR says
g_object_ref returns a full reference, which is its argument retained, not a fresh object.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from refcheck.conventions.gir import GirError, floating_results, gir_version, parse_gir  # noqa: E402
from refcheck.conventions.glibpreset import base_glib  # noqa: E402

FILES = ("GLib-2.0.gir", "GModule-2.0.gir", "GObject-2.0.gir", "Gio-2.0.gir")
KEEP_PATTERN_ROLES = ("retain", "release", "consume", "reallocate", "error", "exit")


def glib_version() -> str:
    try:
        return subprocess.run(["pkg-config", "--modversion", "glib-2.0"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gir-dir", default="/usr/share/gir-1.0")
    ap.add_argument("-o", "--output", default=os.path.join("refcheck", "data", "glib_gir.json"))
    args = ap.parse_args(argv)
    conv = base_glib()
    table: dict = {}
    sources = []
    floating: list[str] = []
    for name in FILES:
        path = os.path.join(args.gir_dir, name)
        try:
            records = parse_gir(path)
            sources.append(gir_version(path))
            floating += floating_results(path)
        except GirError as e:
            print(f"glib_gir: {e}", file=sys.stderr)
            return 2
        for fn, record in records.items():
            if conv.classify(fn) not in KEEP_PATTERN_ROLES:
                table[fn] = record
    out = {"glib-version": glib_version(), "sources": sources, "generated-by": "tools/glib_gir.py",
           "floating": sorted(set(floating)), "summaries": dict(sorted(table.items()))}
    with open(args.output, "w", encoding="utf-8") as f:
        f.write("{\n")
        head = [f'  {json.dumps(k)}: {json.dumps(v)}' for k, v in out.items() if k != "summaries"]
        f.write(",\n".join(head) + ',\n  "summaries": {\n')
        rows = [f'    {json.dumps(k)}: {json.dumps(v, sort_keys=True)}' for k, v in out["summaries"].items()]
        f.write(",\n".join(rows) + "\n  }\n}\n")
    print(f"glib_gir: {len(table)} functions from {', '.join(sources)} (GLib {out['glib-version']}) "
          f"-> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
