"""Reads compile_commands.json into per-unit clang arguments, without ever running anything.

Only options that shape what the parser sees are kept (include paths, macros, language, target
and warning flags). Everything else is dropped, which also drops the ways a database could make
clang load code: -Xclang -load, -fplugin=, -fpass-plugin=, response files (@file).

Entries whose compiler is nvcc (as CMake writes them for CUDA) are translated: nvcc's own
spellings of -I/-D/-U/-isystem/-std, its --options-file (read for those options only: CMake puts
the include directories there), host compiler flags given with -Xcompiler or forwarded with
-forward-unknown-to-host-compiler, and `-x cu` (CUDA mode, whose setup the frontend adds). Device
code generation options (-gencode, -arch, -ccbin, -Xptxas, ...) do not change the host-side parse
and are dropped; each option dropped for another reason is recorded with the reason.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass, field

from refcheck.support.errors import ConfigError

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
    # absolute normalized source path -> options not translated, each with the reason
    dropped: dict[str, list[str]] = field(default_factory=dict)

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
        if source not in db.units:
            if is_nvcc(argv):
                dropped: list[str] = []
                db.units[source] = nvcc_args(argv, directory, dropped)
                if dropped:
                    db.dropped[source] = dropped
            else:
                db.units[source] = clang_args(argv, directory, source)
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


# --- nvcc ----------------------------------------------------------------------------------------

# nvcc's long spellings of the options clang shares.
_NVCC_SAME = {"--include-path": "-I", "--define-macro": "-D", "--undefine-macro": "-U",
              "--system-include": "-isystem", "--pre-include": "-include", "--std": "-std",
              "-I": "-I", "-D": "-D", "-U": "-U", "-isystem": "-isystem", "-include": "-include",
              "-std": "-std"}
# Options that take a value and only matter to device code, the host compiler's choice, the
# linker or nvcc's own driver: dropped without a note, they do not change the host-side parse.
_NVCC_IRRELEVANT_WITH_VALUE = {
    "-gencode", "--generate-code", "-arch", "--gpu-architecture", "-code", "--gpu-code",
    "-ccbin", "--compiler-bindir", "-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options",
    "-Xcudafe", "-Xarchive", "--archive-options", "-Xlinker", "--linker-options", "-o",
    "--output-file", "-MF", "--dependency-output", "-MT", "-rdc", "--relocatable-device-code",
    "-maxrregcount", "--maxrregcount", "-t", "--threads", "-split-compile", "--split-compile",
    "-Werror", "--Werror", "-m", "--machine", "-odir", "--output-directory", "-ldir",
    "--library-path", "-L", "-l", "--library", "-cudart", "--cudart", "-cudadevrt", "--cudadevrt",
    "-time", "--time", "-arch-ls", "-keep-dir", "--keep-dir", "-optf", "--options-file",
    "-Xcompiler", "--compiler-options", "-x", "--x", "-default-stream", "--default-stream",
    "-ftz", "--ftz", "-prec-div", "--prec-div", "-prec-sqrt", "--prec-sqrt", "-fmad", "--fmad",
    "-lineinfo", "-diag-suppress", "--diag-suppress", "-diag-warn", "--diag-warn", "-diag-error",
    "--diag-error", "-dlto", "-dlink-time-opt", "-extra-device-vectorization",
}
# Flags without a value that do not change the host-side parse.
_NVCC_IRRELEVANT_FLAGS = {
    "-c", "--compile", "-dc", "--device-c", "-dw", "--device-w", "-G", "--device-debug", "-g",
    "--debug", "-lineinfo", "--generate-line-info", "-forward-unknown-to-host-compiler",
    "--forward-unknown-to-host-compiler", "-forward-unknown-to-host-linker",
    "--forward-unknown-to-host-linker", "--expt-relaxed-constexpr", "-expt-relaxed-constexpr",
    "--expt-extended-lambda", "-expt-extended-lambda", "--extended-lambda", "-extended-lambda",
    "-use_fast_math", "--use_fast_math", "-keep", "--keep", "-v", "--verbose", "-w",
    "--disable-warnings", "-MD", "-MMD", "--generate-dependencies-with-compile",
    "--generate-nonsystem-dependencies-with-compile", "-m64", "-m32", "-shared", "--shared",
    "-lib", "--lib", "-link", "--link", "-cubin", "-ptx", "-fatbin", "-E", "-M", "-MM",
    "--resource-usage", "-res-usage", "-src-in-ptx", "-restrict", "--restrict", "-static-global-template-stub",
}
MAX_OPTIONS_FILE = 1 << 20


def is_nvcc(argv: list[str]) -> bool:
    if not argv:
        return False
    name = os.path.basename(argv[0].replace("\\", "/")).lower()
    return name in ("nvcc", "nvcc.exe")


def _split_joined(a: str) -> tuple[str, str | None]:
    """--opt=value and -opt=value as (option, value); a plain token as (token, None)."""
    if a.startswith("-") and "=" in a:
        opt, value = a.split("=", 1)
        return opt, value
    return a, None


def nvcc_args(argv: list[str], directory: str, dropped: list[str], _depth: int = 0) -> list[str]:
    """The clang arguments equivalent to one nvcc command line, as far as the host-side parse
    of the unit goes; `dropped` receives each option not translated and why."""
    out: list[str] = []
    host: list[str] = []  # host compiler flags (-Xcompiler, or unknown ones forwarded)
    args = argv[1:] if _depth == 0 else list(argv)
    forward = any(a in ("-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler")
                  for a in args)
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if not a.startswith("-"):
            if a.startswith("@"):
                dropped.append(f"{a} (response file: not read)")
            continue  # the source, other inputs
        opt, value = _split_joined(a)

        def take() -> str | None:
            nonlocal i
            if value is not None:
                return value
            if i < len(args):
                i += 1
                return args[i - 1]
            return None

        # -Ifoo, -DX=1, -isystemfoo: joined short forms (checked before "=" splitting matters).
        joined = next((p for p in ("-isystem", "-include", "-I", "-D", "-U") if a.startswith(p) and len(a) > len(p)
                       and not a.startswith("-include-path")), None)
        if opt in ("--options-file", "-optf"):
            out += _options_file(take(), directory, dropped, _depth)
        elif opt in ("-Xcompiler", "--compiler-options"):
            v = take()
            if v is not None:
                host += [h for h in v.split(",") if h]
        elif opt in ("-x", "--x"):
            v = take()
            if v in ("cu", "cuda"):
                out += ["-x", "cuda"]
            elif v in ("c", "c++"):
                out += ["-x", v]
            else:
                dropped.append(f"-x {v} (a language refcheck does not parse)")
        elif opt in _NVCC_SAME and (value is not None or a == opt):
            v = take()
            if v is None:
                break
            flag = _NVCC_SAME[opt]
            if flag == "-std":
                out.append(f"-std={v}")
            else:
                out += [flag, _absolute(v, directory) if flag in _PATH_OPTIONS else v]
        elif joined is not None:
            rest = a[len(joined):]
            if joined in ("-isystem", "-include") and rest.startswith("="):
                rest = rest[1:]  # nvcc's -isystem=dir is clang's -isystem dir (clang's = means sysroot)
            out += [joined, _absolute(rest, directory) if joined in _PATH_OPTIONS else rest]
        elif opt in _NVCC_IRRELEVANT_WITH_VALUE:
            if value is None and opt not in ("-lineinfo",):
                take()
        elif a in _NVCC_IRRELEVANT_FLAGS or opt in _NVCC_IRRELEVANT_FLAGS:
            pass
        elif opt.startswith(("-O", "--optimize")):
            if opt in ("--optimize",) and value is None:
                take()
        elif forward and not a.startswith("--"):
            host.append(a)
        else:
            dropped.append(f"{a} (an nvcc option refcheck does not translate)")
    # Host compiler flags: what clang would keep of a gcc command line (macros, includes, -f/-m).
    kept_host = clang_args(["host", *host], directory, "") if host else []
    return out + [h for h in kept_host if not h.startswith(("-std=", "-x"))] + \
        [h for h in kept_host if h.startswith("-std=") and not any(o.startswith("-std=") for o in out)]


def _options_file(name: str | None, directory: str, dropped: list[str], depth: int) -> list[str]:
    """The -I/-D/-U/-isystem options of an nvcc --options-file (CMake's includes_CUDA.rsp)."""
    if name is None:
        return []
    path = _absolute(name, directory)
    if depth >= 4:
        dropped.append(f"--options-file {name} (nested too deep)")
        return []
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_OPTIONS_FILE + 1)
        if len(data) > MAX_OPTIONS_FILE:
            dropped.append(f"--options-file {name} (over {MAX_OPTIONS_FILE} bytes)")
            return []
        tokens = shlex.split(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        dropped.append(f"--options-file {name} (cannot read {path}: {getattr(e, 'strerror', None) or e})")
        return []
    inner: list[str] = []
    # Only what decides the parse is taken from the file: includes, macros, language standard.
    args = nvcc_args(tokens, directory, inner, depth + 1)
    dropped += [f"{d} (in {name})" for d in inner]
    keep = []
    j = 0
    while j < len(args):
        a = args[j]
        if a in ("-I", "-D", "-U", "-isystem", "-include") and j + 1 < len(args):
            keep += [a, args[j + 1]]
            j += 2
            continue
        if a.startswith(("-I", "-D", "-U", "-std=")):
            keep.append(a)
        j += 1
    return keep
