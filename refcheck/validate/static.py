"""The static witness: refcheck's engine run on the unit that compiles the mutated function.

Detected means the mutant makes the expected rule fire in the mutated function (or one of its
instantiations) more often than it does in the unmutated runtime, so a finding that was there
before cannot pass for the mutant's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from refcheck.conventions import Conventions
from refcheck.model import UnitResult
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


class StaticChecker:
    """Owns a private copy of the runtime; mutants are written into it and undone after."""

    def __init__(self, original: Runtime, workdir: str, conventions: Conventions | None = None):
        from refcheck.validate.layout import copy_tree

        self.original = original
        self.tree = copy_tree(original, workdir)
        self.conventions = conventions or Conventions()
        self.baseline: dict[str, UnitResult] = {}
        self.unit_of: dict[str, str] = {}
        for unit in self.tree.units():
            rel = self.tree.relative(unit)
            self.baseline[rel] = result = self._check(rel)
            for inc in [rel, *result.includes]:
                self.unit_of.setdefault(inc.replace(os.sep, "/"), rel)
        # A unit is the first home of its own file, whatever includes it earlier.
        for rel in self.baseline:
            self.unit_of[rel] = rel

    def _check(self, unit: str) -> UnitResult:
        from refcheck.engine import Settings, check_unit

        settings = Settings(conventions=self.conventions, clang_args=self.tree.clang_args(), root=self.tree.root)
        return check_unit(self.tree.path(unit), settings)

    def originals(self, mutant: Mutant) -> dict[str, bytes]:
        out = {}
        for name in mutant.files():
            with open(self.original.path(name), "rb") as f:
                out[name] = f.read()
        return out

    def check(self, mutant: Mutant, sources: dict[str, bytes]) -> StaticResult:
        unit = self.unit_of.get(mutant.file)
        if unit is None:
            return StaticResult(False, [], "", [f"no unit of the runtime includes {mutant.file}"])
        mutated = mutant.apply(sources)
        try:
            for name, data in mutated.items():
                with open(self.tree.path(name), "wb") as f:
                    f.write(data)
            result = self._check(unit)
        finally:
            for name in mutated:
                with open(self.tree.path(name), "wb") as f:
                    f.write(sources[name])
        names = set(mutant.instantiations)
        expected = set(mutant.expected)
        before = sum(1 for f in self.baseline[unit].findings if f.rule in expected and _in_function(f, names))
        after = sum(1 for f in result.findings if f.rule in expected and _in_function(f, names))
        known = {(e.file, e.message) for e in self.baseline[unit].errors}
        errors = [f"{e.file}:{e.line}: {e.message}" for e in result.errors
                  if e.severity == "error" and (e.file, e.message) not in known]
        rules = sorted({f.rule for f in result.findings if _in_function(f, names)})
        return StaticResult(after > before, rules, unit, errors)
