"""The GObject-Introspection data a system ships for the libraries a GLib project calls besides
GLib itself (issue 32: libsoup, json-glib, GdkPixbuf...), for the `glib` preset.

A distribution installs a library's `.gir` beside its headers (`/usr/share/gir-1.0/Soup-3.0.gir`
with libsoup's `-dev` package or its `gir1.2-*` one): the ownership of every introspectable
function, `(transfer full)` on `soup_form_encode_hash`'s result, `json_builder_get_root`'s. GLib's
own four are the preset's committed table (`refcheck/data/glib_gir.json`); the others are read
from the machine, as its headers are. A callee takes such a record only where it is declared in
a system header of that library: the header's folder, or one of the two above it, holds the
`<c:include>` the .gir names (`/usr/include/libsoup-3.0` + `libsoup/soup.h`). A project's own
functions, declared in its own headers, keep their bodies' records (json-glib checked from its
source never reads the installed Json-1.0.gir for itself).
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass

from refcheck.conventions.records import RecordError

# The tables GLib's own .gir files make are committed (tools/glib_gir.py): never read twice.
BUNDLED = frozenset({"GLib-2.0.gir", "GObject-2.0.gir", "Gio-2.0.gir", "GModule-2.0.gir"})
_INCLUDE = re.compile(rb'<c:include\s+name="([^"]+)"')
_PACKAGE = re.compile(rb'<package\s+name="([^"]+)"')
# The head of a .gir that holds its <c:include> lines (they come before the namespace).
_HEAD = 16384


@dataclass(frozen=True)
class InstalledGir:
    path: str
    includes: tuple[str, ...]  # `<c:include name=...>`: "libsoup/soup.h"
    stamp: tuple[int, int]  # size and modification time: a new version changes the fingerprint
    # `<package name=...>`, the pkg-config names: "libsoup-3.0", whose headers' folder it names.
    packages: tuple[str, ...] = ()


def gir_dirs() -> list[str]:
    """Where GObject-Introspection looks for .gir files: $XDG_DATA_DIRS/gir-1.0, then the usual."""
    data = [d for d in os.environ.get("XDG_DATA_DIRS", "").split(os.pathsep) if d]
    dirs = [os.path.join(d, "gir-1.0") for d in data] + ["/usr/local/share/gir-1.0", "/usr/share/gir-1.0"]
    return list(dict.fromkeys(os.path.normpath(d) for d in dirs))


def installed(dirs: tuple[str, ...] | None = None) -> tuple[InstalledGir, ...]:
    """Every installed .gir (in `dirs`, default `gir_dirs()`) but GLib's own four, with the headers
    it names (the first of a name wins)."""
    out, seen = [], set()
    for d in gir_dirs() if dirs is None else dirs:
        for path in sorted(glob.glob(os.path.join(d, "*.gir"))):
            name = os.path.basename(path)
            if name in BUNDLED or name in seen:
                continue
            seen.add(name)
            try:
                with open(path, "rb") as f:
                    head = f.read(_HEAD)
                st = os.stat(path)
            except OSError:
                continue
            includes = tuple(m.decode("utf-8", "replace") for m in _INCLUDE.findall(head))
            packages = tuple(m.decode("utf-8", "replace") for m in _PACKAGE.findall(head))
            if includes:
                out.append(InstalledGir(path, includes, (st.st_size, st.st_mtime_ns), packages))
    return tuple(out)


# The installed files -> a header's name -> the installed .gir whose headers it is among, or None.
_FOLDERS: dict = {}
_LAST: list = [None, None]  # the tuple of files last asked about, and its entry of _FOLDERS
# (.gir path, conventions fingerprint) -> name -> Summary.
_TABLES: dict = {}


def gir_of(girs: tuple[InstalledGir, ...], header: str) -> InstalledGir | None:
    """The installed .gir a system header belongs to (see the module's docstring), or None."""
    # Asked at every call of a system header's function (3,443 times on geocode-glib): the
    # header's name is the key, its folder made absolute only the first time.
    # The folders are kept per tuple of files, found by identity first: hashing the tuple (the
    # files' include lists) at each call cost more than the lookup.
    if _LAST[0] is not girs:
        key = tuple(girs)  # equal tuples share their folders
        if key not in _FOLDERS or len(_FOLDERS[key]) > 4096:
            _FOLDERS[key] = {}
        _LAST[:] = [girs, _FOLDERS[key]]
    folders = _LAST[1]
    if header not in folders:
        folders[header] = _find(girs, os.path.dirname(os.path.abspath(header)))
    return folders[header]


def _find(girs: tuple[InstalledGir, ...], folder: str) -> InstalledGir | None:
    """The .gir whose `<c:include>` is in the header's own folder, else the nearest above it: one
    prefix folder can hold several libraries' headers (/usr/include/gtk-3.0 holds gdk/ and gtk/,
    and Gdk-3.0.gir, first by name, is no word on gtk/gtklabel.h; issue 32, glib25). Two versions
    of one library name the same header (Soup-2.4.gir and Soup-3.0.gir: `libsoup/soup.h`): the one
    whose package names a folder of the header's path wins (`/usr/include/libsoup-3.0/...`: issue
    32, glib35, where Soup-2.4.gir, first by name, cost libgweather three true leaks)."""
    tops = [folder, os.path.dirname(folder), os.path.dirname(os.path.dirname(folder))]
    parts = set(folder.split(os.sep))
    best, rank = None, (len(tops) + 1, 1)
    for gir in girs:
        other = 0 if parts & set(gir.packages) else 1
        for inc in gir.includes:
            for i, top in enumerate(tops):
                path = os.path.join(top, inc)
                r = (0 if os.path.dirname(os.path.normpath(path)) == folder else i + 1, other)
                if r < rank and os.path.isfile(path):
                    best, rank = gir, r
        if rank == (0, 0):
            return best
    return best


def records(conv, gir: InstalledGir, convert) -> dict:
    """The records of one installed .gir, made by `convert` as the preset makes GLib's
    (`glibpreset.gir_records`: a name whose role the patterns decide keeps it); an unreadable file
    gives none."""
    key = (gir.path, gir.stamp, conv.fingerprint())
    if key not in _TABLES:
        # Imported here: the XML reader, for a unit that includes an installed .gir's headers.
        from refcheck.conventions.gir import GirError, parse_gir

        if len(_TABLES) > 64:
            _TABLES.clear()
        try:
            _TABLES[key] = convert(conv, parse_gir(gir.path), os.path.basename(gir.path))
        except (GirError, RecordError):
            _TABLES[key] = {}  # a broken file of the system's says nothing: the patterns decide
    return _TABLES[key]
