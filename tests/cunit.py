"""One helper for the tests that write C, parse it, build its graphs and check it.

`CUnit(directory)` (the `c_unit` fixture, on a test's tmp_path) writes sources there and checks
them with that directory as the project root; `parse_unit`, `graphs` and `check` do the same
for a source anywhere (the fixtures). Every stage is the one the engine runs, with the
conventions and clang arguments given, so a test states only what it is about.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from refcheck.conventions import Conventions


def parse_unit(path, clang_args=(), clean: bool = False, **options):
    """The frontend's parse of `path`; `clean`: the parse must report no error."""
    from refcheck.frontend.unit import parse

    parsed = parse(str(path), list(clang_args), **options)
    if clean:
        assert not parsed.errors, parsed.errors
    return parsed


def graphs(path, conv: Conventions | None = None, clang_args=(), relevant: bool = False) -> dict:
    """Each definition's graph by name (`relevant`: None for one that cannot produce a finding)."""
    return graphs_of(parse_unit(path, clang_args), conv, relevant)


def graphs_of(parsed, conv: Conventions | None = None, relevant: bool = False) -> dict:
    from refcheck.frontend.builder import build_cfg, build_cfg_if_relevant

    build = build_cfg_if_relevant if relevant else build_cfg
    conv = conv or Conventions()
    return {fn.spelling: build(fn, conv) for fn in parsed.functions}


def check(path, conventions: Conventions | None = None, clang_args=(), root=None, errors: str | None = None,
          **settings):
    """The engine's check of one unit (root: the unit's directory unless given)."""
    from refcheck.driver.engine import Settings, check_unit

    conv = conventions or Conventions()
    if errors is not None:
        conv = replace(conv, errors=errors)
    root = str(root if root is not None else Path(path).parent)
    return check_unit(str(path), Settings(conventions=conv, clang_args=list(clang_args), root=root, **settings))


REPO = Path(__file__).resolve().parent.parent
# Per-function wall-clock limit for tests that compare two runs or check expectations: only the
# state bound may cut a function there, so a loaded machine cannot change what a test sees.
UNTIMED = float("inf")
FIXTURES = REPO / "fixtures"
INCLUDE = FIXTURES / "include"


def fixture_args(unit: Path) -> list[str]:
    """The clang arguments a fixture unit is checked with: the shared include/ and its own."""
    from fixture_expect import unit_sources

    return ["-I", str(INCLUDE), *unit_sources(unit, FIXTURES, [INCLUDE])[0].options.clang_args]


def fixture_parses(errors: str | None = None):
    """(unit, its options, its parse) for every fixture unit (`errors`: only those in that mode)."""
    from fixture_expect import find_units, unit_sources

    for unit in find_units(FIXTURES):
        options = unit_sources(unit, FIXTURES, [INCLUDE])[0].options
        if errors is None or options.errors == errors:
            yield unit, options, parse_unit(unit, ["-I", str(INCLUDE), *options.clang_args])


def rule_lines(result) -> list[tuple[str, int]]:
    return [(f.rule, f.location.line) for f in result.findings]


class CUnit:
    """Sources written into one directory, which is the root of their checks."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def write(self, name: str, text: str) -> Path:
        path = self.directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def parse(self, name_or_text: str, clang_args=(), clean: bool = False, name: str | None = None, **options):
        """Parses a file written before (by name) or, with `name`, the text given written there."""
        path = self.write(name, name_or_text) if name is not None else self.directory / name_or_text
        return parse_unit(path, clang_args, clean, **options)

    def cfg(self, text: str, function: str = "f", name: str = "u.c", conv: Conventions | None = None,
            clang_args=()):
        """Writes `text`, parses it cleanly and builds `function`'s graph."""
        from refcheck.frontend.builder import build_cfg

        parsed = self.parse(text, clang_args, clean=True, name=name)
        fn = next(f for f in parsed.functions if f.spelling == function)
        return build_cfg(fn, conv or Conventions())

    def graphs(self, name: str, conv: Conventions | None = None, clang_args=(), relevant: bool = False) -> dict:
        return graphs(self.directory / name, conv, clang_args, relevant)

    def check(self, name: str, conventions: Conventions | None = None, clang_args=(), **settings):
        """Checks a file written before, with this directory as the root."""
        return check(self.directory / name, conventions, clang_args, root=self.directory, **settings)

    def check_text(self, text: str, name: str = "u.c", conventions: Conventions | None = None, clang_args=(),
                   **settings):
        self.write(name, text)
        return self.check(name, conventions, clang_args, **settings)
