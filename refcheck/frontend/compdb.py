"""Reads compile_commands.json into per-unit clang arguments, without ever running anything.

Only options that shape what the parser sees are kept (include paths, macros, language, target
and warning flags). Everything else is dropped, which also drops the ways a database could make
clang load code: -Xclang -load, -fplugin=, -fpass-plugin=, response files (@file).
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass, field

from refcheck.config import ConfigError

# Options whose value is a path, which must be made absolute against the entry's directory
# because the worker does not run in that directory.
_PATH_OPTIONS = ("-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros", "-F",
                 "-isysroot", "--sysroot", "-iprefix", "-iwithprefix", "--cuda-path")
# Options kept with a separate value ("-D X").
_KEEP_WITH_VALUE = {"-D", "-U", "-x", "-target", "-I", "-isystem", "-iquote", "-idirafter",
                    "-include", "-imacros", "-F", "-isysroot", "--sysroot", "-iprefix", "-iwithprefix"}
# Options dropped together with their separate value.
_DROP_WITH_VALUE = {"-o", "-MF", "-MT", "-MQ", "-MJ", "-Xclang", "-Xlinker", "-Xassembler",
                    "-Xpreprocessor", "-Xcompiler", "-Xcudafe", "-Xptxas", "-Xnvlink", "-arch",
                    "--serialize-diagnostics", "-load", "-L", "-l", "-ccbin", "-gencode",
                    "--generate-code", "-gpu-architecture", "--gpu-architecture", "-dependency-file",
                    "-mllvm"}
# Prefixes of single-token options that are kept.
_KEEP_PREFIXES = ("-D", "-U", "-I", "-std=", "--std=", "-x", "-f", "-m", "-W", "-O", "-pthread",
                  "-ansi", "-nostdinc", "-nostdlib", "--target=", "-target", "-isystem", "-iquote",
                  "-idirafter", "-include", "-imacros", "-isysroot", "--sysroot", "-iprefix",
                  "-iwithprefix", "--cuda-", "-nocuda", "-F", "-pedantic", "-w")
_DROP_PREFIXES = ("-fplugin", "-fpass-plugin", "-Wl,", "-Wa,", "-Wp,", "-fmodules-cache-path",
                  "-fprofile", "-fcrash-diagnostics", "-ftime-trace", "-fdebug-prefix-map",
                  "-fmacro-prefix-map", "-ffile-prefix-map", "-MD", "-MMD", "-MF", "-MT", "-MQ",
                  # Warnings made errors would fail a parse that only needs to succeed.
                  "-Werror", "-pedantic-errors",
                  # nvcc-only options that share a prefix with kept clang ones.
                  "-maxrregcount", "-fmad")


@dataclass
class CompileDatabase:
    path: str
    # absolute normalized source path -> clang arguments
    units: dict[str, list[str]] = field(default_factory=dict)

    def args_for(self, path: str) -> list[str] | None:
        return self.units.get(os.path.normpath(os.path.abspath(path)))


def locate(given: str) -> str:
    """As clang-tidy -p: the file itself or the build directory holding compile_commands.json."""
    if os.path.isdir(given):
        candidate = os.path.join(given, "compile_commands.json")
        if not os.path.isfile(candidate):
            raise ConfigError(f"{given}: no compile_commands.json in this directory")
        return candidate
    if not os.path.exists(given):
        raise ConfigError(f"{given}: compile database not found")
    return given


def load(given: str) -> CompileDatabase:
    path = locate(given)
    label = os.path.relpath(path)
    try:
        with open(path, "rb") as f:
            data = json.loads(f.read().decode("utf-8"))
    except OSError as e:
        raise ConfigError(f"{label}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{label}: not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise ConfigError(f"{label}: not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(data, list):
        raise ConfigError(f"{label}: expected a JSON array of compile commands, got {type(data).__name__}")
    db = CompileDatabase(os.path.abspath(path))
    for i, entry in enumerate(data):
        where = f"{label}: entry {i}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: expected an object, got {type(entry).__name__}")
        directory = _string(entry, "directory", where)
        if not os.path.isabs(directory):
            raise ConfigError(f"{where}: \"directory\" must be an absolute path, got {directory!r}")
        file = _string(entry, "file", where)
        if "arguments" in entry:
            argv = entry["arguments"]
            if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
                raise ConfigError(f"{where}: \"arguments\" must be a list of strings")
        elif "command" in entry:
            try:
                argv = shlex.split(_string(entry, "command", where))
            except ValueError as e:
                raise ConfigError(f"{where}: cannot split \"command\": {e}") from None
        else:
            raise ConfigError(f"{where}: needs \"arguments\" or \"command\"")
        source = os.path.normpath(os.path.join(directory, file))
        # The first command for a file wins, as for clang tools that take a single command.
        db.units.setdefault(source, clang_args(argv, directory, source))
    return db


def _string(entry: dict, key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str):
        raise ConfigError(f"{where}: \"{key}\" must be a string" + ("" if key in entry else ", missing"))
    return value


def _absolute(value: str, directory: str) -> str:
    return value if os.path.isabs(value) else os.path.normpath(os.path.join(directory, value))


def clang_args(argv: list[str], directory: str, source: str) -> list[str]:
    """The parser-relevant arguments of one compiler command line."""
    out: list[str] = []
    args = argv[1:] if argv and not argv[0].startswith("-") else list(argv)
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a in _DROP_WITH_VALUE:
            i += 1
            continue
        if a in _KEEP_WITH_VALUE:
            if i >= len(args):
                break
            value = args[i]
            i += 1
            if a in _PATH_OPTIONS:
                value = _absolute(value, directory)
            if a == "-x" and value == "cu":
                value = "cuda"  # nvcc spells the language "cu"; clang calls it "cuda"
            out += [a, value]
            continue
        if not a.startswith("-") or a.startswith("@"):
            # The source itself, other inputs, response files: never read, never passed on.
            continue
        if a.startswith(_DROP_PREFIXES) or not a.startswith(_KEEP_PREFIXES):
            continue
        out.append(_joined_path(a, directory))
    return out


def _joined_path(arg: str, directory: str) -> str:
    """-Irel, --sysroot=rel: make the path part absolute."""
    for opt in sorted(_PATH_OPTIONS, key=len, reverse=True):
        if arg.startswith(opt) and len(arg) > len(opt):
            rest = arg[len(opt):]
            sep = ""
            if rest.startswith("="):
                sep, rest = "=", rest[1:]
            if opt in ("-include", "-imacros", "-isystem", "-iquote", "-idirafter", "-isysroot",
                       "-iprefix", "-iwithprefix") and sep == "" and not rest:
                return arg
            return opt + sep + _absolute(rest, directory)
    return arg
