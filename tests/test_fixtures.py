"""The fixture suite: every fixtures/ unit analyzed, its findings compared with its inline
expectations (see tests/fixture_expect.py for the syntax), clang -verify style.

A failure lists every missing and every extra finding as file:line, so one run shows the whole
disagreement between the analyzer and the fixtures.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sysconfig
from collections import Counter
from dataclasses import replace
from pathlib import Path

import clang.cindex as ci
import pytest

from cunit import UNTIMED
from fixture_expect import (
    Expectation,
    glib_cflags,
    numpy_include,
    openssl_cflags,
    gnutls_cflags,
    sqlite_cflags,
    dbus_cflags,
    pkg_cflags,
    FixtureFile,
    FixtureSyntaxError,
    find_units,
    parse_fixture,
    unit_sources,
)

from refcheck.conventions import Conventions
from refcheck.conventions import callbacktypes, gtkdoc
from refcheck.conventions.installed import installed
from refcheck.driver.engine import Settings, check_unit
from refcheck.findings import Finding, UnitResult, merge_findings
from refcheck.conventions.presets import PRESETS
from refcheck.rules import RULES

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
INCLUDE = FIXTURES / "include"
UNITS = find_units(FIXTURES)
RULE_CODES = list(RULES)

MIN_FUNCTIONS = 120
MIN_POSITIVES_PER_RULE = 3


def _id(path: Path) -> str:
    return str(path.relative_to(FIXTURES))


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


@functools.lru_cache(maxsize=None)
def _sources(unit: Path) -> tuple[FixtureFile, ...]:
    return tuple(unit_sources(unit, FIXTURES, [INCLUDE]))


def _missing_headers(unit: Path) -> str | None:
    """Why the unit cannot be parsed as written here (headers it is built against are missing), or None."""
    options = _sources(unit)[0].options
    if options.python_headers and not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return f"no Python.h in {sysconfig.get_paths()['include']} (install the Python development headers)"
    if options.glib_headers and not glib_cflags():
        return "no GLib development headers (pkg-config gio-2.0)"
    if options.openssl_headers and openssl_cflags() is None:
        return "no OpenSSL development headers (pkg-config openssl)"
    if options.gnutls_headers and gnutls_cflags() is None:
        return "no GnuTLS development headers (pkg-config gnutls)"
    if options.sqlite_headers and sqlite_cflags() is None:
        return "no SQLite development headers (pkg-config sqlite3)"
    if options.dbus_headers and dbus_cflags() is None:
        return "no libdbus development headers (pkg-config dbus-1)"
    missing = next((p for p in options.packages if pkg_cflags(p) is None), None)
    if missing:
        return f"no {missing} development headers (pkg-config {missing})"
    if options.numpy_headers and not numpy_include():
        return "numpy is not installed (its C API headers come with it)"
    return None


def _skip_without_headers(unit: Path) -> None:
    reason = _missing_headers(unit)
    if reason:
        pytest.skip(reason)


def _parsable_units() -> list[Path]:
    """The units whose headers are installed: the whole-suite checks below read only these (the
    per-unit tests skip the others with the reason)."""
    return [u for u in UNITS if _missing_headers(u) is None]


@functools.lru_cache(maxsize=None)
def _analyze(unit: Path, errors: str) -> UnitResult:
    options = _sources(unit)[0].options
    conventions = PRESETS[options.preset].conventions
    if options.preset == "glib":  # the fixture's own gtk-doc annotations, as a run reads its units'
        conventions = gtkdoc.annotated(conventions, [str(s.path) for s in _sources(unit)])
        conventions = callbacktypes.annotated(conventions, [str(s.path) for s in _sources(unit)], None)
    if options.gir_dir:  # the fixture's own "installed" .gir files, in place of the machine's
        conventions = replace(conventions, installed_gir=installed((str(REPO / options.gir_dir),)))
    settings = Settings(
        conventions=replace(conventions, errors=errors, may_raise_summaries=options.may_raise_summaries),
        clang_args=["-I", str(INCLUDE), *options.clang_args],
        root=str(REPO),
        function_seconds=UNTIMED,
    )
    result = check_unit(str(unit), settings)
    ignored = set(PRESETS[options.preset].ignore)  # the rules a preset leaves off (RC004/RC005 for CPython)
    if ignored:
        result = replace(result, findings=[f for f in result.findings if f.rule not in ignored])
    return result


def _finding_path(finding: Finding) -> Path:
    path = Path(finding.location.file)
    return (path if path.is_absolute() else REPO / path).resolve()


def _describe(finding: Finding) -> str:
    insts = f" [{', '.join(finding.instantiations)}]" if len(finding.instantiations) > 1 else ""
    return (f"{_rel(_finding_path(finding))}:{finding.location.line}: {finding.rule} "
            f"in {finding.function}: {finding.message}{insts}")


def _compare(findings: list[Finding], expectations: list[Expectation]) -> list[str]:
    """Every difference between what was found and what was expected, one line each."""
    want = Counter((e.file, e.line, e.rule) for e in expectations)
    got: dict[tuple, list[Finding]] = {}
    for f in findings:
        got.setdefault((_finding_path(f), f.location.line, f.rule), []).append(f)
    problems = []
    for key, count in sorted(want.items()):
        have = len(got.get(key, []))
        if have < count:
            file, line, rule = key
            times = f" (x{count - have})" if count - have > 1 else ""
            problems.append(f"missing: {_rel(file)}:{line}: {rule}{times}")
    for key, found in sorted(got.items(), key=lambda kv: kv[0]):
        for f in found[want.get(key, 0):]:
            problems.append(f"extra:   {_describe(f)}")
    # Instantiation counts of generic code: checked on the findings that were expected.
    for e in expectations:
        if e.instantiations is None:
            continue
        for f in got.get((e.file, e.line, e.rule), []):
            if len(f.instantiations) != e.instantiations:
                problems.append(f"instantiations: {_rel(e.file)}:{e.line}: {e.rule} expected "
                                f"{e.instantiations}, got {len(f.instantiations)} {f.instantiations}")
    return problems


@pytest.mark.parametrize("unit", UNITS, ids=_id)
def test_fixture(unit: Path) -> None:
    _skip_without_headers(unit)
    sources = _sources(unit)
    options = sources[0].options
    result = _analyze(unit, options.errors)
    problems = []
    if not options.allow_errors:
        problems += [f"tool error: {e.file}:{e.line}: {e.message}"
                     for e in result.errors if e.severity == "error"]
    expectations = [e for s in sources for e in s.expectations]
    problems += _compare(merge_findings(list(result.findings)), expectations)
    assert not problems, f"{_id(unit)} (errors={options.errors}):\n" + "\n".join(problems)


UNWIND_UNITS = [u for u in UNITS if _sources(u)[0].options.errors == "unwind"]


@pytest.mark.parametrize("unit", UNWIND_UNITS, ids=_id)
def test_unwind_fixture_is_clean_when_errors_abort(unit: Path) -> None:
    """The unwind fixtures hold bugs on error paths only: with errors=abort nothing is left."""
    _skip_without_headers(unit)
    result = _analyze(unit, "abort")
    found = [_describe(f) for f in merge_findings(list(result.findings))]
    assert not found, "errors=abort should drop every error path:\n" + "\n".join(found)


def _language_args(path: Path) -> list[str]:
    if path.suffix == ".cu":
        return ["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib"]
    if path.suffix in (".cpp", ".cc"):
        return ["-x", "c++", "-std=c++17"]
    return ["-x", "c", "-std=gnu11"]


_DEFINITION_KINDS = {
    ci.CursorKind.FUNCTION_DECL, ci.CursorKind.CXX_METHOD, ci.CursorKind.CONSTRUCTOR,
    ci.CursorKind.DESTRUCTOR, ci.CursorKind.FUNCTION_TEMPLATE, ci.CursorKind.CONVERSION_FUNCTION,
}


@functools.lru_cache(maxsize=None)
def _definitions(unit: Path) -> frozenset[tuple[Path, int, str, bool]]:
    """(file, line, name, returns a pointer) of every function defined in a fixture source of the unit.

    Parsed independently of the engine, so that a function the engine skipped is still counted.
    Error recovery keeps definitions even where CUDA names are unknown without a CUDA shim.
    A generic body yields one entry per instantiation (same line, different names).
    """
    args = [*_language_args(unit), "-I", str(INCLUDE), *_sources(unit)[0].options.clang_args]
    tu = ci.Index.create().parse(str(unit), args=args)
    ours = {s.path for s in _sources(unit)}
    out = set()
    for cursor in tu.cursor.walk_preorder():
        if cursor.kind in _DEFINITION_KINDS and cursor.is_definition() and cursor.location.file:
            path = Path(cursor.location.file.name).resolve()
            if path in ours:
                returns_pointer = cursor.result_type.kind == ci.TypeKind.POINTER
                out.add((path, cursor.location.line, cursor.spelling, returns_pointer))
    return frozenset(out)


def _all_sources() -> dict[Path, FixtureFile]:
    return {s.path: s for unit in UNITS for s in _sources(unit)}


def _regions(fixture: FixtureFile):
    """Each marker with the lines it covers: up to the next marker or the end of the file."""
    markers = fixture.markers
    for i, m in enumerate(markers):
        end = markers[i + 1].line - 1 if i + 1 < len(markers) else fixture.lines
        yield m, range(m.line, end + 1)


def _marker_problems(fixture: FixtureFile, defs: list[int]) -> list[str]:
    name = _rel(fixture.path)
    problems = []
    for marker, lines in _regions(fixture):
        where = f"{name}:{marker.line}"
        inside = [d for d in defs if d in lines]
        if len(inside) != 1:
            problems.append(f"{where}: marker covers {len(inside)} function definitions, want 1")
        expected = [e for e in fixture.expectations if e.line in lines]
        if marker.kind == "clean" and expected:
            listed = ", ".join(f"{e.line}:{e.rule}" for e in expected)
            problems.append(f"{where}: `clean` function has expectations {listed}")
        if marker.kind == "buggy" and not expected:
            problems.append(f"{where}: `buggy` function has no expectation")
    first = fixture.markers[0].line if fixture.markers else fixture.lines + 1
    problems += [f"{name}:{d}: function without a `// clean:` or `// buggy:` comment"
                 for d in defs if d < first]
    problems += [f"{name}:{e.comment_line}: expectation outside any marked function"
                 for e in fixture.expectations if e.line < first]
    return problems


def test_every_function_is_marked_and_markers_match_expectations() -> None:
    problems = []
    for unit in _parsable_units():
        defs_by_file: dict[Path, set[int]] = {}
        for path, line, _name, _ in _definitions(unit):
            defs_by_file.setdefault(path, set()).add(line)
        for fixture in _sources(unit):
            problems += _marker_problems(fixture, sorted(defs_by_file.get(fixture.path, set())))
    assert not problems, "\n".join(problems)


def test_suite_size_and_rule_coverage() -> None:
    sources = _all_sources()
    markers = [m for s in sources.values() for m in s.markers]
    clean = sum(m.kind == "clean" for m in markers)
    buggy = sum(m.kind == "buggy" for m in markers)
    assert clean + buggy >= MIN_FUNCTIONS, f"{clean + buggy} fixture functions, want >= {MIN_FUNCTIONS}"
    assert clean >= buggy, f"{clean} clean functions but {buggy} buggy ones: want at least as many clean"
    positives = Counter(e.rule for s in sources.values() for e in s.expectations)
    thin = {code: positives[code] for code in RULE_CODES if positives[code] < MIN_POSITIVES_PER_RULE}
    assert not thin, f"rules with fewer than {MIN_POSITIVES_PER_RULE} positive expectations: {thin}"
    unknown = set(positives) - set(RULE_CODES)
    assert not unknown, f"expectations name unknown rules: {sorted(unknown)}"


def test_engine_analyzes_every_defined_function() -> None:
    """No fixture function is silently skipped: a clean function the engine never looked at would
    pass test_fixture. (At least, not equal: the engine may also count functions its CUDA prelude
    or real CUDA headers define.)"""
    problems = []
    for unit in _parsable_units():
        result = _analyze(unit, _sources(unit)[0].options.errors)
        defined = len(_definitions(unit))  # one per instantiation of generic code
        if result.functions < defined:
            problems.append(f"{_id(unit)}: engine analyzed {result.functions} functions, "
                            f"the unit defines {defined}")
    assert not problems, "\n".join(problems)


# Fixture functions whose own name gives them a role on purpose.
INTENTIONAL_ROLES = {"FixtureBox_free": "release", "THRealloc": "reallocate",
                     "fixture_lua_FloatTensor_retain": "retain",
                     # glib_pattern_bodies.c: releasers by name, whose bodies say which parameters.
                     "verify_and_free": "release", "pair_free": "release",
                     # vtable_slots.c: releasers by name, stored into a dispose field.
                     "obj_free": "release", "quiet_obj_free": "release",
                     # glib_free_contents.c: a `*_free` whose body frees only what its parameter
                     # holds, beside real ones.
                     "fixture_item_free": "release", "fixture_discovery_free": "release",
                     "fixture_agent_free": "release",
                     # glib_callback_protocol.c: libportal's `access_camera_call_free`.
                     "fixture_portal_call_free": "release",
                     # glib_callback_to_itself.c, glib_forwarded_notify.c: the data's destructors.
                     "fixture_reader_free": "release", "fixture_query_free": "release",
                     # glib_notify_fields.c: task data destructors, the notify whose body is read.
                     "fixture_task_data_free": "release", "fixture_owned_data_free": "release",
                     "fixture_cleared_data_free": "release", "fixture_slice_data_free": "release",
                     # glib_local_queue.c: gupnp's notify_data_free, handed each popped element.
                     "fixture_notify_free": "release",
                     # glib_libxml2_tree_insert.c: phodav's node constructor (an `xmlNodePtr`).
                     "status_node_new": "acquire",
                     # glib_key_in_value.c, glib_notify_pair_setter.c: the values' destroy notifies.
                     "attribute_free": "release", "credential_free": "release",
                     # glib_async_constructor_data.c: gdbus-codegen's `*_proxy_new_for_bus`, an
                     # acquirer by its name on purpose (the store its record gives the data).
                     "fixture_thing_proxy_new_for_bus": "acquire"}


def test_fixture_names_take_no_role_by_accident() -> None:
    """`fixture_double_free` would be a release function by its name, owning its parameters:
    a fixture must not change meaning because of what it is called."""
    conventions = Conventions()
    problems = []
    for unit in _parsable_units():
        for path, line, name, returns_pointer in sorted(_definitions(unit)):
            role = conventions.classify(name)
            if role is None or INTENTIONAL_ROLES.get(name) == role:
                continue
            if role == "acquire" and returns_pointer:
                continue
            problems.append(f"{_rel(path)}:{line}: {name} is classified {role!r} by its name")
    assert not problems, "\n".join(problems)


_COMPILERS = {".c": ["gcc", "-std=gnu11", "-fsyntax-only"],
              ".cc": ["g++", "-std=c++17", "-fsyntax-only"],
              ".cpp": ["g++", "-std=c++17", "-fsyntax-only"],
              # nvcc has no syntax-only mode; it compiles host and device code with the real
              # CUDA headers, the other half of "parseable with and without them".
              ".cu": ["nvcc", "-std=c++17", "-c"]}


@pytest.mark.parametrize("unit", UNITS, ids=_id)
def test_fixture_compiles(unit: Path, tmp_path: Path) -> None:
    """The fixtures are real code: gcc, g++ or nvcc accepts them."""
    _skip_without_headers(unit)
    compiler, *flags = _COMPILERS[unit.suffix]
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed")
    out = ["-o", str(tmp_path / "unit.o")] if "-c" in flags else []
    cmd = [compiler, *flags, *out, "-I", str(INCLUDE), *_sources(unit)[0].options.clang_args, str(unit)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout}{proc.stderr}"


def test_expectation_parser_rejects_typos(tmp_path: Path) -> None:
    """A misspelt annotation must fail loudly, not silently expect nothing."""
    for bad in ("x(); // expect RC001", "x(); // expect: RC01", "x(); // expect:",
                "x(); // expect@+9: RC001", "x(); // expect-instantiations: 2"):
        path = tmp_path / "bad.c"
        path.write_text(f"void f(void) {{\n{bad}\n}}\n")
        with pytest.raises(FixtureSyntaxError):
            parse_fixture(path)
    path = tmp_path / "opts.c"
    path.write_text("// fixture-options: errors=sometimes\n")
    with pytest.raises(FixtureSyntaxError):
        parse_fixture(path)


def test_expectation_parser_reads_every_form(tmp_path: Path) -> None:
    path = tmp_path / "good.c"
    path.write_text(
        "// fixture-options: errors=unwind args=-DFOO=1,-DBAR allow-errors\n"
        "// clean: f\n"
        "int f(void) {\n"
        "  g(); // expect: RC001 RC001 RC007\n"
        "  // expect@+1: RC003\n"
        "  h();\n"
        "  return 0; // expect@-2: RC006 // expect-instantiations: 2\n"
        "}\n")
    fixture = parse_fixture(path)
    assert fixture.options.errors == "unwind"
    assert fixture.options.clang_args == ["-DFOO=1", "-DBAR"]
    assert fixture.options.allow_errors
    got = sorted((e.line, e.rule, e.instantiations) for e in fixture.expectations)
    assert got == [(4, "RC001", None), (4, "RC001", None), (4, "RC007", None),
                   (5, "RC006", 2), (6, "RC003", None)]
    assert [(m.line, m.kind) for m in fixture.markers] == [(2, "clean")]
