"""A unit's per-function cache table (`caches/fncache.py`) for its check: whether it is on, its
opening and its saving. `settings` is the unit's `engine.Settings`."""

from __future__ import annotations

import os

from refcheck.findings import UnitResult


def save(table, result: UnitResult, write: bool = True) -> None:
    """Writes the table (unless `write` is off: a shard's or fixup's parent writes it) and notes
    in the result a table ignored or left unwritten."""
    if write:
        table.save()
    if table.rejected:
        result.notes.append(f"ignored the per-function cache table {table.rejected}; "
                            "its functions were checked again")
    if table.write_error:
        from refcheck.caches.fncache import UNWRITABLE_TABLE

        result.notes.append(f"{UNWRITABLE_TABLE}{table.write_error}")


def cache_on(settings) -> bool:
    """Off with --no-cache, without a usable unit key, and for the mutation harness checking
    chosen functions."""
    return settings.function_cache is not None and bool(settings.unit_key) and settings.only_functions is None


def rechecking(path: str, settings) -> bool:
    """A per-function table of this unit and settings exists: most definitions will likely come
    from it (a re-check after an edit), so the parse skips the detailed preprocessing record that
    only instance keys need (frontend/unit.DETAILED_RECORD). When an edit to a header makes them
    all miss, they are built without instance keys: slower, never different."""
    if not cache_on(settings):
        return False
    from refcheck.caches.fncache import table_path

    return os.path.isfile(table_path(settings.function_cache, path, settings.unit_key))


def open_table(path: str, parsed, places: list, settings, conv, files: set):
    """The unit's per-function cache, or None when it is off; `files`: the files it includes,
    relative to the root (`UnitResult.includes`)."""
    if not cache_on(settings):
        return None
    from refcheck.caches.sealed import KeyProblem, load_secret
    from refcheck.caches.fncache import FunctionCache

    try:
        secret = load_secret()
    except KeyProblem:
        return None  # the parent says so once (its unit cache is off for the same reason)
    may_raise = conv.unit_may_raise if conv.errors == "unwind" and conv.may_raise_summaries else None
    # The glib and cpython presets (`infer_steals`) read other bodies of the unit for a function's
    # check (callbacks, destroyers of a record, field owners): no key of one body alone covers them.
    # Nor does it where a C++ class's member bodies are read for a holder local (frontend.raii).
    return FunctionCache(settings.function_cache, settings.unit_key, path, parsed, places, files,
                         may_raise, secret, whole_unit=conv.infer_steals or _has_members(parsed))


def _has_members(parsed) -> bool:
    """The unit defines C++ class members (a RAII holder's destructor, its `Detach`)."""
    from refcheck.frontend.clangutil import K, kind_of

    members = (K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION)
    return any(kind_of(fn) in members for fn in parsed.functions)
