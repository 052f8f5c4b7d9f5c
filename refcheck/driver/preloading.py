"""A worker's background import of what a check needs, beside its first parse (libclang's parse
releases the GIL), stopped as soon as a parse ends."""

from __future__ import annotations

import threading

# What a unit's check imports once its parse is done: these took longer to import than
# 10% of torch7's THTensor.c parse, which is the whole of a re-check served by the per-function
# cache. A worker imports them in the background while its first parse runs (libclang's parse
# releases the GIL), the ones every check needs first.
AFTER_PARSE = ("refcheck.reuse.plan", "refcheck.analysis", "refcheck.frontend.builder", "refcheck.caches.fncache",
               "refcheck.reuse.instances")
# Set when a parse ends: from then on the check imports what it needs itself, and a background
# import would only compete with it for the interpreter (a small unit's parse ends long before
# the imports do).
PARSED = threading.Event()
# The worker's preload thread (start_preload), joined before a fork: a child must not inherit a
# module half imported by a thread it does not have.
_preloader: threading.Thread | None = None


def start_preload() -> None:
    """Starts `preload` in a thread of its own (a worker, before its first job)."""
    global _preloader
    _preloader = threading.Thread(target=preload, name="refcheck-preload", daemon=True)
    _preloader.start()


def join() -> None:
    """Waits for the preload thread (it stops at the next module once a parse has ended)."""
    if _preloader is not None:
        _preloader.join()


def preload() -> None:
    """Imports AFTER_PARSE until a parse ends (a worker's background thread). Never raises: a
    module that fails to import here fails again, and is reported, where the check imports it."""
    import importlib

    for name in AFTER_PARSE:
        if PARSED.is_set():
            return
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - see the docstring
            return


def parsed() -> None:
    """A parse has ended: the check imports what it needs itself from here on."""
    PARSED.set()


def warm() -> None:
    """What a worker's first check does first, done before its first job (a worker forked before
    the parent's start, commands/prestart.py, while the parent starts): the frontend, AFTER_PARSE and
    libclang itself. Never raises: the check imports and loads them again, and reports why not."""
    import importlib

    for name in ("refcheck.frontend.unit", *AFTER_PARSE):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - see the docstring
            return
    from refcheck.frontend.unit import load_libclang

    try:
        load_libclang()
    except Exception:  # noqa: BLE001 - see the docstring
        pass
