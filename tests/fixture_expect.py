"""Inline expectations of the fixture files, clang -verify style.

    THFloatTensor_newClone(x);       // expect: RC001
    return -1;                       // expect: RC001 RC001   (two findings on this line)
    #define M(X) ...                 // expect@+3: RC006      (line relative to the comment)
    return -1; // expect: RC001 // expect-instantiations: 2   (generic files)
    // fixture-options: errors=unwind args=-DFOO=1 allow-errors may-raise-summaries   (first 5 lines)
    // fixture-options: preset=cpython python-headers   (a preset's conventions; Python.h's folder)
    // fixture-options: preset=glib glib-headers   (the installed GLib/GIO headers, from pkg-config)
    // fixture-options: preset=cpython python-headers numpy-headers   (the installed numpy's headers)
    // fixture-options: preset=glib openssl-headers   (the installed OpenSSL headers, from pkg-config)
    // fixture-options: preset=glib gnutls-headers    (the installed GnuTLS headers, likewise)
    // fixture-options: preset=glib sqlite-headers    (the installed SQLite headers, likewise)
    // fixture-options: preset=glib dbus-headers      (the installed libdbus headers, likewise)
    // fixture-options: preset=glib glib-headers gir-dir=fixtures/gir   (.gir files read as installed ones)
    // clean: what the next function shows     (or `// buggy: ...`, one before every function)

A malformed annotation is an error, not something silently skipped: a typo in `expect:` must
not turn a buggy fixture into one that asserts nothing.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cu")
OPTIONS_LINES = 5

_EXPECT = re.compile(r"//\s*expect(?:@(?P<offset>[+-]\d+))?:(?P<codes>[^/]*)")
# Anything that looks like it wants to be an expectation, to catch typos such as `expect RC001`.
_EXPECT_LIKE = re.compile(r"//\s*expect(?!-instantiations)\b")
_INSTANTIATIONS = re.compile(r"expect-instantiations:\s*(?P<count>\S+)")
_CODE = re.compile(r"^RC\d{3}$")
_OPTIONS = re.compile(r"//\s*fixture-options:(?P<options>.*)$")
_MARKER = re.compile(r"^\s*//\s*(?P<kind>clean|buggy):\s*(?P<text>\S.*)$")
_INCLUDE = re.compile(r'^\s*#\s*include\s+"(?P<name>[^"]+)"')


class FixtureSyntaxError(ValueError):
    """An annotation in a fixture file that cannot be read."""

    def __init__(self, path: Path, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")


@dataclass(frozen=True)
class Expectation:
    file: Path
    line: int  # the line the finding's primary location must be on
    rule: str
    comment_line: int  # where the annotation is written
    instantiations: int | None = None


@dataclass(frozen=True)
class Marker:
    """The `// clean:` or `// buggy:` comment before a function."""

    file: Path
    line: int
    kind: str
    text: str


@dataclass
class Options:
    errors: str = "abort"
    clang_args: list[str] = field(default_factory=list)
    allow_errors: bool = False
    may_raise_summaries: bool = False  # `may-raise-summaries`: the unit's functions summarised
    preset: str = "th"  # `preset=NAME`: the conventions of refcheck.conventions.presets the unit is checked with
    python_headers: bool = False  # `python-headers`: compiled against the running Python's headers
    glib_headers: bool = False  # `glib-headers`: compiled against the installed GLib (pkg-config gio-2.0)
    numpy_headers: bool = False  # `numpy-headers`: compiled against the installed numpy's C API headers
    gir_dir: str | None = None  # `gir-dir=PATH`: the folder (from the repository) of the "installed" .gir files
    openssl_headers: bool = False  # `openssl-headers`: compiled against the installed OpenSSL (pkg-config openssl)
    gnutls_headers: bool = False  # `gnutls-headers`: compiled against the installed GnuTLS (pkg-config gnutls)
    sqlite_headers: bool = False  # `sqlite-headers`: compiled against the installed SQLite (pkg-config sqlite3)
    dbus_headers: bool = False  # `dbus-headers`: compiled against the installed libdbus (pkg-config dbus-1)
    # `pkg=NAME`: compiled against that installed library too (pkg-config NAME's flags).
    packages: list[str] = field(default_factory=list)


@dataclass
class FixtureFile:
    path: Path
    options: Options
    expectations: list[Expectation]
    markers: list[Marker]
    # Quoted includes, resolved to existing files (generic/*.c bodies and headers).
    includes: list[Path]
    lines: int


def _parse_options(path: Path, line: int, text: str) -> Options:
    options = Options()
    for token in text.split():
        if token == "allow-errors":
            options.allow_errors = True
        elif token == "may-raise-summaries":
            options.may_raise_summaries = True
        elif token.startswith("errors="):
            mode = token.removeprefix("errors=")
            if mode not in ("abort", "unwind"):
                raise FixtureSyntaxError(path, line, f"errors must be abort or unwind, not {mode!r}")
            options.errors = mode
        elif token.startswith("preset="):
            options.preset = token.removeprefix("preset=")
        elif token == "python-headers":
            options.python_headers = True
            options.clang_args.append(f"-I{sysconfig.get_paths()['include']}")
        elif token == "glib-headers":
            options.glib_headers = True
            options.clang_args.extend(glib_cflags())
        elif token == "openssl-headers":
            options.openssl_headers = True
            options.clang_args.extend(openssl_cflags() or [])
        elif token == "gnutls-headers":
            options.gnutls_headers = True
            options.clang_args.extend(gnutls_cflags() or [])
        elif token == "sqlite-headers":
            options.sqlite_headers = True
            options.clang_args.extend(sqlite_cflags() or [])
        elif token == "dbus-headers":
            options.dbus_headers = True
            options.clang_args.extend(dbus_cflags() or [])
        elif token == "numpy-headers":
            options.numpy_headers = True
            include = numpy_include()
            if include:
                options.clang_args.append(f"-I{include}")
        elif token.startswith("pkg="):
            options.packages.append(token.removeprefix("pkg="))
            options.clang_args.extend(_pkg_cflags(options.packages[-1]) or [])
        elif token.startswith("gir-dir="):
            options.gir_dir = token.removeprefix("gir-dir=")
        elif token.startswith("args="):
            options.clang_args.extend(a for a in token.removeprefix("args=").split(",") if a)
        else:
            raise FixtureSyntaxError(path, line, f"unknown fixture option {token!r}")
    return options


def openssl_cflags() -> list[str] | None:
    """The installed OpenSSL's compiler flags (often none: /usr/include), None where pkg-config does
    not know OpenSSL (no development headers)."""
    return _pkg_cflags("openssl")


def gnutls_cflags() -> list[str] | None:
    """The installed GnuTLS's compiler flags, None without its development headers."""
    return _pkg_cflags("gnutls")


def sqlite_cflags() -> list[str] | None:
    """The installed SQLite's compiler flags, None without its development headers."""
    return _pkg_cflags("sqlite3")


def dbus_cflags() -> list[str] | None:
    """The installed libdbus's compiler flags, None without its development headers."""
    return _pkg_cflags("dbus-1")


def pkg_cflags(package: str) -> list[str] | None:
    """An installed library's compiler flags (`pkg=NAME`), None without its development headers."""
    return _pkg_cflags(package)


def _pkg_cflags(package: str) -> list[str] | None:
    try:
        out = subprocess.run(["pkg-config", "--cflags", package], capture_output=True, text=True,
                             check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return shlex.split(out)


def numpy_include() -> str | None:
    """The installed numpy's include folder (numpy.get_include()), None without numpy."""
    try:
        import numpy
    except ImportError:
        return None
    return numpy.get_include()


def glib_cflags() -> list[str]:
    """The installed GLib/GIO's compiler flags (empty without pkg-config or GLib's headers)."""
    try:
        out = subprocess.run(["pkg-config", "--cflags", "gio-2.0"], capture_output=True, text=True,
                             check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return shlex.split(out)


def _parse_expectations(path: Path, number: int, text: str, total: int) -> list[Expectation]:
    matches = list(_EXPECT.finditer(text))
    if len(_EXPECT_LIKE.findall(text)) != len(matches):
        raise FixtureSyntaxError(path, number, "malformed expectation (want `// expect: RC001`)")
    count = None
    inst = _INSTANTIATIONS.search(text)
    if inst:
        if not matches:
            raise FixtureSyntaxError(path, number, "expect-instantiations without an expect")
        if not inst["count"].isdigit() or int(inst["count"]) < 1:
            raise FixtureSyntaxError(path, number, f"bad instantiation count {inst['count']!r}")
        count = int(inst["count"])
    out = []
    for m in matches:
        target = number + int(m["offset"] or 0)
        if not 1 <= target <= total:
            raise FixtureSyntaxError(path, number, f"expectation for line {target}, outside the file")
        codes = m["codes"].split()
        if not codes:
            raise FixtureSyntaxError(path, number, "expectation without a rule code")
        for code in codes:
            if not _CODE.match(code):
                raise FixtureSyntaxError(path, number, f"{code!r} is not a rule code like RC001")
            out.append(Expectation(path, target, code, number, count))
    return out


def _resolve_include(name: str, including: Path, search: list[Path]) -> Path | None:
    for base in [including.parent, *search]:
        candidate = (base / name).resolve()
        if candidate.is_file():
            return candidate
    return None


def parse_fixture(path: Path, include_dirs: list[Path] | None = None) -> FixtureFile:
    path = path.resolve()
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    options = Options()
    expectations: list[Expectation] = []
    markers: list[Marker] = []
    includes: list[Path] = []
    for number, line in enumerate(lines, start=1):
        opt = _OPTIONS.search(line)
        if opt:
            if number > OPTIONS_LINES:
                raise FixtureSyntaxError(path, number,
                                         f"fixture-options must be in the first {OPTIONS_LINES} lines")
            options = _parse_options(path, number, opt["options"])
        expectations.extend(_parse_expectations(path, number, line, len(lines)))
        marker = _MARKER.match(line)
        if marker:
            markers.append(Marker(path, number, marker["kind"], marker["text"]))
        inc = _INCLUDE.match(line)
        if inc:
            resolved = _resolve_include(inc["name"], path, include_dirs or [])
            if resolved is not None:
                includes.append(resolved)
    return FixtureFile(path, options, expectations, markers, includes, len(lines))


def is_unit(path: Path, root: Path) -> bool:
    """A translation unit to analyze: not a header and not a generic/ body (included per type)."""
    parts = path.relative_to(root).parts
    folders = parts[:-1]
    return path.suffix in SOURCE_SUFFIXES and "include" not in folders and "generic" not in folders


def find_units(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and is_unit(p, root))


def unit_sources(unit: Path, root: Path, include_dirs: list[Path]) -> list[FixtureFile]:
    """The unit and every fixture source it includes (recursively), headers in include/ left out."""
    seen: dict[Path, FixtureFile] = {}
    todo = [unit.resolve()]
    include_roots = [d.resolve() for d in include_dirs]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        fixture = parse_fixture(path, include_dirs)
        seen[path] = fixture
        for inc in fixture.includes:
            under_root = root.resolve() in inc.parents
            is_header = any(d == inc.parent or d in inc.parents for d in include_roots)
            if under_root and not is_header:
                todo.append(inc)
    return list(seen.values())
