"""libclang in, function definitions out: parsing a unit and reporting what went wrong."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from refcheck.frontend.headers import find_builtin_headers
from refcheck.findings import ToolError

C_EXTS = {".c"}
CXX_EXTS = {".cc", ".cpp", ".cxx", ".c++", ".C"}
CUDA_EXTS = {".cu"}
CUDA_ROOTS = ("/usr/local/cuda", "/opt/cuda", "/usr/lib/cuda")
MAX_ERRORS_PER_UNIT = 20
# The detailed preprocessing record (CXTranslationUnit_DetailedPreprocessingRecord): where each
# macro expansion lies and which ranges #if skipped, which reuse/instances.py compares between
# instantiations. It costs about 0.1 s of parse on torch7's THTensor.c, and 36,638 more top-level
# cursors (which `_top_level` keeps apart from the declarations): worth it where instance keys
# are made (below) and most definitions are built, not for a re-check served by the
# per-function cache (engine.py decides). benchmarks/floor.py parses without it: the floor
# stays the bare parse.
DETAILED_RECORD = 1
# Instance keys are made only where definitions share a place (a generic body entered once per
# type), C only, from reuse/plan.INSTANCE_KEYS_FROM such definitions: every other unit parses
# without the record (Python.h alone puts 11,000 macro cursors at a CPython module's top level).
# `repeats` guesses before the parse; a unit it misses is parsed again with the record when the
# builds its keys save (SAVED_PER_SHARE each) outweigh that second parse.
SHARED_FOR_RECORD = 16
SAVED_PER_SHARE = 0.02  # seconds: about one graph build on torch7's generic bodies


class FrontendError(Exception):
    """The unit could not be parsed at all (unreadable, not a source file, libclang refused it)."""


@dataclass
class Parsed:
    tu: object  # clang.cindex.TranslationUnit
    functions: list  # definition cursors to check, in source order
    errors: list[ToolError] = field(default_factory=list)
    includes: list[str] = field(default_factory=list)
    partial: bool = False  # the unit had errors: what parsed is checked, but may be incomplete
    fatal: bool = False  # clang stopped (a missing header, too many errors): the rest is not parsed
    language: str = "c"  # what -x parsed it as: c, c++, cuda, ...
    # The unit's top-level declarations (`_top_level`: no preprocessing cursors), walked once for
    # the definitions and kept for the walks of the unit's fixed work (engine._prepare).
    top: list = field(default_factory=list)
    detailed: bool = False  # parsed with the detailed preprocessing record
    # With it, every macro expansion of the unit (top-level cursors of their own), for
    # reuse/instances.py; else empty.
    expansions: list = field(default_factory=list)


def _user_language(user_args: list[str]) -> str | None:
    """The language the last -x in `user_args` names (as clang takes the last), None without one."""
    out = None
    for i, a in enumerate(user_args):
        if a == "-x" and i + 1 < len(user_args):
            out = user_args[i + 1]
        elif a.startswith("-x") and len(a) > 2:
            out = a[2:]
    return out


def language_args(path: str, user_args: list[str]) -> list[str]:
    """-x and -std for the extension, unless the user chose them; CUDA's setup for CUDA units,
    whether the extension or the user (nvcc's `-x cu` in a compile database) said so."""
    ext = os.path.splitext(path)[1]
    language = _user_language(user_args)
    has_x = language is not None
    has_std = any(a.startswith(("-std=", "--std=")) for a in user_args)
    args: list[str] = []
    if language == "cuda":
        own = ("--cuda-host-only", "--cuda-device-only", "--cuda-path", "-nocudainc")
        if not any(a.startswith(own) for a in user_args):
            args += ["--cuda-host-only", *cuda_args()]
    elif ext in CUDA_EXTS and not has_x:
        args += ["-x", "cuda", "--cuda-host-only", *cuda_args()]
    elif ext in CXX_EXTS and not has_x:
        args += ["-x", "c++"] + ([] if has_std else ["-std=gnu++17"])
    elif not has_x:
        args += ["-x", "c"] + ([] if has_std else ["-std=gnu11"])
    return args


@lru_cache(maxsize=1)
def _prelude_dir() -> str:
    return str(resources.files("refcheck.data").joinpath("cuda"))


@lru_cache(maxsize=1)
def cuda_args() -> tuple[str, ...]:
    """Real CUDA headers when libclang can read them; else our minimal declarations.

    clang's CUDA wrapper headers reject toolkits newer than they know (CUDA 13 lacks
    texture_fetch_functions.h), so we probe once with a trivial kernel and fall back.
    """
    import clang.cindex as ci

    builtin = list(find_builtin_headers().args)
    for root in CUDA_ROOTS:
        if os.path.isfile(os.path.join(root, "include", "cuda_runtime.h")):
            args = [f"--cuda-path={root}", "-Wno-unknown-cuda-version"]
            probe = "__global__ void k(int *p) { p[threadIdx.x] = 0; }\nvoid h(int *p) { k<<<1, 1>>>(p); }\n"
            try:
                tu = ci.Index.create().parse("probe.cu", args=["-x", "cuda", "--cuda-host-only", *builtin, *args],
                                             unsaved_files=[("probe.cu", probe)])
                if not any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
                    return tuple(args)
            except ci.TranslationUnitLoadError:
                pass
    prelude = _prelude_dir()
    return ("-nocudainc", "-nocudalib", "-Wno-unknown-cuda-version", "-isystem", prelude,
            "-include", os.path.join(prelude, "__refcheck_cuda_prelude.h"))


def _index():
    # libclang parses on a thread of its own with an 8 MiB stack, which deeply nested code
    # overflows (a segfault). Parsing on the caller's thread uses the engine's big stack instead;
    # libclang's own crash recovery is not needed, worker processes isolate crashes.
    os.environ.setdefault("LIBCLANG_NOTHREADS", "1")
    import clang.cindex as ci

    return ci.Index.create()


def load_libclang() -> None:
    """The library loaded and its functions registered ahead of a first parse (a worker started
    early: driver/preloading.warm)."""
    os.environ.setdefault("LIBCLANG_NOTHREADS", "1")  # as _index, before the load
    import clang.cindex as ci

    ci.conf.lib  # noqa: B018 - the property loads it


def looks_binary(path: str) -> bool:
    with open(path, "rb") as f:
        head = f.read(8192)
    return b"\0" in head


def parse(path: str, user_args: list[str], detailed: bool = True, system_headers: bool = False) -> Parsed:
    """`detailed`: keep the detailed preprocessing record (see DETAILED_RECORD) where instance
    keys could use it (`repeats`, `_record_pays`); `system_headers`: also the functions defined
    in system headers (`in_system_header`)."""
    if not os.path.exists(path):
        raise FrontendError("no such file")
    if os.path.isdir(path):
        raise FrontendError("is a directory")
    try:
        if looks_binary(path):
            raise FrontendError("not a source file (binary content)")
    except OSError as e:
        raise FrontendError(f"cannot read: {e.strerror}") from None
    builtin = find_builtin_headers()
    if not builtin.ok:
        # Never parse against no builtin headers: the AST would be silently wrong (see headers).
        raise FrontendError(builtin.problem)
    args = language_args(path, user_args) + list(builtin.args) + list(user_args)
    language = _user_language(args) or "c"  # the last -x given: language_args' or the user's
    usable = detailed and language == "c"  # instance keys are made for C only
    record = usable and repeats(path, user_args)
    started = time.perf_counter()
    parsed = _parsed(path, args, user_args, record, system_headers)
    if usable and not record and _record_pays(parsed.functions, time.perf_counter() - started):
        parsed = _parsed(path, args, user_args, True, system_headers)
    parsed.language = language
    return parsed


def _parsed(path: str, args: list[str], user_args: list[str], record: bool, system_headers: bool) -> Parsed:
    """One parse of the unit (two when clang rejects one of the user's options), its errors and
    definitions; `record`: with the detailed preprocessing record."""
    import clang.cindex as ci

    tu = _parse(path, args, record)
    errors: list[ToolError] = []
    unknown = _unknown_arguments(tu, user_args)
    if unknown:
        # A gcc option clang rejects is an error on every line of the unit's output but changes
        # nothing clang would parse: drop it and parse again, saying so.
        args = [a for a in args if a not in unknown]
        tu = _parse(path, args, record)
        errors += [ToolError(path, f"clang does not know the option {a} (a gcc option?): dropped for "
                                   f"this parse", severity="warning",
                             hint=f"remove {a} from the flags refcheck is given") for a in unknown]
    partial = fatal = False
    for d in tu.diagnostics:
        if d.severity < ci.Diagnostic.Error:
            continue
        partial = True
        fatal = fatal or d.severity >= ci.Diagnostic.Fatal
        if len(errors) < MAX_ERRORS_PER_UNIT:
            loc = d.location
            errors.append(ToolError(loc.file.name if loc.file else path, d.spelling, loc.line, loc.column))
    top, expansions = _top_level(tu)
    functions = _definitions(top, system_headers, _user_language(args) or "c")
    includes = sorted({path} | _included(tu))
    return Parsed(tu, functions, errors, includes, partial, fatal, top=top, detailed=record,
                  expansions=expansions)


def _top_level(tu) -> tuple[list, list]:
    """The unit's top-level cursors but the preprocessor's, and its macro expansions, in one
    visit (binding.top_level: compiled where built; the binding's `get_children` asks libclang
    twice more per cursor, for an assert against the null cursor). The detailed record's
    definitions and inclusions (11,000 at a CPython module's top level, from Python.h) are of no
    use to any walk."""
    from refcheck.frontend.binding import top_level

    return top_level(tu.cursor)


def _included(tu) -> set[str]:
    """The names of the files the unit's inclusions entered, the unit itself aside. One visit
    whose callback keeps each CXFile once, then a name per file: `get_includes` makes a location,
    two File objects and an inclusion object per #include entered (1435 on a psutil unit, 9 ms)."""
    from refcheck.frontend.binding import file_named

    files: dict[int, None] = {}

    def visit(f, _stack, depth, _data):
        if depth and f:  # depth 0: the unit itself
            files[f] = None

    own = _inclusions_function()
    own(tu._as_parameter_, own.argtypes[1](visit), None)
    return {file_named(f).name for f in files}


@lru_cache(maxsize=1)
def _inclusions_function():
    """clang_getInclusions on a ctypes handle of our own, whose callback takes plain pointers."""
    import ctypes

    import clang.cindex as ci

    f = ctypes.CDLL(ci.conf.lib._name).clang_getInclusions
    visitor = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p)
    f.argtypes = [ctypes.c_void_p, visitor, ctypes.c_void_p]
    f.restype = None
    return f


def _record_pays(functions: list, parse_seconds: float) -> bool:
    """After a parse without the record that `repeats` did not expect a need for: whether enough
    definitions share a place for instance keys, and the builds they save outweigh a second
    parse. (Places are asked once: the engine's own `location` calls find them cached.)"""
    from collections import Counter

    from refcheck.frontend.clangutil import location

    places = [location(fn) for fn in functions]
    at = Counter(places)
    shared = Counter(place for fn, place in zip(functions, places) if at[place] > 1 and _body_in_file(fn))
    count = sum(n - 1 for n in shared.values())
    return count >= SHARED_FOR_RECORD and count * SAVED_PER_SHARE > parse_seconds


def _body_in_file(fn) -> bool:
    """Whether a definition's body opens in a file's text (a generic body entered once per type)
    rather than in a macro's (GLib's G_DEFINE_TYPE defines five functions at its call site: one
    place, five different functions, no instance to share)."""
    from refcheck.frontend.binding import MACRO_ID_BIT, extent_raw, last_child

    body = last_child(fn)
    return body is not None and not extent_raw(body)[0] & MACRO_ID_BIT


# `#include "name"`, `#include <name>` or `#include MACRO` (`_directive`: at the start of a line).
# Not anchored at ^: a search that starts from a literal `#` is 30 times faster (826 KB of C).
_INCLUDE = re.compile(rb'#[ \t]*include\b[ \t]*("([^"\n]*)"|<[^>\n]*>|([A-Za-z_]))')
# A bound on the headers `repeats` reads: past it, it answers yes (the record, as before).
MAX_SCANNED = 400


def repeats(path: str, user_args: list[str]) -> bool:
    """Whether a file of this unit may be entered more than once (TH's generic files, a body per
    type), guessed from the text of the unit and of the project headers it names in quotes (those
    found beside their includer or in an -I/-iquote directory outside SYSTEM_DIRS): a file that
    names one header twice, or includes a macro's value (`#include TH_GENERIC_FILE`). Headers
    named in <> are not read (Python.h and its 100 headers): a generic body is the project's
    own. A guess either way costs time only: `_record_pays` catches a unit it misses, and
    without the record the same definitions are checked alike (driver.fntables.rechecking)."""
    dirs = _quote_dirs(user_args)
    todo = [os.path.abspath(path)]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if len(seen) >= MAX_SCANNED:
            return True
        seen.add(name)
        try:
            with open(name, "rb") as f:
                text = f.read()
        except OSError:
            continue
        here: set[bytes] = set()
        for m in _INCLUDE.finditer(text):
            if not _directive(text, m.start()):
                continue
            named, quoted = m.group(1), m.group(2)
            if m.group(3) is not None or named in here:
                return True
            here.add(named)
            if quoted is None:
                continue
            found = _find_quoted(quoted.decode("utf-8", "replace"), os.path.dirname(name), dirs)
            if found is not None and not in_system_dir(found):
                todo.append(found)
    return False


def _directive(text: bytes, at: int) -> bool:
    """Whether only blanks come before `at` on its line."""
    return not text[text.rfind(b"\n", 0, at) + 1:at].strip()


def _quote_dirs(user_args: list[str]) -> list[str]:
    """The directories a quoted #include searches after its includer's: -iquote's, then -I's."""
    quote: list[str] = []
    plain: list[str] = []
    for i, a in enumerate(user_args):
        for flag, into in (("-iquote", quote), ("-I", plain)):
            if a == flag and i + 1 < len(user_args):
                into.append(user_args[i + 1])
            elif a.startswith(flag) and len(a) > len(flag):
                into.append(a[len(flag):])
    return quote + plain


def _find_quoted(name: str, here: str, dirs: list[str]) -> str | None:
    for d in (here, *dirs):
        candidate = os.path.abspath(os.path.join(d, name))
        if os.path.isfile(candidate):
            return candidate
    return None


def _parse(path: str, args: list[str], detailed: bool):
    import clang.cindex as ci

    try:
        return _index().parse(path, args=args, options=DETAILED_RECORD if detailed else 0)
    except ci.TranslationUnitLoadError:
        raise FrontendError("libclang could not parse this file (bad arguments or unreadable)") from None


def _unknown_arguments(tu, user_args: list[str]) -> list[str]:
    """The user's options that clang reported as unknown (diagnostics without a file)."""
    from refcheck.frontend.gcc import unknown_arguments

    named = unknown_arguments([d.spelling for d in tu.diagnostics if d.location.file is None])
    return [a for a in named if a in user_args]


_CONTAINERS = _FUNCTIONS = _RECORDS = None  # libclang's kind ids (ints), set at the first walk


# Headers under these directories are the system's (GLib's, reached through pkg-config's plain
# `-I/usr/include/glib-2.0`, which clang counts as a user directory), not the code being checked.
SYSTEM_DIRS = ("/usr/include/", "/usr/local/include/", "/opt/homebrew/include/", "/opt/local/include/")


@lru_cache(maxsize=4096)
def in_system_dir(name: str) -> bool:
    real = os.path.realpath(name)
    return real.startswith(SYSTEM_DIRS) or name.startswith(SYSTEM_DIRS) or python_include(os.path.dirname(real))


@lru_cache(maxsize=256)
def python_include(directory: str) -> bool:
    """Whether `directory` holds a Python installation's C headers (Python.h beside pyconfig.h,
    or their cpython/ and internal/ folders): a library's, wherever the interpreter lives (pyenv,
    conda, a framework build), as /usr/include/python3.X is under SYSTEM_DIRS. CPython's own
    source tree keeps no pyconfig.h in Include/, so its headers stay the code being checked."""
    for d in (directory, os.path.dirname(directory)):
        if os.path.isfile(os.path.join(d, "Python.h")) and os.path.isfile(os.path.join(d, "pyconfig.h")):
            return True
    return False


def in_system_header(loc) -> bool:
    """A location in a system header: clang's verdict (-isystem, the standard directories) or a
    file under one of SYSTEM_DIRS, however it was reached."""
    return loc.is_in_system_header or in_system_dir(loc.file.name)


def _definitions(top: list, system_headers: bool = False, language: str = "c++") -> list:
    """Every function (and method) definition outside system headers (`in_system_header`; all of
    them with `system_headers`), in source order, from the unit's top-level cursors. In C no
    struct or union holds one: their fields are not walked (a location each, and a walk of
    every record Python.h declares)."""
    import clang.cindex as ci

    from refcheck.frontend.binding import definitions, file_named, location_file, outside_system

    global _CONTAINERS, _FUNCTIONS, _RECORDS
    if _CONTAINERS is None:
        K = ci.CursorKind
        _RECORDS = frozenset(k.value for k in (K.STRUCT_DECL, K.UNION_DECL, K.CLASS_DECL))
        _CONTAINERS = frozenset(k.value for k in (K.NAMESPACE, K.LINKAGE_SPEC, K.CLASS_DECL, K.STRUCT_DECL,
                                                  K.UNEXPOSED_DECL, K.CLASS_TEMPLATE, K.UNION_DECL))
        _FUNCTIONS = frozenset(k.value for k in (K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR,
                                                 K.FUNCTION_TEMPLATE, K.CONVERSION_FUNCTION))
    containers = _CONTAINERS - _RECORDS if language == "c" else _CONTAINERS
    prelude = _prelude_dir()
    # CXFile -> (the prelude's, under SYSTEM_DIRS), asked once per file of the unit: a GLib
    # unit has ~1,100 definitions inline in its headers, from a few dozen files.
    files: dict[int, tuple[bool, bool]] = {}

    def verdicts(f: int) -> tuple[bool, bool]:
        known = files.get(f)
        if known is None:
            name = file_named(f).name
            known = files[f] = (name.startswith(prelude), in_system_dir(name))
        return known

    def wanted(cursors: list) -> list:  # in_system_header's verdict, its name test first (per file)
        if system_headers:
            return [c for c in cursors if (f := location_file(c)[1]) and not verdicts(f)[0]]
        return outside_system(cursors, lambda f: verdicts(f) != (False, False))

    # By kind first, in one compiled query (binding.among): most top-level cursors are
    # declarations from headers (2748 functions declared at a CPython module's top level, 18
    # defined; ~8,600 cursors on a GLib unit), and a location costs three queries. Likewise a
    # definition before its location (4970 declarations in THTensor.c against 1903 definitions).
    functions: list = []
    _functions_among(top, containers, wanted, functions)
    return wanted(definitions(functions))


def _functions_among(cursors, containers: frozenset, wanted, out: list) -> None:
    """Appends to `out` the function cursors among `cursors` and inside the containers `wanted`
    keeps, in order. (A function of its own, not a closure that calls itself: that would be a
    reference cycle holding the unit's cursors, and so its parse, until a collection.)"""
    from refcheck.frontend.binding import among

    picked = among(cursors, _FUNCTIONS | containers)
    entered = {id(c) for c in wanted([c for c in picked if c._kind_id in containers])}
    for c in picked:
        if c._kind_id not in containers:
            out.append(c)
        elif id(c) in entered:
            _functions_among(c.get_children(), containers, wanted, out)


# --- what the per-function cache (refcheck/caches/fncache.py) needs from the parse ------------------------

@dataclass(frozen=True)
class Body:
    """Where a definition's body lies, in the bytes libclang parsed: [start, end) of `file`."""

    file: str
    start: int
    end: int


def body_of(fn, names: dict | None = None) -> Body | None:
    """The extent of a definition's body (its `{...}` or function-try-block), or None when it
    does not lie plainly in one file (a body spelled by a macro, say): such a function is never
    served from the per-function cache. `names`: a CXFile -> name memo shared across calls (1903
    bodies in THTensor.c, nearly all in two files)."""
    from refcheck.frontend import binding
    from refcheck.frontend.clangutil import K

    body = binding.last_child(fn)  # parameters come before the body
    if body is None or binding.kind_of(body) not in (K.COMPOUND_STMT, K.CXX_TRY_STMT):
        return None
    (start_file, _, _, start), (end_file, _, _, end) = binding.extent_places(body)
    if not start_file or not end_file or not 0 <= start < end:
        return None
    names = {} if names is None else names
    for f in (start_file, end_file):
        if f not in names:
            names[f] = binding.file_named(f).name
    name = names[start_file]
    if names[end_file] != name:
        return None
    return Body(name, start, end)


@lru_cache(maxsize=1)
def _contents_function():
    """clang_getFileContents on a ctypes handle of our own (the binding does not wrap it), so
    the binding's own function types stay untouched."""
    import ctypes

    import clang.cindex as ci

    own = ctypes.CDLL(ci.conf.lib._name)
    f = own.clang_getFileContents
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    f.restype = ctypes.c_void_p
    return f


def parsed_contents(tu, names: list[str]) -> dict[str, bytes] | None:
    """The bytes of each file exactly as libclang parsed them (not the file on disk now, which
    may have changed since); None when libclang cannot give one of them."""
    import ctypes

    import clang.cindex as ci

    get = _contents_function()
    out: dict[str, bytes] = {}
    for name in names:
        try:
            f = ci.File.from_name(tu, name)
        except Exception:  # noqa: BLE001 - the binding raises what libclang's NULL gives it
            return None
        if f is None or not f._as_parameter_:
            return None
        size = ctypes.c_size_t(0)
        ptr = get(tu._as_parameter_, f._as_parameter_, ctypes.byref(size))
        if not ptr:
            if size.value == 0:
                out[name] = b""  # an empty file has no buffer
                continue
            return None
        out[name] = ctypes.string_at(ptr, size.value)
    return out
