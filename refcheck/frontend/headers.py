"""Finding clang's builtin headers (stddef.h, stdarg.h, intrinsics, CUDA wrappers) for libclang.

The libclang wheel ships libclang.so but not clang's resource directory, so without help every
unit stops at `#include <stddef.h>`. Parsing against gcc's builtin headers instead looks like it
works and is worse than failing: clang cannot parse gcc's stdatomic.h and intrinsics headers, so
every TH unit that includes SSE or atomics gets tool errors that do not say why. So there is no
gcc fallback: a resource directory is found, or every parse stops with a message that says how to
get one.

Where it comes from, first match wins:
1. `REFCHECK_RESOURCE_DIR`, when set: the user's explicit choice, refused (not skipped) when it
   holds no include/stddef.h, so that a typo is not hidden by a silent fallback;
2. the `clang-tidy` wheel, a dependency of refcheck pinned to libclang's major version, which
   ships clang's complete resource directory; found through its installed metadata (RECORD);
3. a system clang install (Debian's libclang-common-N-dev, an LLVM install, Homebrew), the same
   major version as libclang preferred.
Headers of another major version than libclang's are used with a warning: builtin headers use
builtins of their own release, and an older libclang may not know them.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from refcheck.support import distinfo

ENV_VAR = "REFCHECK_RESOURCE_DIR"
WHEEL = "clang-tidy"  # the distribution that ships the resource directory

SYSTEM_GLOBS = (
    "/usr/lib/llvm-*/lib/clang/*",
    "/usr/lib/clang/*",
    "/usr/lib64/clang/*",
    "/usr/local/lib/clang/*",
    "/usr/local/opt/llvm/lib/clang/*",
    "/opt/homebrew/opt/llvm/lib/clang/*",
    "C:/Program Files/LLVM/lib/clang/*",
)


class Source(Enum):
    ENV = "REFCHECK_RESOURCE_DIR"
    WHEEL = "clang-tidy wheel"
    SYSTEM = "system clang install"
    NONE = "none"


@dataclass(frozen=True)
class LibclangInfo:
    path: str  # the shared library libclang's bindings loaded
    version: str  # "clang version 18.1.1", or why it is unknown
    major: int | None


@dataclass(frozen=True)
class BuiltinHeaders:
    source: Source
    path: str  # the resource directory (holding include/), or the bad override
    why: str  # how this directory was chosen, for `refcheck doctor`
    major: int | None = None  # the headers' clang major version, when known
    warning: str = ""  # usable, but the user should know (a version mismatch)
    problem: str = ""  # unusable: no parse may run; says how to fix it

    @property
    def ok(self) -> bool:
        return self.source is not Source.NONE

    @property
    def args(self) -> tuple[str, ...]:
        """clang arguments that make the headers visible (none when there are none)."""
        return ("-resource-dir", self.path) if self.ok else ()


def _has_stddef(resource_dir: str) -> bool:
    return os.path.isfile(os.path.join(resource_dir, "include", "stddef.h"))


def _major_of(resource_dir: str) -> int | None:
    # lib/clang/18 (LLVM >= 16) or lib/clang/14.0.6 (older): the directory name is the version.
    m = re.match(r"(\d+)", os.path.basename(os.path.normpath(resource_dir)))
    return int(m.group(1)) if m else None


@lru_cache(maxsize=1)
def libclang_info() -> LibclangInfo:
    """The libclang the bindings load, and its version (from the library itself, not a wheel)."""
    try:
        from clang.cindex import conf

        from refcheck.frontend.binding import clang_version

        path = conf.get_filename()
        version = clang_version()
    except Exception as e:  # noqa: BLE001 - every way this fails is reported, not raised
        return LibclangInfo("", f"libclang could not be loaded: {type(e).__name__}: {e}", None)
    m = re.search(r"version (\d+)", version)
    return LibclangInfo(path, version, int(m.group(1)) if m else None)


@lru_cache(maxsize=1)
def expected_major() -> int | None:
    """libclang's major version, from the libclang wheel's metadata when it is installed.

    Read without loading the library, so that a run served from the cache never loads libclang;
    `refcheck doctor` compares with the version of the library itself.
    """
    m = re.match(r"(\d+)", _wheel_version("libclang"))
    if m:
        return int(m.group(1))
    return libclang_info().major


def _wheel_version(name: str) -> str:
    """The installed version of distribution `name`, "" when it is not installed."""
    dist = distinfo.find(name)
    if dist is not None:
        return dist.version
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return ""


def _wheel_dirs() -> tuple[str, list[str]]:
    """The clang-tidy wheel's version and the resource directories its RECORD lists."""
    dist = distinfo.find(WHEEL)
    if dist is not None:
        version, files, locate = dist.version, dist.files(), dist.locate
    else:
        from importlib import metadata

        try:
            found_dist = metadata.distribution(WHEEL)
        except metadata.PackageNotFoundError:
            return "", []
        version, files = found_dist.version, [str(f) for f in found_dist.files or ()]
        locate = lambda f: str(found_dist.locate_file(f))  # noqa: E731
    found = []
    for f in files:
        parts = f.replace("\\", "/").split("/")
        # clang_tidy/data/lib/clang/<version>/include/stddef.h
        if parts[-2:] == ["include", "stddef.h"] and parts[-5:-3] == ["lib", "clang"]:
            found.append(os.path.dirname(os.path.dirname(locate(f))))
    return version, [d for d in found if _has_stddef(d)]


def _pick(dirs: list[str], want: int | None) -> str:
    """The directory of libclang's major version, else the newest."""
    def key(d):
        major = _major_of(d) or 0
        return (major == want, major, d)
    return max(dirs, key=key)


def mismatch(major: int | None, want: int | None) -> str:
    if major is None or want is None or major == want:
        return ""
    return (f"clang builtin headers of version {major} with libclang {want}: headers of another "
            f"release may not parse; {install_hint(want)}")


def install_hint(major: int | None) -> str:
    pin = f"'{WHEEL}=={major}.*'" if major else WHEEL
    return (f"install the clang-tidy wheel of libclang's major version (pip install {pin}; refcheck "
            f"depends on it), or set {ENV_VAR} to a clang resource directory (the one holding "
            f"include/stddef.h)")


@lru_cache(maxsize=1)
def find_builtin_headers() -> BuiltinHeaders:
    want = expected_major()
    override = os.environ.get(ENV_VAR)
    if override:
        if not _has_stddef(override):
            return BuiltinHeaders(Source.NONE, override, f"{ENV_VAR} is set",
                                  problem=f"{ENV_VAR}={override} has no include/stddef.h; unset it or "
                                          f"point it at a clang resource directory")
        major = _major_of(override)
        return BuiltinHeaders(Source.ENV, override, f"{ENV_VAR} is set", major, mismatch(major, want))

    wheel_version, wheel = _wheel_dirs()
    system = [d for pattern in SYSTEM_GLOBS for d in glob.glob(pattern) if _has_stddef(d)]
    if wheel:
        chosen = _pick(wheel, want)
        major = _major_of(chosen)
        if major == want or not any(_major_of(d) == want for d in system):
            return BuiltinHeaders(Source.WHEEL, chosen, f"found in the {WHEEL} {wheel_version} wheel's files",
                                  major, mismatch(major, want))
    if system:
        chosen = _pick(system, want)
        major = _major_of(chosen)
        why = "found in a system clang install"
        if wheel:
            why += f" of libclang's version (the {WHEEL} {wheel_version} wheel's headers are version {_major_of(_pick(wheel, want))})"
        elif wheel_version:
            why += f" (the {WHEEL} {wheel_version} wheel is installed but lists no include/stddef.h)"
        else:
            why += f" (no {WHEEL} wheel installed)"
        return BuiltinHeaders(Source.SYSTEM, chosen, why, major, mismatch(major, want))
    why = f"{ENV_VAR} unset, " + (f"the {WHEEL} {wheel_version} wheel lists no include/stddef.h"
                                   if wheel_version else f"no {WHEEL} wheel installed") + \
        ", no system clang install"
    return BuiltinHeaders(Source.NONE, "", why,
                          problem=f"no clang builtin headers (stddef.h) found; {install_hint(want)}")


def probe(args: tuple[str, ...], names: tuple[str, ...]) -> list[str]:
    """The errors of parsing a unit that includes `names` with these builtin-header arguments."""
    import clang.cindex as ci

    text = "".join(f"#include <{h}>\n" for h in names)
    try:
        tu = ci.Index.create().parse("probe.c", args=["-x", "c", "-std=gnu11", *args],
                                     unsaved_files=[("probe.c", text)])
    except ci.TranslationUnitLoadError:
        return ["libclang could not parse the probe unit"]
    return [d.spelling for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
