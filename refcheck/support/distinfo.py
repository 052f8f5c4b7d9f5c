"""An installed wheel's version and files, read from its `.dist-info` directory on sys.path.

Every run asks which libclang and clang-tidy wheels are installed (frontend/headers.py) before its
first unit; `importlib.metadata` answers in 11-15 ms, most of it importing the module (email,
zipfile, csv's helpers), while a wheel's dist-info is two small text files in a directory of
sys.path. `find` reads them the way `importlib.metadata` searches: the first sys.path entry that
holds the distribution wins. It answers None where it finds no plain dist-info (an egg, a zip on
sys.path): the caller then asks `importlib.metadata` itself.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Dist:
    path: str  # the .dist-info directory
    version: str

    def files(self) -> list[str]:
        """The paths RECORD lists, relative to the directory holding the dist-info."""
        import csv

        try:
            with open(os.path.join(self.path, "RECORD"), encoding="utf-8", newline="") as f:
                return [row[0] for row in csv.reader(f) if row]
        except OSError:
            return []

    def locate(self, file: str) -> str:
        return os.path.join(os.path.dirname(self.path), file)


def _normal(name: str) -> str:
    # PEP 503's normal form, as a dist-info's name is written with `_` for any run of `-_.`.
    return re.sub(r"[-_.]+", "_", name).lower()


def find(name: str) -> Dist | None:
    want = _normal(name)
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for n in names:
            stem, dot, kind = n.rpartition(".")
            if not dot or kind not in ("dist-info", "egg-info") or _normal(stem.split("-")[0]) != want:
                continue
            if kind == "egg-info":
                return None  # importlib.metadata reads an egg's other layouts
            version = _version(os.path.join(entry or ".", n))
            if version:
                return Dist(os.path.join(entry or ".", n), version)
    return None


def _version(path: str) -> str:
    try:
        with open(os.path.join(path, "METADATA"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
                if not line.strip():  # the headers end at the first blank line
                    break
    except OSError:
        pass
    return ""
