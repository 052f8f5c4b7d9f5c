"""Compiled dataclass methods, kept on disk between runs.

`@dataclass` writes each class's `__init__`, `__repr__`, `__eq__`, `__hash__` (and a frozen class's
`__setattr__` and `__delattr__`) as source text and compiles it with `exec`, at every import: for
the ~80 classes a check's worker imports and the ~30 of its parent, the compiles were about half
of their imports' CPU (a 4-field frozen class ~1 ms, `exec` 70% of it). Python's own bytecode
cache does not cover them. While installed (`__main__.run`: a command's process and its workers),
the dataclasses module's `exec` looks each text up in a table of code objects first and compiles
only what it has not seen; the table is one marshal file beside refcheck's own bytecode, written
when new texts were compiled (`save`), unless bytecode is not to be written
(`sys.dont_write_bytecode`, PYTHONDONTWRITEBYTECODE) or the folder is read-only.

A code object compiled from the same text is the same code, so a stale entry is never a wrong one:
the table is keyed by the whole text, and starts over when the Python that wrote it differs
(`importlib.util.MAGIC_NUMBER`) or it grows past `LIMIT` entries.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys

LIMIT = 4000
_HEADER = b"refcheck-dataclass-code\n"
_table: dict | None = None
_new = 0


def _path() -> str:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(here, "__pycache__", f"dataclass-code.{sys.implementation.cache_tag}.marshal")


def _magic() -> bytes:
    from importlib.util import MAGIC_NUMBER

    return MAGIC_NUMBER


def _load() -> dict:
    try:
        with open(_path(), "rb") as f:
            data = f.read()
        head = _HEADER + _magic()
        if data.startswith(head):
            table = marshal.loads(data[len(head):])
            if isinstance(table, dict):
                return table
    except (OSError, ValueError, EOFError, TypeError):
        pass
    return {}


def _exec(source, globals=None, locals=None, /):
    """The dataclasses module's `exec`: a text compiled before runs from the table."""
    global _new
    if globals is None:  # as the builtin: the caller's namespaces (dataclasses always passes its own)
        caller = sys._getframe(1)
        globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
    if isinstance(source, str) and _table is not None:
        code = _table.get(source)
        if code is None:
            code = _table[source] = compile(source, "<string>", "exec", dont_inherit=True)  # as exec: no flags of ours
            _new += 1
        source = code
    return builtins.exec(source, globals, locals)


def install() -> None:
    """Loads the table and routes `@dataclass`'s compiles through it (once per process; a forked
    worker inherits both)."""
    global _table
    if _table is not None or sys.implementation.name != "cpython":
        return
    import dataclasses

    import atexit

    _table = _load()
    dataclasses.exec = _exec  # a module global shadows the builtin in dataclasses' own calls
    atexit.register(save)  # the parent's; a worker ends in os._exit and saves after its imports


def save() -> None:
    """Writes the table if this process compiled texts it lacked: merged with what another
    process wrote meanwhile, replaced atomically. Never raises."""
    global _new
    if not _new or _table is None or sys.dont_write_bytecode:
        return
    _new = 0
    try:
        merged = {**_load(), **_table}
        if len(merged) > LIMIT:
            merged = dict(_table)
        path = _path()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temp = f"{path}.{os.getpid()}.tmp"
        with open(temp, "wb") as f:
            f.write(_HEADER + _magic() + marshal.dumps(merged))
        os.replace(temp, path)
    except (OSError, ValueError):
        try:
            os.unlink(temp)
        except (OSError, UnboundLocalError):
            pass
