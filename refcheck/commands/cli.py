"""The `refcheck` command: check, rules, explain, cfg, doctor.

Exit codes: see EXIT_CODES_HELP (shown by `refcheck check --help`, and in the README).
Everything a user can get wrong ends in a one-line message, never a traceback.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

import click

from refcheck import __version__
from refcheck.support.errors import ConfigError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
FORMATS = ("text", "json", "sarif", "github", "html")

# The one statement of the exit-code rules; README's "Exit codes" repeats it word for word.
# Tool errors win over findings: a unit that could not be checked must never hide behind the
# findings of the others (a CI job reading "1" would take the run as complete).
EXIT_CODES_HELP = (
    "Exit codes: 0 no findings and no tool errors (warnings do not count); "
    "1 findings, every unit checked; "
    "2 tool errors (a unit not parsed, crashed or timed out), with or without findings, "
    "or a usage or configuration error; "
    "130 interrupted (Ctrl-C); 143 terminated (SIGTERM). "
    "--exit-zero turns 1 and 2-for-tool-errors into 0; usage and configuration errors stay 2."
)


def _fail(message: str) -> None:
    click.echo(f"refcheck: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


class _Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so that workers are stopped on the way out."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def _guarded(body):
    """Runs a command body, turning every failure into a message and an exit code."""
    import signal

    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return body()
    except _Terminated:
        click.echo("refcheck: terminated", err=True)
        sys.exit(128 + signal.SIGTERM)
    except ConfigError as e:
        _fail(str(e))
    except KeyboardInterrupt:
        # click would print "Aborted!" and exit 1; an interrupted run is 130, as for a shell.
        click.echo("refcheck: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:
        # `refcheck check | head`: the reader left; that is not our error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_ERROR)
    except Exception as e:  # noqa: BLE001 - the last line of defense against tracebacks
        if os.environ.get("REFCHECK_DEBUG"):
            raise
        _fail(f"internal error: {type(e).__name__}: {e} (set REFCHECK_DEBUG=1 for a traceback)")


def _split_codes(values: tuple[str, ...]) -> list[str]:
    return [c for v in values for c in v.split(",") if c.strip()]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="refcheck")
def cli() -> None:
    """Check TH's Golden Rule of reference counting on every path of every function."""


class _PositiveFinite(click.ParamType):
    """A number > 0 that is not inf or nan: FloatRange lets nan through (every comparison with
    nan is false), and inf overflows the pool's deadline arithmetic."""

    name = "positive number"

    def convert(self, value, param, ctx):
        import math

        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number) or number <= 0 or number > 1e7:
            self.fail(f"{value!r} must be a finite number greater than 0 (at most 1e7)", param, ctx)
        return number


_POSITIVE_SECONDS = _PositiveFinite()


# Options shared by `check` and `cfg`: what the parser sees and which conventions apply.
_PARSER_OPTIONS = [
    click.option("--config", "config_path", type=click.Path(dir_okay=False),
                 help="Configuration file (default: nearest refcheck.toml or pyproject.toml "
                      "with [tool.refcheck])."),
    click.option("-p", "--compile-commands", "compile_commands", type=click.Path(),
                 help="compile_commands.json, or the build directory holding it. With no PATHS, "
                      "check checks every file the database lists."),
    click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Add an include directory."),
    click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Define a macro."),
    click.option("-U", "undefines", multiple=True, metavar="NAME", help="Undefine a macro."),
    click.option("--std", help="Language standard, e.g. c11, c++17."),
    click.option("--clang-arg", "clang_args", multiple=True, metavar="ARG",
                 help="Pass one argument to clang unchanged (repeatable; also added to "
                      "compile database commands)."),
    click.option("--errors", type=click.Choice(["abort", "unwind"]),
                 help="abort: error calls need no cleanup (PyTorch); unwind: they must (Lua torch)."),
]


def _parser_options(f):
    for option in reversed(_PARSER_OPTIONS):
        f = option(f)
    return f


def _load_config(config_path, compile_commands, include_dirs, defines, undefines, std,
                 clang_args, errors, start=".", system_headers=False):
    from refcheck.workspace import config
    from refcheck.workspace import compdb

    overrides = config.Overrides([os.path.abspath(d) for d in include_dirs], list(defines),
                                 list(undefines), std, list(clang_args), errors, system_headers)
    cfg = overrides.apply(config.load(config_path, start=start))
    database = None
    db_path = compile_commands or cfg.compile_commands
    if db_path:
        database = compdb.load(db_path)
    return cfg, database, overrides


@cli.command(epilog=EXIT_CODES_HELP)
@click.argument("paths", nargs=-1, type=click.Path())
@_parser_options
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the report here.")
@click.option("--select", multiple=True, metavar="CODES",
              help="Report only these rules (codes or prefixes, comma-separated).")
@click.option("--extend-select", multiple=True, metavar="CODES",
              help="Also report these rules, on top of --select or the configuration's.")
@click.option("--ignore", "--extend-ignore", "ignore", multiple=True, metavar="CODES",
              help="Do not report these rules (added to the configuration's ignore).")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Skip files matching GLOB (relative to the root; repeatable; added to the "
                   "configuration's exclude).")
@click.option("--stdin-filename", metavar="PATH",
              help="With '-' as the path: the name of the unit read from stdin, for its flags "
                   "(compile database, configuration), its language and the paths reported "
                   "(default: stdin.c).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes (default: cores).")
@click.option("--timeout", type=_POSITIVE_SECONDS,
              help="Seconds one unit may take before it is reported as not checked (default 120).")
@click.option("--max-memory", type=click.IntRange(min=1024, max=1 << 30), metavar="MIB",
              help="Memory one worker may use before its unit is reported as not checked "
                   "(default: the machine's memory shared among the workers).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False),
              help="Cache directory (default: .refcheck_cache at the project root).")
@click.option("--baseline", type=click.Path(dir_okay=False),
              help="Fail only on findings not recorded in this baseline.")
@click.option("--write-baseline", type=click.Path(dir_okay=False),
              help="Record the current findings as the baseline.")
@click.option("--report-unused-suppressions", is_flag=True,
              help="Warn about refcheck: ignore comments that silence nothing.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even with findings or tool errors.")
@click.option("--system-headers", is_flag=True,
              help="Also check and report the functions defined in system headers (-isystem, "
                   "/usr/include and below, however included).")
@click.option("--statistics", is_flag=True, help="Counts by rule and time per stage, on stderr.")
@click.option("--full-path", is_flag=True,
              help="Show every branch on a finding's path, also those whose condition does not "
                   "mention the reference reported.")
@click.option("-q", "--quiet", is_flag=True, help="No summary, no progress bar.")
@click.option("-v", "--verbose", is_flag=True,
              help="Say why each unit was analysed rather than taken from the cache (no entry, "
                   "a file changed, flags or configuration changed, a missing include).")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto",
              show_default=True,
              help="Colour the text report. auto: when stdout is a terminal, unless NO_COLOR is "
                   "set (FORCE_COLOR colours a pipe too).")
@click.option("--show-source/--no-show-source", default=True, show_default=True,
              help="Print the source line and a caret under each text diagnostic.")
def check(paths, config_path, compile_commands, include_dirs, defines, undefines, std, clang_args,
          errors, fmt, output, select, extend_select, ignore, exclude, stdin_filename, jobs, timeout, max_memory, no_cache, cache_dir, baseline,
          write_baseline, report_unused_suppressions, exit_zero, system_headers, statistics, full_path, quiet, verbose, color,
          show_source):
    """Check C, C++ and CUDA files or directories (default: the current directory)."""

    def body():
        import time

        from refcheck.support.gcpause import paused_collector

        with paused_collector():  # the start's imports and tables (gcpause.py)
            from refcheck import reporters
            from refcheck.driver import progress, runner
            from refcheck.support import terminal
            from refcheck.workspace.config import Resolver

            cfg, database, overrides = _load_config(config_path, compile_commands, include_dirs,
                                                    defines, undefines, std, clang_args, errors,
                                                    system_headers=system_headers)
            _require_builtin_headers()
        _select_rules(overrides, select, extend_select, ignore)
        overrides.apply_selection(cfg)
        cfg.exclude = cfg.exclude + list(exclude)
        if timeout:
            cfg.timeout = timeout
        if max_memory:
            cfg.max_memory = max_memory
        if cache_dir:
            cfg.cache_dir = os.path.abspath(cache_dir)
        # stdin's text stands in for its file until the report is written (snippets, HTML).
        with _stdin_unit(paths, stdin_filename) as stdin:
            request = runner.Request(
                paths=list(paths), config=cfg, database=database,
                jobs=jobs or cfg.jobs or runner.default_jobs(), use_cache=not no_cache,
                baseline=baseline, write_baseline=write_baseline,
                report_unused_suppressions=report_unused_suppressions,
                progress=not quiet and progress.wanted(sys.stderr), verbose=verbose,
                resolver=Resolver(cfg, overrides, forced=config_path is not None))
            if stdin is not None:
                # One unit from a pipe, new on every keystroke of an editor: nothing to cache.
                request.stdin, request.use_cache, request.jobs = stdin, False, 1
            report = runner.run(request)
            result = report.result
            if not full_path:
                # The cache keeps every step; which ones are shown is the reader's choice.
                from dataclasses import replace

                from refcheck.findings import bearing_path

                result.findings = [replace(f, path=bearing_path(f.path)) for f in result.findings]

            started = time.monotonic()
            coloured = terminal.use_color(color, None if output else sys.stdout)
            text = reporters.render(fmt, result, color=coloured, show_source=show_source)
            if output:
                _write_output(output, text)
            else:
                # color=True: click would strip our escapes from a pipe, undoing FORCE_COLOR.
                click.echo(text, nl=False, color=coloured or None)
            result.timings["report"] = time.monotonic() - started

            _console_notes(report, fmt, output, statistics, quiet)
            return _exit_code(result, exit_zero)

    sys.exit(_guarded(body))


def _console_notes(report, fmt: str, output, statistics: bool, quiet: bool) -> None:
    """What a run says on stderr after its report: notes, the compiled walk's absence, the cache's
    explanations, errors where the report is not on the console, statistics, the summary."""
    for note in report.notes:
        click.echo(f"refcheck: {note}", err=True)
    if not quiet:
        # Once per run, from this process only (workers never say it): the install has no
        # compiled walk. REFCHECK_PURE_PYTHON=1 (a CI that has no compiler) silences it.
        from refcheck.frontend import native

        line = native.notice()
        if line:
            click.echo(line, err=True)
    for line in report.explanations:
        click.echo(f"refcheck: cache: {line}", err=True)
    if output or fmt != "text":
        # The report is in a file or for a program: a run that failed must still say why
        # on the console, not only inside report.html.
        for err in report.result.errors:
            if err.severity == "error":
                click.echo(f"{_error_where(err)}: error: {err.message}", err=True)
    if statistics:
        click.echo(_statistics(report), err=True)
    if not quiet:
        # Always on stderr whatever the format: stdout (or -o) holds the report alone.
        click.echo(_summary(report), err=True)


STDIN_DEFAULT_NAME = "stdin.c"


@contextmanager
def _stdin_unit(paths: tuple[str, ...], name: str | None):
    """`check -` (as ruff and clang-format): stdin's bytes, written to a temporary copy named
    like `name` (so that the extension picks the language), stand in for the file `name` while
    the run lasts; None when the paths are files."""
    if "-" not in paths:
        if name is not None:
            raise ConfigError("--stdin-filename names the unit read from stdin: give '-' as the path")
        yield None
        return
    if len(paths) > 1:
        raise ConfigError("'-' (read the unit from stdin) cannot be combined with other paths")
    import tempfile

    from refcheck.findings.source import standing_in
    from refcheck.driver.runner import Stdin

    real = os.path.abspath(name or STDIN_DEFAULT_NAME)
    if not os.path.basename(real) or os.path.isdir(real):
        raise ConfigError(f"--stdin-filename {name}: a file name is needed, not a directory")
    data = sys.stdin.buffer.read()  # click.get_binary_stream is deprecated (Click 9 drops it)
    with tempfile.TemporaryDirectory(prefix="refcheck-stdin-") as tmp:
        temp = os.path.join(tmp, os.path.basename(real))
        with open(temp, "wb") as f:
            f.write(data)
        with standing_in(real, data):
            yield Stdin(real, temp)


def _select_rules(overrides, select, extend_select, ignore) -> None:
    """The command line's rule codes, expanded; an unknown one is a usage error."""
    from refcheck.filters import selection

    for option, given in (("--select", select), ("--extend-select", extend_select),
                          ("--ignore", ignore)):
        try:
            codes = selection.expand(_split_codes(given)) if given else []
        except ValueError as e:
            raise ConfigError(f"{option}: {e}") from None
        if option == "--select":
            overrides.select = codes or None
        elif option == "--extend-select":
            overrides.extend_select = codes
        else:
            overrides.ignore = codes


def _require_builtin_headers() -> None:
    """Once per run: no builtin headers is a setup error (exit 2), another version a warning."""
    from refcheck.frontend.headers import find_builtin_headers

    found = find_builtin_headers()
    if not found.ok:
        raise ConfigError(f"{found.problem} (refcheck doctor shows the setup)")
    if found.warning:
        click.echo(f"refcheck: warning: {found.warning}", err=True)


def _error_where(err) -> str:
    where = os.path.relpath(err.file) if os.path.isabs(err.file) else err.file
    return where + (f":{err.line}:{err.column}" if err.line > 0 else "")


def _write_output(path: str, text: str) -> None:
    from refcheck.support import safeio
    try:
        safeio.write_file(path, text.encode("utf-8"))
    except safeio.UnwritableFile as e:
        raise ConfigError(f"{path}: cannot write output: {e}") from None


def _exit_code(result, exit_zero: bool) -> int:
    if exit_zero:
        return EXIT_CLEAN
    if any(e.severity == "error" for e in result.errors):
        return EXIT_ERROR
    if result.findings:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _summary(report) -> str:
    r = report.result
    errors = sum(1 for e in r.errors if e.severity == "error")
    warnings = len(r.errors) - errors
    parts = [_plural(len(r.findings), "finding")]
    if errors:
        parts.append(_plural(errors, "tool error"))
    if warnings:
        parts.append(_plural(warnings, "warning"))
    extra = []
    if report.suppressed:
        extra.append(f"{report.suppressed} suppressed")
    if report.baselined:
        extra.append(f"{report.baselined} in baseline")
    if report.baseline_fixed:
        n = report.baseline_fixed
        extra.append(f"{n} baseline {'entry' if n == 1 else 'entries'} now fixed")
    tail = f" ({', '.join(extra)})" if extra else ""
    return (f"refcheck: {', '.join(parts)}{tail} in {_plural(r.files, 'file')}, "
            f"{_plural(r.functions, 'function')}, {r.seconds:.2f} s")


def _statistics(report) -> str:
    from collections import Counter

    from refcheck.rules import RULES

    r = report.result
    counts = Counter(f.rule for f in r.findings)
    lines = ["rule     name                           findings"]
    for code, rule in RULES.items():
        if counts[code]:
            lines.append(f"{code}    {rule.name:<30} {counts[code]:>8}")
    lines.append(f"total    {'':<30} {len(r.findings):>8}")
    lines.append("")
    lines.append(f"units    {r.files} reported ({report.analyzed} analyzed, "
                 f"{report.cache_hits} from cache)")
    lines.append(f"functions {r.functions}")
    if report.counts:
        c = report.counts
        lines.append(f"          {c.get('analysed', 0)} analysed, {c.get('shared', 0)} shared with an identical "
                     f"instantiation, {c.get('skipped', 0)} with nothing to find, "
                     f"{c.get('cached', 0)} from the per-function cache")
        # Checked by the first pass alone (analysis.prepass): analysed, never explored.
        lines.append(f"          {c.get('proved', 0)} of the analysed proved by the first pass")
    for stage in ("parse", "cfg", "analysis", "report"):
        lines.append(f"{stage:<9}{r.timings.get(stage, 0.0):>9.3f} s")
    lines.append(f"{'wall':<9}{r.seconds + r.timings.get('report', 0.0):>9.3f} s")
    return "\n".join(lines)


@cli.command("rules")
def rules_command():
    """List every rule."""
    from refcheck.rules import RULES

    for code, rule in RULES.items():
        click.echo(f"{code}  {rule.name:<26} {rule.summary}")


@cli.command()
@click.argument("rule")
def explain(rule):
    """Print a rule's documentation (the same text as docs/rules/<CODE>.md); RULE is its code
    (RC001) or its name (leak), in any case."""
    found = _find_rule(rule)
    try:
        text = found.doc
    except OSError:
        _fail(f"no documentation installed for {found.code}")
    click.echo(text, nl=not text.endswith("\n"))


def _find_rule(given: str):
    """The rule a user named by code or name; an unknown one is a usage error with the nearest
    names, as ruff and git suggest, since names are long enough to mistype."""
    import difflib

    from refcheck.rules import RULES

    key = given.strip().lower()
    for code, rule in RULES.items():
        if key in (code.lower(), rule.name.lower()):
            return rule
    # Codes differ by one digit from each other, so only names are suggested; the list of
    # codes and names follows anyway.
    close = difflib.get_close_matches(key, [r.name for r in RULES.values()], n=2, cutoff=0.7)
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    _fail(f"unknown rule '{given}'{hint} (known: "
          f"{', '.join(f'{c} {r.name}' for c, r in RULES.items())})")


@cli.command()
@click.argument("file", type=click.Path())
@click.option("--function", "function", required=True, help="The function whose CFG to print.")
@click.option("--format", "fmt", type=click.Choice(["text", "dot"]), default="text", show_default=True)
@click.option("--states", is_flag=True, help="Also print the ownership states the analysis explores at each node.")
@_parser_options
def cfg(file, function, fmt, states, config_path, compile_commands, include_dirs, defines, undefines,
        std, clang_args, errors):
    """Print the control-flow graph refcheck builds for one function (text or Graphviz dot)."""

    def body():
        from refcheck.driver import engine, runner
        if not os.path.isfile(file):
            raise ConfigError(f"{file}: no such file")
        from refcheck.workspace.config import Resolver

        cfg_, database, overrides = _load_config(config_path, compile_commands, include_dirs,
                                                 defines, undefines, std, clang_args, errors)
        request = runner.Request(paths=[file], config=cfg_, database=database,
                                 resolver=Resolver(cfg_, overrides, forced=config_path is not None))
        own = request.config_for(os.path.abspath(file))  # the file's own configuration
        settings = engine.Settings(conventions=own.conventions,
                                   clang_args=runner.args_for(os.path.abspath(file), request),
                                   root=cfg_.root, max_states=own.max_states,
                                   function_seconds=own.function_seconds)
        from refcheck.commands import cfg_dump
        from refcheck.frontend.unit import FrontendError

        _require_builtin_headers()
        parse_errors: list = []
        try:
            text = cfg_dump.render(os.path.abspath(file), function, fmt, settings, states=states,
                                   errors=parse_errors)
        except LookupError as e:
            raise ConfigError(f"{file}: {e.args[0] if e.args else f'no function named {function}'}") from None
        except FrontendError as e:
            raise ConfigError(f"{file}: {e}") from None
        except cfg_dump.UnitNotParsed as e:
            # As for check: a unit that did not parse is a tool error (exit 2), and no graph.
            for err in e.errors:
                click.echo(f"{_error_where(err)}: error: {err.message}", err=True)
            click.echo(f"refcheck: error: {file}: clang stopped on a fatal error, so no graph is printed "
                       f"(missing include directories or defines? -I, -D or -p give them)", err=True)
            return EXIT_ERROR
        click.echo(text, nl=not text.endswith("\n"))
        if parse_errors:
            for err in parse_errors:
                click.echo(f"{_error_where(err)}: error: {err.message}", err=True)
            click.echo(f"refcheck: warning: {file} parsed with errors: the graph may miss what did not "
                       f"parse", err=True)
            return EXIT_ERROR
        return EXIT_CLEAN

    sys.exit(_guarded(body))


@cli.command()
@click.argument("file", required=False, type=click.Path())
@_parser_options
def doctor(file, config_path, compile_commands, include_dirs, defines, undefines, std, clang_args, errors):
    """Show the libclang, builtin headers, configuration and cache this installation uses, and the
    clang arguments of FILE. Exit 1 when something is broken."""

    def body():
        from refcheck.commands import doctor as doctor_
        from refcheck.driver import runner
        from refcheck.workspace.config import Resolver

        args_for, dropped = None, []
        if file is not None:
            # FILE's own configuration (found upward from its directory), as check applies it.
            cfg_, database, overrides = _load_config(config_path, compile_commands, include_dirs,
                                                     defines, undefines, std, clang_args, errors,
                                                     start=os.path.dirname(os.path.abspath(file)))
            request = runner.Request(paths=[file], config=cfg_, database=database,
                                     resolver=Resolver(cfg_, overrides, forced=config_path is not None))
            args_for = lambda path: runner.args_for(path, request)  # noqa: E731
            if database is not None:
                dropped = database.dropped.get(os.path.normpath(os.path.abspath(file)), [])
        found = doctor_.diagnose(file, args_for, config_path, dropped)
        click.echo(found.render(), nl=False)
        return EXIT_FINDINGS if found.problems else EXIT_CLEAN

    sys.exit(_guarded(body))


def main(argv: list[str] | None = None) -> None:
    cli.main(args=argv, prog_name="refcheck")
