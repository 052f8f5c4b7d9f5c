"""Finds and validates `[tool.refcheck]` (pyproject.toml) or refcheck.toml into a `Config`.

Every problem is a `ConfigError` whose message names the file and the key, because a typo in a
pattern list otherwise silently turns a check off.
"""

from __future__ import annotations

import math
import os
import re
import sys
from dataclasses import dataclass, field, replace

from refcheck.filters import selection
from refcheck.support.errors import ConfigError  # noqa: F401 - raised here, and imported from here by callers
from refcheck.conventions import Conventions
from refcheck.conventions.presets import PRESETS
from refcheck.conventions.records import RecordError, parse_record

PATTERN_KINDS = ("acquire", "reallocate", "retain", "release", "consume", "error", "exit", "pure", "primitive",
                 "may_raise", "context", "borrowed", "steal", "frame")
SOURCE_EXTENSIONS = [".c", ".cc", ".cpp", ".cxx", ".cu"]
DEFAULT_CACHE_DIR = ".refcheck_cache"


@dataclass
class Config:
    # The file the settings came from (None: defaults) and the project root paths are relative to.
    path: str | None = None
    root: str = "."
    preset: str = "th"
    conventions: Conventions = field(default_factory=Conventions)
    include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    undefines: list[str] = field(default_factory=list)
    std: str | None = None
    clang_args: list[str] = field(default_factory=list)
    extensions: list[str] = field(default_factory=lambda: list(SOURCE_EXTENSIONS))
    exclude: list[str] = field(default_factory=list)
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    # --extend-select: added to whatever select (or the preset) chose (ruff's semantics).
    extend_select: list[str] = field(default_factory=list)
    per_path_ignores: dict[str, list[str]] = field(default_factory=dict)
    compile_commands: str | None = None
    cache_dir: str = DEFAULT_CACHE_DIR
    jobs: int | None = None
    timeout: float = 120.0
    max_states: int = 50_000
    function_seconds: float = 10.0
    # MiB one worker may map (None: the machine's memory shared among the workers).
    max_memory: int | None = None
    # MiB: a larger source file is a per-file error rather than a read of unbounded size.
    max_file_size: int = 16
    # The glib preset reads the ownership annotations of the project's own gtk-doc comments.
    gtk_doc: bool = True

    def fallback_args(self) -> list[str]:
        """Clang arguments for a unit the compile database does not know."""
        args = [f"-I{d}" for d in self.include_dirs]
        args += [f"-D{d}" for d in self.defines] + [f"-U{u}" for u in self.undefines]
        if self.std:
            args.append(f"-std={self.std}")
        return args + self.clang_args

    def selection(self) -> selection.Selection:
        return selection.build(self.select, self.ignore, self.per_path_ignores,
                               PRESETS[self.preset].ignore, self.extend_select)


# --- value checkers: each returns the value or raises ValueError with what was expected -------

def _str(v):
    if not isinstance(v, str):
        raise ValueError(f"expected a string, got {_type(v)}")
    return v


def _str_list(v):
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ValueError(f"expected a list of strings, got {_type(v)}")
    return list(v)


def _pattern_list(v):
    for i, p in enumerate(_str_list(v)):
        try:
            re.compile(p)
        except re.error as e:
            raise ValueError(f"entry {i}: bad regular expression {p!r}: {e}") from None
    return list(v)


def _int(minimum):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"expected an integer, got {_type(v)}")
        if v < minimum:
            raise ValueError(f"must be at least {minimum}, got {v}")
        return v
    return check


def _positive_number(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"expected a number, got {_type(v)}")
    # TOML has inf and nan: neither is a usable limit (nan compares false with everything).
    if not math.isfinite(v) or v <= 0 or v > 1e7:
        raise ValueError(f"must be a finite number greater than 0 (at most 1e7), got {v}")
    return float(v)


def _choice(*choices):
    def check(v):
        if _str(v) not in choices:
            raise ValueError(f"expected one of {', '.join(map(repr, choices))}, got {v!r}")
        return v
    return check


def _conditional(v):
    if not isinstance(v, dict):
        raise ValueError(f"expected a table of pattern = argument index, got {_type(v)}")
    for pattern, index in v.items():
        try:
            re.compile(pattern)
        except re.error as e:
            raise ValueError(f"bad regular expression {pattern!r}: {e}") from None
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise ValueError(f"{pattern!r}: expected an argument index >= 0, got {index!r}")
    return dict(v)


def _index_table(count):
    """pattern = argument index (count 1) or [indices] (count None: any number, 2: a pair);
    negative indices count from the end of the argument list."""
    def check(v):
        if not isinstance(v, dict):
            raise ValueError(f"expected a table of pattern = argument index, got {_type(v)}")
        out = {}
        for pattern, value in v.items():
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"bad regular expression {pattern!r}: {e}") from None
            items = [value] if count == 1 else value
            if not isinstance(items, list) or any(isinstance(i, bool) or not isinstance(i, int) for i in items):
                want = "an argument index" if count == 1 else "a list of argument indices"
                raise ValueError(f"{pattern!r}: expected {want}, got {value!r}")
            if count not in (None, 1) and len(items) != count:
                raise ValueError(f"{pattern!r}: expected {count} argument indices, got {len(items)}")
            out[pattern] = value if count == 1 else list(items)
        return out
    return check


# `[tool.refcheck]` key -> Conventions attribute, for the tables of argument positions.
_INDEX_TABLES = {
    "sinks": ("sinks", _index_table(None)),
    "error-if-nonzero": ("error_if_nonzero", _index_table(1)),
    "may-return-argument": ("may_return_argument", _index_table(1)),
    "same-size": ("same_size", _index_table(2)),
    "same-size-test": ("same_size_test", _index_table(2)),
}


def _codes(v):
    selection.expand(_str_list(v))
    return list(v)


def _per_path(v):
    if not isinstance(v, dict):
        raise ValueError(f"expected a table of glob = [rule codes], got {_type(v)}")
    for glob, codes in v.items():
        try:
            _codes(codes)
        except ValueError as e:
            raise ValueError(f"{glob!r}: {e}") from None
    return {k: list(c) for k, c in v.items()}


def _extensions(v):
    for e in _str_list(v):
        if not e.startswith("."):
            raise ValueError(f"extensions start with a dot, got {e!r}")
    return list(v)


def _summaries(v):
    """`[tool.refcheck.summaries.NAME]` tables: one summary record per exact callee name."""
    if not isinstance(v, dict):
        raise ValueError(f"expected a table of callee name = record table, got {_type(v)}")
    out = {}
    for name, table in v.items():
        if not re.fullmatch(r"[A-Za-z_][\w:~]*", name):
            raise ValueError(f"{name!r} is not a function name (summaries name callees exactly)")
        try:
            out[name] = parse_record(table, name)
        except RecordError as e:
            raise ValueError(str(e)) from None
    return out


def _bool(v):
    if not isinstance(v, bool):
        raise ValueError(f"expected true or false, got {_type(v)}")
    return v


def _type(v) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(v), type(v).__name__)


# key -> (checker, Config attribute or None for the pattern keys handled separately)
_SCALARS = {
    "preset": _choice(*PRESETS),
    "errors": _choice("abort", "unwind"),
    "conditional-error": _conditional,
    "include-dirs": _str_list,
    "defines": _str_list,
    "undefines": _str_list,
    "std": _str,
    "clang-args": _str_list,
    "extensions": _extensions,
    "exclude": _str_list,
    "select": _codes,
    "ignore": _codes,
    "per-path-ignores": _per_path,
    "compile-commands": _str,
    "cache-dir": _str,
    "jobs": _int(1),
    "timeout": _positive_number,
    "max-states": _int(1),
    "function-seconds": _positive_number,
    "may-raise-summaries": _bool,
    "summaries": _summaries,
    "system-headers": _bool,
    "gir": _str_list,
    "gtk-doc": _bool,
    "max-memory": _int(1024),
    "max-file-size": _int(1),
}
KEYS = dict(_SCALARS)
KEYS.update({key: check for key, (_, check) in _INDEX_TABLES.items()})
for _kind in PATTERN_KINDS:
    KEYS[_kind.replace("_", "-")] = _pattern_list
    KEYS[f"extend-{_kind.replace('_', '-')}"] = _pattern_list


def parse(table: dict, where: str, base_dir: str) -> Config:
    """A Config from a `[tool.refcheck]` table; `where` prefixes every message."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table, got {_type(table)}")
    values = {}
    for key, value in table.items():
        check = KEYS.get(key)
        if check is None:
            import difflib  # only for a typo's message

            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(f"{where}: unknown key '{key}'{hint}")
        try:
            values[key] = check(value)
        except ValueError as e:
            raise ConfigError(f"{where}: key '{key}': {e}") from None

    preset = PRESETS[values.get("preset", "th")]
    conv = preset.conventions
    changes = {}
    for kind in PATTERN_KINDS:
        key = kind.replace("_", "-")
        patterns = values.get(key, getattr(conv, kind))
        changes[kind] = list(patterns) + values.get(f"extend-{key}", [])
    for key, (attr, _) in _INDEX_TABLES.items():
        if key in values:
            changes[attr] = values[key]
    if "conditional-error" in values:
        changes["conditional_error"] = values["conditional-error"]
    if "errors" in values:
        changes["errors"] = values["errors"]
    if "may-raise-summaries" in values:
        changes["may_raise_summaries"] = values["may-raise-summaries"]
    if "summaries" in values:  # per name, over the preset's own
        changes["summaries"] = {**conv.summaries, **values["summaries"]}
    if "system-headers" in values:
        changes["system_headers"] = values["system-headers"]
    # replace() re-runs field init, so the cached compiled patterns of the preset are not shared.
    conventions = replace(conv, **changes)
    for gir in values.get("gir", []):
        conventions = _with_gir(conventions, os.path.join(base_dir, gir), where)

    def here(p: str) -> str:
        return os.path.normpath(os.path.join(base_dir, os.path.expanduser(p)))

    cfg = Config(root=base_dir, preset=preset.name, conventions=conventions)
    cfg.include_dirs = [here(d) for d in values.get("include-dirs", [])]
    cfg.defines = values.get("defines", [])
    cfg.undefines = values.get("undefines", [])
    cfg.std = values.get("std")
    cfg.clang_args = values.get("clang-args", [])
    cfg.extensions = values.get("extensions", cfg.extensions)
    cfg.exclude = values.get("exclude", [])
    cfg.select = values.get("select")
    cfg.ignore = values.get("ignore", [])
    cfg.per_path_ignores = values.get("per-path-ignores", {})
    if "compile-commands" in values:
        cfg.compile_commands = here(values["compile-commands"])
    cfg.cache_dir = here(values.get("cache-dir", DEFAULT_CACHE_DIR))
    cfg.jobs = values.get("jobs")
    cfg.timeout = values.get("timeout", cfg.timeout)
    cfg.max_states = values.get("max-states", cfg.max_states)
    cfg.function_seconds = values.get("function-seconds", cfg.function_seconds)
    cfg.max_memory = values.get("max-memory", cfg.max_memory)
    cfg.max_file_size = values.get("max-file-size", cfg.max_file_size)
    cfg.gtk_doc = values.get("gtk-doc", cfg.gtk_doc)
    return cfg


def _with_gir(conv, path: str, where: str):
    """The project's own GObject-Introspection data (`gir`), when the build has written it."""
    from refcheck.conventions.gir import GirError, parse_gir
    from refcheck.conventions.glibpreset import gir_records
    from refcheck.conventions.records import RecordError

    if not os.path.isfile(path):
        return conv  # not built yet: the patterns alone
    try:
        # The project's own functions, declared in its own headers: configured records.
        records = gir_records(conv, parse_gir(path), os.path.basename(path))
    except (GirError, RecordError) as e:
        raise ConfigError(f"{where}: key 'gir': {e}") from None
    return replace(conv, summaries={**records, **conv.summaries})


def _read_toml(path: str) -> dict:
    # Imported where a file is read: a run without a configuration file never parses TOML (3 ms).
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None


def _table_of(path: str, data: dict) -> dict | None:
    """The refcheck table of a file: [tool.refcheck] in pyproject.toml, the whole refcheck.toml."""
    if os.path.basename(path) == "pyproject.toml":
        tool = data.get("tool", {})
        return tool.get("refcheck") if isinstance(tool, dict) else None
    if isinstance(data.get("tool"), dict) and "refcheck" in data["tool"] and len(data) == 1:
        return data["tool"]["refcheck"]
    return data


def find(start: str) -> str | None:
    """The nearest refcheck.toml, or pyproject.toml with a [tool.refcheck] table, going up."""
    d = os.path.abspath(start)
    while True:
        candidate = os.path.join(d, "refcheck.toml")
        if os.path.isfile(candidate):
            return candidate
        candidate = os.path.join(d, "pyproject.toml")
        if os.path.isfile(candidate) and _table_of(candidate, _read_toml(candidate)) is not None:
            return candidate
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def project_root(start: str) -> str:
    """Without a config file, the root is the git work tree (found without running git)."""
    d = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return os.path.abspath(start)
        d = parent


def load(explicit: str | None = None, start: str = ".") -> Config:
    path = explicit if explicit is not None else find(start)
    if path is None:
        root = project_root(start)
        cfg = Config(root=root)
        cfg.cache_dir = os.path.join(root, DEFAULT_CACHE_DIR)
        return cfg
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise ConfigError(f"{path}: configuration file not found")
    table = _table_of(path, _read_toml(path))
    where = os.path.relpath(path)
    if os.path.basename(path) == "pyproject.toml":
        where += " [tool.refcheck]"
    if table is None:
        raise ConfigError(f"{os.path.relpath(path)}: no [tool.refcheck] table")
    cfg = parse(table, where, os.path.dirname(path))
    cfg.path = path
    return cfg


@dataclass
class Overrides:
    """Command-line settings, applied on top of whichever configuration governs a file."""

    include_dirs: list[str] = field(default_factory=list)  # absolute
    defines: list[str] = field(default_factory=list)
    undefines: list[str] = field(default_factory=list)
    std: str | None = None
    clang_args: list[str] = field(default_factory=list)
    errors: str | None = None
    system_headers: bool = False  # --system-headers
    select: list[str] | None = None  # expanded codes
    ignore: list[str] = field(default_factory=list)  # expanded codes (--ignore, --extend-ignore)
    extend_select: list[str] = field(default_factory=list)  # expanded codes

    def apply(self, cfg: Config) -> Config:
        cfg.include_dirs = cfg.include_dirs + self.include_dirs
        cfg.defines = cfg.defines + self.defines
        cfg.undefines = cfg.undefines + self.undefines
        if self.std:
            cfg.std = self.std
        cfg.clang_args = cfg.clang_args + self.clang_args
        if self.errors:
            cfg.conventions = replace(cfg.conventions, errors=self.errors)
        if self.system_headers:
            cfg.conventions = replace(cfg.conventions, system_headers=True)
        return self.apply_selection(cfg)

    def apply_selection(self, cfg: Config) -> Config:
        """The command line's rule selection over a file's configuration. As in ruff, the
        command line is a later layer: its --extend-select re-enables a rule the file ignores,
        and its --ignore removes a rule whatever selected it."""
        if self.select:
            cfg.select = list(self.select)
        if self.extend_select:
            cfg.ignore = [c for c in cfg.ignore if c not in self.extend_select]
            cfg.extend_select = cfg.extend_select + list(self.extend_select)
        if self.ignore:
            cfg.ignore = cfg.ignore + list(self.ignore)
        return cfg


class Resolver:
    """The configuration of each file, as ruff finds it: the nearest refcheck.toml (or
    pyproject.toml with [tool.refcheck]) above the file, so that one run over a monorepo (a
    pre-commit hook at its top) checks each project with that project's own conventions,
    flags and rule selection. `--config` forces one configuration for every file.

    The run's configuration (the one found from the current directory, or --config) keeps the
    settings that belong to the run rather than to a file: the root that reported paths are
    relative to, the cache, jobs, timeout, extensions and compile database.
    """

    def __init__(self, run: Config, overrides: Overrides | None = None, forced: bool = False) -> None:
        self.run = run
        self.overrides = overrides or Overrides()
        self.forced = forced
        self._by_dir: dict[str, Config] = {}
        self._by_path: dict[str, Config] = {}

    def for_file(self, path: str) -> Config:
        if self.forced:
            return self.run
        directory = os.path.dirname(os.path.abspath(path))
        cfg = self._by_dir.get(directory)
        if cfg is None:
            found = find(directory)
            if found is None or os.path.abspath(found) == self.run.path:
                cfg = self.run
            else:
                cfg = self._by_path.get(found)
                if cfg is None:
                    cfg = self.overrides.apply(load(found))
                    self._by_path[found] = cfg
            self._by_dir[directory] = cfg
        return cfg

    def configs(self) -> list[Config]:
        """Every configuration in force so far: the run's and the nested ones."""
        return [self.run] + [self._by_path[p] for p in sorted(self._by_path)]
