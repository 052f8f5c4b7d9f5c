"""Which files are translation units: the paths given, walked, filtered by extension and exclude."""

from __future__ import annotations

import os

from refcheck.support.errors import ConfigError
from refcheck.filters.selection import path_matches

# Headers are checked through the units that include them; naming one is not an error, since
# pre-commit passes every changed C file, headers included.
HEADER_EXTENSIONS = (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc", ".ipp", ".tpp")


def relative(path: str, root: str) -> str:
    """A root-relative posix path for files under root, else the absolute path."""
    rel = os.path.relpath(path, root)
    if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
        return path
    return rel.replace(os.sep, "/")


def excluded(path: str, root: str, patterns: list[str]) -> bool:
    rel = relative(path, root)
    return any(path_matches(rel, p) for p in patterns)


class NoSources(ConfigError):
    """A directory without any source: a warning when other paths were given or found nothing
    either, since pre-commit and monorepo scripts pass directories that may hold no C code."""


def discover(paths: list[str], extensions: list[str], exclude: list[str], root: str,
             skip_dirs: tuple[str, ...] = (), problems: list[tuple[str, str]] | None = None) -> list[str]:
    """Absolute, sorted, unique unit paths; a usage error for a missing path or an empty directory.

    With `problems`, such a path is recorded there as (path, message, severity) instead, and the
    other paths are still searched: one mistyped name must not cost the results for the rest.
    A directory without sources is recorded as a "warning", every other problem as an "error"."""
    if problems is not None:
        found_all: set[str] = set()
        for given in paths:
            try:
                found_all.update(discover([given], extensions, exclude, root, skip_dirs))
            except ConfigError as e:
                severity = "warning" if isinstance(e, NoSources) else "error"
                problems.append((given, str(e).split(": ", 1)[-1], severity))
        return sorted(found_all)
    found: set[str] = set()
    exts = tuple(e.lower() for e in extensions)
    skip = {os.path.abspath(d) for d in skip_dirs}
    for given in paths:
        path = os.path.abspath(given)
        if os.path.isdir(path):
            before = len(found)
            seen_source = False
            for dirpath, dirnames, filenames in os.walk(path):
                # Hidden directories (.git, caches) and excluded ones are never descended into.
                dirnames[:] = sorted(
                    d for d in dirnames
                    if not d.startswith(".") and os.path.join(dirpath, d) not in skip
                    and not excluded(os.path.join(dirpath, d), root, exclude))
                for name in filenames:
                    if name.lower().endswith(exts):
                        seen_source = True
                        full = os.path.join(dirpath, name)
                        if not excluded(full, root, exclude):
                            found.add(full)
            if len(found) == before and not seen_source:
                raise NoSources(f"{given}: no C, C++ or CUDA sources in this directory "
                                  f"(looked for {', '.join(extensions)})")
        elif os.path.exists(path):
            lower = path.lower()
            if lower.endswith(exts):
                if not excluded(path, root, exclude):
                    found.add(path)
            elif not lower.endswith(HEADER_EXTENSIONS):
                raise ConfigError(f"{given}: not a C, C++ or CUDA source "
                                  f"(expected one of {', '.join(extensions)})")
        else:
            raise ConfigError(f"{given}: no such file or directory")
    return sorted(found)
