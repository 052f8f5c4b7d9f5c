"""Finding compiler builtin headers (stddef.h, stdarg.h, ...) for the libclang wheel.

The PyPI wheel ships libclang.so but not clang's resource directory, so without help every unit
stops at `#include <stddef.h>` and parses into a silently broken AST. We look for a clang resource
directory on the machine (Debian's libclang-common-N-dev, an LLVM install), preferring the version
closest to the wheel's, and fall back to gcc's builtin include directory, which covers the C
headers but not clang's intrinsics or CUDA wrappers.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass
from functools import lru_cache

RESOURCE_GLOBS = (
    "/usr/lib/llvm-*/lib/clang/*",
    "/usr/lib/clang/*",
    "/usr/lib64/clang/*",
    "/usr/local/lib/clang/*",
    "/usr/local/opt/llvm/lib/clang/*",
    "/opt/homebrew/opt/llvm/lib/clang/*",
)
GCC_GLOBS = ("/usr/lib/gcc/*/*/include", "/usr/lib64/gcc/*/*/include")

INSTALL_HINT = ("install clang's builtin headers (Debian/Ubuntu: apt-get install libclang-common-16-dev), "
                "or set REFCHECK_RESOURCE_DIR to a clang resource directory")


@dataclass(frozen=True)
class BuiltinHeaders:
    args: tuple[str, ...]  # clang arguments that make the headers visible
    origin: str  # "clang", "gcc" or "none"
    path: str
    note: str = ""  # a warning to show the user, empty when all is well


def _version_key(path: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", os.path.basename(path))) or (0,)


def _wheel_major() -> int:
    try:
        from clang.cindex import conf

        text = conf.lib.clang_getClangVersion()
        text = text.decode() if isinstance(text, bytes) else str(text)
    except Exception:  # noqa: BLE001 - a version is only a preference here
        return 0
    m = re.search(r"version (\d+)", text)
    return int(m.group(1)) if m else 0


@lru_cache(maxsize=1)
def find_builtin_headers() -> BuiltinHeaders:
    override = os.environ.get("REFCHECK_RESOURCE_DIR")
    if override:
        if os.path.isfile(os.path.join(override, "include", "stddef.h")):
            return BuiltinHeaders(("-resource-dir", override), "clang", override)
        return BuiltinHeaders((), "none", override,
                              f"REFCHECK_RESOURCE_DIR={override} has no include/stddef.h; {INSTALL_HINT}")
    candidates = [d for pattern in RESOURCE_GLOBS for d in glob.glob(pattern)
                  if os.path.isfile(os.path.join(d, "include", "stddef.h"))]
    if candidates:
        want = _wheel_major()
        # Closest major version to the wheel's, newest among equals.
        best = min(candidates, key=lambda d: (abs(_version_key(d)[0] - want), tuple(-x for x in _version_key(d))))
        return BuiltinHeaders(("-resource-dir", best), "clang", best)
    gcc = sorted((d for pattern in GCC_GLOBS for d in glob.glob(pattern)
                  if os.path.isfile(os.path.join(d, "stddef.h"))), key=lambda d: _version_key(os.path.dirname(d)))
    if gcc:
        return BuiltinHeaders(("-isystem", gcc[-1]), "gcc", gcc[-1],
                              f"no clang builtin headers found; using gcc's {gcc[-1]} (intrinsics and CUDA "
                              f"wrappers will not parse); {INSTALL_HINT}")
    return BuiltinHeaders((), "none", "", f"no compiler builtin headers found (stddef.h); {INSTALL_HINT}")
