"""The one flag or configuration line most likely to fix a tool error (ToolError.hint).

A first run on a real project mostly fails for want of build flags: a header directory, a macro
the build system defines, a compile database that lists the file. Each pattern here maps a
parse diagnostic to that flag. Pure functions over text (no libclang): the worker calls them on
each diagnostic, and tests call them directly.
"""

from __future__ import annotations

import os
import re

# The longest a search for a missing header may walk (directory entries), so that a hint
# never costs a noticeable part of a parse on a huge tree.
MAX_SEARCH_ENTRIES = 20_000

_NOT_FOUND = re.compile(r"'(?P<name>[^']+)' file not found")
_UNKNOWN_TYPE = re.compile(r"unknown type name '(?P<name>[^']+)'")
_UNDECLARED = re.compile(r"use of undeclared identifier '(?P<name>[^']+)'")
_UNKNOWN_ARG = re.compile(r"unknown argument: '(?P<name>[^']+)'")
_ATOMIC = re.compile(r"atomic operation must be a pointer to _Atomic type|_Atomic")

# Types a standard header declares: a missing one means an include, not a macro, is missing.
_STANDARD_TYPES = {
    "size_t": "stddef.h", "ptrdiff_t": "stddef.h", "ssize_t": "sys/types.h",
    "int8_t": "stdint.h", "int16_t": "stdint.h", "int32_t": "stdint.h", "int64_t": "stdint.h",
    "uint8_t": "stdint.h", "uint16_t": "stdint.h", "uint32_t": "stdint.h", "uint64_t": "stdint.h",
    "intptr_t": "stdint.h", "uintptr_t": "stdint.h", "FILE": "stdio.h", "bool": "stdbool.h",
}

DATABASE_HINT = "-p BUILD_DIR (the build's compile_commands.json), or compile-commands = \"BUILD_DIR\""
TIMEOUT_HINT = "--timeout SECONDS, or timeout = SECONDS in [tool.refcheck]"
C11_ATOMICS_FIX = "-UUSE_C11_ATOMICS -DUSE_GCC_ATOMICS=1"


def defines(args: list[str] | tuple[str, ...], macro: str) -> bool:
    """Whether these clang arguments define `macro` (-DM, -DM=1 or -D M), last -D/-U winning."""
    state = False
    for i, a in enumerate(args):
        value = None
        if a in ("-D", "-U") and i + 1 < len(args):
            value, flag = args[i + 1], a
        elif a.startswith(("-D", "-U")) and len(a) > 2:
            value, flag = a[2:], a[:2]
        if value is not None and value.split("=", 1)[0] == macro:
            state = flag == "-D"
    return state


def for_diagnostic(message: str, args: list[str] | tuple[str, ...] = (), root: str = ".",
                   in_database: bool = True) -> str:
    """The hint for one parse diagnostic of a unit parsed with `args`; "" when none applies."""
    m = _NOT_FOUND.search(message)
    if m:
        return _missing_header(m["name"], root)
    if _ATOMIC.search(message) and defines(args, "USE_C11_ATOMICS"):
        # A gcc configure probe found C11 atomics; clang's stricter <stdatomic.h> rejects them on
        # plain volatile pointers (torch7's THAtomic.c). The gcc builtins parse alike.
        return C11_ATOMICS_FIX
    m = _UNKNOWN_ARG.search(message)
    if m:
        return f"remove {m['name']} (a gcc-only option clang does not know) from the flags given"
    m = _UNKNOWN_TYPE.search(message) or _UNDECLARED.search(message)
    if m:
        header = _STANDARD_TYPES.get(m["name"])
        if header is not None:
            return f"#include <{header}> in the file, or -include {header}" + (
                "" if in_database else f"; or {DATABASE_HINT}")
        if not in_database:
            return DATABASE_HINT
        return f"-D or -I for the macro or header that defines '{m['name']}' " \
               f"(defines = [...] or include-dirs = [...] in [tool.refcheck])"
    return ""


def _missing_header(name: str, root: str) -> str:
    found = find_header(name, root)
    if found is not None:
        rel = os.path.relpath(found, root)
        if rel.startswith(".."):
            rel = found
        return f"-I {rel} (or include-dirs = [\"{rel}\"] in [tool.refcheck])"
    return f"-I DIR for the directory holding {name} (or include-dirs = [\"DIR\"] in [tool.refcheck])"


def find_header(name: str, root: str) -> str | None:
    """The directory under `root` from which `#include "name"` resolves, or None; a bounded walk
    that skips hidden directories (.git, caches)."""
    parts = [p for p in name.replace("\\", "/").split("/") if p]
    if not parts or ".." in parts:
        return None
    seen = 0
    for dirpath, dirnames, filenames in os.walk(os.path.abspath(root)):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        seen += len(dirnames) + len(filenames)
        if seen > MAX_SEARCH_ENTRIES:
            return None
        if parts[-1] in filenames:
            base = dirpath
            for part in reversed(parts[:-1]):
                if os.path.basename(base) != part:
                    break
                base = os.path.dirname(base)
            else:
                return base
    return None
