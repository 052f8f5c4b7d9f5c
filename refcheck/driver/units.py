"""What a run is asked (Request), which units it checks (paths, a compile database, named
headers) and the clang arguments each gets."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from refcheck.caches.cache import Cache
from refcheck.findings import ToolError, UnitResult
from refcheck.frontend import gcc
from refcheck.frontend.gcc import Adapted
from refcheck.workspace.compdb import CompileDatabase
from refcheck.workspace.config import Config, ConfigError, Resolver
from refcheck.workspace.sources import HEADER_EXTENSIONS, discover, excluded, relative


@dataclass(frozen=True)
class Stdin:
    """`refcheck check -`: the unit read from stdin, written to `temp` for the workers, checked
    and reported as `name` (absolute): its flags, configuration and reported paths are the
    ones a file of that name would have."""

    name: str
    temp: str


@dataclass
class Request:
    paths: list[str]
    config: Config
    database: CompileDatabase | None = None
    jobs: int = 1
    use_cache: bool = True
    baseline: str | None = None
    write_baseline: str | None = None
    report_unused_suppressions: bool = False
    progress: bool = False
    # Explain each unit analysed rather than served from the cache (check -v).
    verbose: bool = False
    # Finds each file's own configuration; None: `config` for every file.
    resolver: Resolver | None = None
    stdin: Stdin | None = None

    def config_for(self, path: str) -> Config:
        """The configuration governing one file (absolute path)."""
        path = self.named(path)
        return self.config if self.resolver is None else self.resolver.for_file(path)

    def named(self, path: str) -> str:
        """The name a unit is checked as: stdin's given name for its temporary copy."""
        return self.stdin.name if self.stdin is not None and path == self.stdin.temp else path


def units_for(request: Request) -> tuple[list[str], list[ToolError]]:
    """The units to check, and per-file errors for database entries that do not exist."""
    cfg = request.config
    db = request.database
    if request.stdin is not None:
        return [request.stdin.temp], []
    skip = (cfg.cache_dir,)
    if request.paths or db is None:
        paths = request.paths or ["."]
        problems: list[tuple[str, str, str]] = []
        units = discover(paths, cfg.extensions, cfg.exclude, cfg.root, skip, problems)
        # A nested configuration's own `exclude` (its globs relative to its own directory).
        units = [u for u in units if request.config_for(u) is cfg
                 or not excluded(u, request.config_for(u).root, request.config_for(u).exclude)]
        bad = [p for p in problems if p[2] == "error"]
        if not units and bad:  # nothing to check at all: a usage error, as for one bad path
            given, message, _ = bad[0]
            raise ConfigError(f"{given}: {message}")
        errors = [ToolError(given, message, severity=severity) for given, message, severity in problems]
        headers = [os.path.abspath(p) for p in request.paths
                   if p.lower().endswith(HEADER_EXTENSIONS) and os.path.isfile(p)]
        if headers:
            more, header_errors = _header_units(request, headers)
            units = sorted(set(units) | set(more))
            errors += header_errors
        return units, errors
    units, errors = [], []
    exts = tuple(e.lower() for e in cfg.extensions)
    for path in sorted(db.units):
        if not path.lower().endswith(exts):
            continue  # headers some generators list, and anything that is not ours to parse
        own = request.config_for(path)
        if excluded(path, cfg.root, cfg.exclude) or excluded(path, own.root, own.exclude):
            continue
        if os.path.isfile(path):
            units.append(path)
        else:
            errors.append(ToolError(relative(path, cfg.root),
                                    f"listed in {relative(db.path, cfg.root)} but not found"))
    return units, errors


def _header_units(request: Request, headers: list[str]) -> tuple[list[str], list[ToolError]]:
    """The units through which named headers are checked: those the cache saw include them,
    else those whose #include lines (transitively) name them; a warning for a header no unit
    includes, which is then not checked."""
    from refcheck.workspace import includers

    cfg = request.config
    cache = Cache(cfg.cache_dir if request.use_cache else None, root=cfg.root)
    candidates: list[str] | None = None
    found: set[str] = set()
    errors = []
    for header in headers:
        units = cache.includers(header)
        if not units:
            if candidates is None:
                candidates = _candidate_units(request)
                tree = includers.headers_under(cfg.root)
            units = set(includers.scan(header, candidates, tree))
        units = {u for u in units if os.path.isfile(u)}
        if not units:
            errors.append(ToolError(relative(header, cfg.root),
                                    "no unit includes this header (the cache's record and the #include "
                                    "lines under the project root say so), so it was not checked",
                                    severity="warning", hint="name a .c/.cpp file that includes it"))
        found |= units
    return sorted(found), errors


def _candidate_units(request: Request) -> list[str]:
    """Every unit of the database, else every source under the project root."""
    cfg = request.config
    if request.database is not None:
        return sorted(request.database.units)
    return discover([cfg.root], cfg.extensions, cfg.exclude, cfg.root, (cfg.cache_dir,), [])


def args_for(path: str, request: Request) -> list[str]:
    """The database's arguments for units it knows (plus the extra clang args), else the
    command line and configuration ones; adapted to clang (see adapted_args)."""
    return list(adapted_args(path, request).args)


def adapted_args(path: str, request: Request) -> Adapted:
    """args_for's arguments with the notes on what was changed for clang (frontend/gcc.py):
    a database's gcc-probe macros and gcc-only options, -fopenmp without an omp.h."""
    cfg = request.config_for(path)
    # stdin's copy lives in a temporary directory: its own `#include "x.h"` must still find
    # x.h beside the file it stands for, which -iquote searches right after the copy's directory.
    quote = ("-iquote", os.path.dirname(request.stdin.name)) if request.named(path) != path else ()
    path = request.named(path)
    include = _builtin_include()
    if request.database is not None:
        known = request.database.args_for(path)
        if known is not None:
            adapted = gcc.adapt(known, include, from_database=True)
            return Adapted(adapted.args + tuple(cfg.clang_args) + quote, adapted.notes)
    adapted = gcc.adapt(cfg.fallback_args(), include, from_database=False)
    return Adapted(adapted.args + quote, adapted.notes)


def _builtin_include() -> str | None:
    from refcheck.frontend.headers import find_builtin_headers

    found = find_builtin_headers()
    return os.path.join(found.path, "include") if found.ok else None


def in_database(path: str, request: Request) -> bool:
    """Whether the run has a compile database and it lists this unit."""
    return request.database is not None and request.database.args_for(path) is not None


def outside_database(r: UnitResult, request: Request) -> list[ToolError]:
    """A unit the compile database does not list (a file the build does not compile, such as
    torch7's ARM-only vector/NEON.c): checked with the default flags, and its parse errors are
    warnings, since no build flag is known that would fix them."""
    db = relative(request.database.path, request.config.root)
    diagnostics = [e for e in r.errors if e.severity == "error" and e.line > 0]
    n = len(diagnostics)
    why = ("" if not n else "; its 1 parse error is shown as a warning" if n == 1
           else f"; its {n} parse errors are shown as warnings")
    hint = (f'exclude = ["{r.file}"] in [tool.refcheck] if the build does not compile it; else '
            f"its flags: -I/-D, or include-dirs/defines in [tool.refcheck]")
    out = [ToolError(r.file, f"not in the compile database {db}: checked with the default flags "
                             f"(-I/-D of the command line and configuration){why}",
                     severity="warning", hint=hint)]
    for e in r.errors:
        out.append(replace(e, severity="warning") if e in diagnostics else e)
    return out
