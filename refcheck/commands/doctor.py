"""`refcheck doctor`: what this installation will parse with, and whether that works.

Every line is a fact found now (not a setting echoed back), so that a bug report that pastes the
output says which libclang, which builtin headers and which configuration were in force. A check
that fails is a problem (exit 1); a version mismatch is a warning (exit 0).
"""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass, field

# Headers whose parse proves the resource directory is clang's and matches libclang: stddef.h and
# stdarg.h are the minimum of any C unit; stdatomic.h and the x86 intrinsics are what gcc's
# builtin headers got wrong (TH includes both).
PROBE_HEADERS = ("stddef.h", "stdarg.h", "stdatomic.h")
X86_PROBE = "immintrin.h"


@dataclass
class Diagnosis:
    lines: list[tuple[str, str]] = field(default_factory=list)  # (label, value)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add(self, label: str, value: str) -> None:
        self.lines.append((label, value))

    def render(self) -> str:
        width = max(len(label) for label, _ in self.lines)
        out = [f"{label + ':':<{width + 1}} {value}" for label, value in self.lines]
        out += [f"warning: {w}" for w in self.warnings]
        out += [f"problem: {p}" for p in self.problems]
        out.append("refcheck doctor: " + ("no problems found" if not self.problems else
                                          f"{len(self.problems)} problem{'s' * (len(self.problems) != 1)} found"))
        return "\n".join(out) + "\n"


def _distribution_version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def diagnose(file: str | None = None, clang_args_for=None, config_path: str | None = None,
             dropped: list[str] | None = None) -> Diagnosis:
    from refcheck import __version__
    from refcheck.workspace import config
    from refcheck.support.errors import ConfigError
    from refcheck.frontend import headers

    d = Diagnosis()
    d.add("python", f"{platform.python_version()} ({sys.executable})")
    d.add("refcheck", f"{__version__} (distribution refcheck-th {_distribution_version('refcheck-th')}, "
                      f"{os.path.dirname(os.path.abspath(__file__))})")

    lib = headers.libclang_info()
    d.add("libclang", f"{lib.version} ({lib.path or 'not loaded'}; libclang wheel "
                      f"{_distribution_version('libclang')})")
    if lib.major is None:
        d.problems.append(f"libclang: {lib.version}")
    d.add("clang-tidy wheel", _distribution_version(headers.WHEEL))
    from refcheck.frontend import native

    d.add("libclang walk", native.CHOICE.describe())

    found = headers.find_builtin_headers()
    if found.ok:
        major = f", version {found.major}" if found.major is not None else ""
        d.add("resource dir", f"{found.path} ({found.source.value}{major}: {found.why})")
        # The lookup read libclang's version from the wheel's metadata; the library loaded may
        # differ (CLANG_LIBRARY_FILE, a build of its own), so compare with the library itself.
        warning = headers.mismatch(found.major, lib.major) or found.warning
        if found.major is not None and lib.major is not None:
            d.add("version pairing", f"libclang {lib.major}, builtin headers {found.major}: "
                                     + ("match" if found.major == lib.major else "MISMATCH"))
        if warning:
            d.warnings.append(warning)
    else:
        d.add("resource dir", f"none ({found.why})")
        d.problems.append(found.problem)

    if found.ok and lib.major is not None:
        for header in PROBE_HEADERS + ((X86_PROBE,) if platform.machine().lower() in ("x86_64", "amd64") else ()):
            errors = headers.probe(found.args, (header,))
            d.add(f"  <{header}>", "parses" if not errors else f"FAILS: {errors[0]}")
            if errors:
                d.problems.append(f"<{header}> does not parse with {found.path}: {errors[0]}")
        from refcheck.frontend.unit import cuda_args

        cuda = cuda_args()
        d.add("CUDA", next((a.split("=", 1)[1] + " (real CUDA headers)" for a in cuda
                            if a.startswith("--cuda-path=")), "refcheck's minimal CUDA declarations "
                                                             "(no CUDA toolkit libclang can read)"))

    try:
        start = os.path.dirname(os.path.abspath(file)) if file else "."
        cfg = config.load(config_path, start=start)
    except ConfigError as e:
        d.add("config", f"invalid: {e}")
        d.problems.append(f"configuration: {e}")
        return d
    d.add("config", cfg.path or "none found (defaults)")
    d.add("project root", cfg.root)
    d.add("cache dir", cfg.cache_dir)
    if file is not None and clang_args_for is not None:
        from refcheck.frontend.unit import language_args

        user = clang_args_for(os.path.abspath(file))
        full = language_args(file, user) + list(found.args) + list(user)
        d.add("clang args", " ".join(_quote(a) for a in full))
        for option in dropped or ():
            d.add("not translated", option)
        if found.ok and lib.major is not None:
            _parse_file(d, file, user, cfg.root)
    return d


def _parse_file(d: Diagnosis, file: str, args: list[str], root: str) -> None:
    """Parses FILE as `check` would: each error (with its hint) is a problem, since a unit that
    does not parse is checked on a partial parse or not at all."""
    from refcheck.workspace import hints
    from refcheck.frontend.unit import FrontendError, parse

    try:
        parsed = parse(os.path.abspath(file), args, detailed=False)
    except FrontendError as e:
        d.add("parse", f"FAILS: {e}")
        d.problems.append(f"{file}: {e}")
        return
    errors = [e for e in parsed.errors if e.severity == "error"]
    d.add("parse", f"{len(parsed.functions)} function definition(s); "
                   + (f"{len(errors)} error(s)" if errors else "no errors"))
    for e in errors:
        where = os.path.relpath(e.file) if os.path.isabs(e.file) else e.file
        hint = e.hint or hints.for_diagnostic(e.message, args, root)
        d.problems.append(f"{where}:{e.line}:{e.column}: {e.message}" + (f" (hint: {hint})" if hint else ""))
    for e in parsed.errors:
        if e.severity == "warning":
            d.warnings.append(f"{e.message} (hint: {e.hint})" if e.hint else e.message)


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)
