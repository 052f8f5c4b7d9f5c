"""The optional C extension `refcheck.frontend._cwalk` (issue 30, step 3).

Everything else about the package is in pyproject.toml. The extension is optional in the strong
sense: where it cannot be built (no C compiler, no Python headers, a compiler error) the build
warns and the package installs without it, running the pure-Python path that
`refcheck.frontend.native` falls back to (and `refcheck doctor` reports). An install never fails
because of it. `REFCHECK_NO_EXTENSION=1` skips the build on purpose.
"""

import hashlib
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = os.path.join("refcheck", "frontend", "_cwalk.c")
# The instance keys' passes and tokenizer, one extension with the walk (refcheck/frontend/native.py SOURCES).
SOURCES = [SOURCE] + [os.path.join("refcheck", "frontend", n) for n in ("_ckeys.c", "_cconds.c", "_ctokens.c", "_cquery.c", "_cseqs.c", "_cgraph.c")]
HEADERS = [os.path.join("refcheck", "frontend", n) for n in ("_ckeys.h", "_ctokens.h", "_cwalk.h")]


def source_digest(paths: list = SOURCES + HEADERS) -> str:
    """What native.py compares at import: a module built from another version of the sources (an
    editable install whose .c changed since) is refused, not trusted."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:16]


class OptionalBuildExt(build_ext):
    """build_ext that turns any failure to build an extension into one warning."""

    def run(self):
        if os.environ.get("REFCHECK_NO_EXTENSION", "") not in ("", "0"):
            self._skip("REFCHECK_NO_EXTENSION is set")
            return
        try:
            super().run()
        except Exception as e:  # noqa: BLE001 - no compiler, no headers: whatever it is, install pure
            self._skip(f"{type(e).__name__}: {e}")

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:  # noqa: BLE001
            self._skip(f"{ext.name}: {type(e).__name__}: {e}")

    def _skip(self, why: str) -> None:
        sys.stderr.write(f"WARNING: refcheck's compiled libclang walk was not built ({why}); "
                         "refcheck installs and runs its pure-Python path, slower.\n")


setup(
    ext_modules=[Extension(
        "refcheck.frontend._cwalk", SOURCES, depends=HEADERS,
        define_macros=[("REFCHECK_CWALK_SOURCE", '"%s"' % source_digest())],
    )] if all(map(os.path.exists, SOURCES + HEADERS)) else [],
    cmdclass={"build_ext": OptionalBuildExt},
)
