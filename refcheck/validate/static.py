"""The static witness: refcheck's engine run on the unit that compiles the mutated function.

Detected means the mutant makes the expected rule fire in the mutated function (or one of its
instantiations) more often than it does in the unmutated runtime, so a finding that was there
before cannot pass for the mutant's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from refcheck.conventions import Conventions
from refcheck.findings import UnitResult
from refcheck.validate.layout import Runtime
from refcheck.validate.mutants import Mutant


@dataclass
class StaticResult:
    detected: bool
    rules_reported: list[str]  # every rule reported in the mutated function
    unit: str
    errors: list[str] = field(default_factory=list)  # tool errors the mutant caused


def _in_function(finding, names: set[str]) -> bool:
    return finding.function in names or bool(names.intersection(finding.instantiations))


def check_functions(path: str, settings, names: set[str]) -> UnitResult:
    """`engine.check_unit`, restricted to the functions named.

    A mutant changes one function; the engine's other functions would come out as in the
    baseline, so only the mutated one is re-checked.
    """
    from dataclasses import replace

    from refcheck.driver import engine
    return engine.check_unit(path, replace(settings, only_functions=frozenset(names)))


class StaticChecker:
    """Owns a private copy of the runtime; mutants are written into it and undone after."""

    def __init__(self, original: Runtime, workdir: str, unit_of: dict[str, str],
                 conventions: Conventions | None = None):
        from refcheck.validate.layout import copy_tree

        self.original = original
        self.tree = copy_tree(original, workdir)
        self.conventions = conventions or Conventions()
        self.unit_of = unit_of
        self.baseline: dict[tuple, UnitResult] = {}

    def _settings(self):
        from refcheck.driver.engine import Settings

        return Settings(conventions=self.conventions, clang_args=self.tree.clang_args(), root=self.tree.root)

    def _baseline(self, unit: str, names: set[str]) -> UnitResult:
        key = (unit, frozenset(names))
        if key not in self.baseline:
            self.baseline[key] = check_functions(self.tree.path(unit), self._settings(), names)
        return self.baseline[key]

    def check(self, mutant: Mutant, sources: dict[str, bytes], original_names: set[str]) -> StaticResult:
        unit = self.unit_of.get(mutant.file)
        if unit is None:
            return StaticResult(False, [], "", [f"no unit of the runtime includes {mutant.file}"])
        names = set(mutant.instantiations)
        base = self._baseline(unit, original_names)
        mutated = mutant.apply(sources)
        try:
            for name, data in mutated.items():
                with open(self.tree.path(name), "wb") as f:
                    f.write(data)
            result = check_functions(self.tree.path(unit), self._settings(), names)
        finally:
            for name in mutated:
                with open(self.tree.path(name), "wb") as f:
                    f.write(sources[name])
        expected = set(mutant.expected)
        before = sum(1 for f in base.findings if f.rule in expected)
        after = sum(1 for f in result.findings if f.rule in expected and _in_function(f, names))
        known = {(e.file, e.line) for e in base.errors}
        errors = [f"{e.file}:{e.line}: {e.message}" for e in result.errors
                  if e.severity == "error" and (e.file, e.line) not in known]
        rules = sorted({f.rule for f in result.findings if _in_function(f, names)})
        return StaticResult(after > before, rules, unit, errors)

