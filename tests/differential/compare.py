"""Run refcheck and the oracle on the same generated functions, and minimize what they dispute.

Many functions go into one file so that one libclang parse serves them all; findings are told
apart by the function they are reported in.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from dataclasses import dataclass

from refcheck.conventions import Conventions
from refcheck.driver.engine import Settings, check_unit
from refcheck.findings import ToolError, merge_findings

from .oracle import Verdict, verdicts
from .program import (
    HEADER, HEADER_TEXT, Acquire, Discard, Function, Goto, If, Label, Layout, NullCheck, Return,
    children, emit_function, emit_unit,
)

# The one tool error a generated function may cause: the per-function bound (loops only).
BOUND_MESSAGE = "not fully checked"


@dataclass
class Disagreement:
    function: Function
    oracle: set[Verdict]
    refcheck: set[Verdict]
    layout: Layout
    unwind: bool = False

    @property
    def missing(self) -> set[Verdict]:
        """What semantics.md says is there and refcheck did not report."""
        return self.oracle - self.refcheck

    @property
    def extra(self) -> set[Verdict]:
        return self.refcheck - self.oracle

    def signature(self) -> frozenset:
        """The class of a disagreement: which rules refcheck misses or adds."""
        return frozenset({("missing", v[0]) for v in self.missing}
                         | {("extra", v[0]) for v in self.extra})

    def describe(self) -> str:
        text, _ = emit_function(self.function, 1)
        numbered = "\n".join(f"{i:3}  {line}" for i, line in enumerate(text, 1) if line)
        first = self.layout.first - 1  # show lines relative to the function, as printed

        def show(vs: set[Verdict]) -> str:
            def one(v: Verdict) -> str:
                return f"{v[0]}@{v[1] - first}" + (f"(from {v[2] - first})" if len(v) > 2 else "")
            return ", ".join(one(v) for v in sorted(vs, key=lambda v: (v[1], len(v), v)))\
                or "nothing"

        mode = "  (errors=unwind)\n" if self.unwind else ""
        return (f"{numbered}\n{mode}"
                f"  oracle:   {show(self.oracle)}\n  refcheck: {show(self.refcheck)}\n"
                f"  missing:  {show(self.missing)}\n  extra:    {show(self.extra)}")


@dataclass
class BatchResult:
    disagreements: list[Disagreement]
    errors: list[ToolError]
    functions: int  # as refcheck counted them


def write_unit(functions: list[Function], directory: str, name: str = "unit.c"):
    text, layouts = emit_unit(functions)
    with open(os.path.join(directory, HEADER), "w") as f:
        f.write(HEADER_TEXT)
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path, layouts


def acquisition_lines(layout: Layout, body: tuple) -> set[int]:
    """Lines of the statements that acquire, the origins a leak or overwrite may name."""
    found: set[int] = set()

    def visit(stmts: tuple, path: tuple) -> None:
        for i, s in enumerate(stmts):
            if isinstance(s, (Acquire, Discard)):
                found.add(layout.lines[path + (i,)])
            for key, sub in children(s):
                visit(sub, path + (i, key))

    visit(body, ())
    return found


def run_refcheck(path: str, directory: str, unwind: bool = False):
    settings = Settings(clang_args=["-I", directory], root=directory,
                        conventions=Conventions(errors="unwind" if unwind else "abort"))
    result = check_unit(path, settings)
    found: dict[str, set[Verdict]] = {}
    for f in merge_findings(result.findings):
        for name in f.instantiations or [f.function]:
            found.setdefault(name, set()).add((f.rule, f.location.line))
            if f.rule in ("RC001", "RC007") and f.origin is not None:
                found[name].add((f.rule, f.location.line, f.origin.line))
    return found, result


def check_batch(functions: list[Function], directory: str, compare: bool = True,
                unwind: bool = False) -> BatchResult:
    path, layouts = write_unit(functions, directory)
    found, result = run_refcheck(path, directory, unwind)
    out = []
    if compare:
        for fn, layout in zip(functions, layouts):
            expected = verdicts(fn, layout, unwind)
            # Only origins that are acquisitions: which retain a parameter's leak is charged to
            # is not something semantics.md settles.
            acquired = acquisition_lines(layout, fn.body)
            got = {v for v in found.get(fn.name, set()) if len(v) == 2 or v[2] in acquired}
            if expected != got:
                out.append(Disagreement(fn, expected, got, layout, unwind))
    return BatchResult(out, list(result.errors), result.functions)


def unexpected_errors(errors: list[ToolError]) -> list[ToolError]:
    return [e for e in errors if BOUND_MESSAGE not in e.message]


# -- minimizing ------------------------------------------------------------------------------

def _targets(body: tuple) -> set[int]:
    found: set[int] = set()
    for s in body:
        if isinstance(s, Goto):
            found.add(s.label)
        elif isinstance(s, If):
            found |= _targets(s.then) | _targets(s.orelse or ())
    return found


def _smaller_bodies(body: tuple, top: bool, returns: str):
    """Each body one simplification away: a statement gone, a branch spliced in, an else gone."""
    targets = _targets(body) if top else set()
    for i, s in enumerate(body):
        last_return = top and i == len(body) - 1 and returns != "void"
        if not last_return and not (isinstance(s, Label) and s.label in targets):
            yield body[:i] + body[i + 1:]
        if isinstance(s, If):
            for branch in (s.then, s.orelse or ()):
                yield body[:i] + branch + body[i + 1:]
            if s.orelse is not None:
                yield body[:i] + (dataclasses.replace(s, orelse=None),) + body[i + 1:]
            for sub in _smaller_bodies(s.then, False, returns):
                yield body[:i] + (dataclasses.replace(s, then=sub),) + body[i + 1:]
            if s.orelse is not None:
                for sub in _smaller_bodies(s.orelse, False, returns):
                    yield body[:i] + (dataclasses.replace(s, orelse=sub),) + body[i + 1:]
        if isinstance(s, Acquire) and (s.checked is not None or s.arg != "p"):
            yield body[:i] + (Acquire(s.var),) + body[i + 1:]
        if isinstance(s, Discard) and (s.into_call or s.tested is not None):
            yield body[:i] + (Discard(),) + body[i + 1:]
        if isinstance(s, NullCheck) and s.ret.value not in (None, "NULL", "0"):
            yield body[:i] + (NullCheck(s.target, Return("NULL")),) + body[i + 1:]
        if isinstance(s, Return) and s.value not in (None, "NULL", "0"):
            yield body[:i] + (Return("NULL"),) + body[i + 1:]


def _valid(body: tuple) -> bool:
    """Splicing branches can move a goto to after its label; keep gotos forward-only."""
    seen: set[int] = set()
    for s in body:
        if isinstance(s, Label):
            seen.add(s.label)
        elif _targets((s,)) & seen:
            return False
    return True


def disagreement_class(d: Disagreement) -> tuple:
    """Which rules refcheck misses or adds: disagreements of one class have one cause, mostly."""
    return d.signature()


def shrink(d: Disagreement, directory: str, rounds: int = 60,
           key=disagreement_class) -> Disagreement:
    """Greedy minimization that keeps `key` of the disagreement (by default its class).

    Every candidate of one round goes into a single file, so a round costs one parse.
    """
    want = key(d)
    prefix = "newThing" if d.function.acquire_named else "makeThing"
    for _ in range(rounds):
        fn = d.function
        bodies = [b for b in _smaller_bodies(fn.body, True, fn.returns) if _valid(b)]
        if not bodies:
            return d
        candidates = [Function(f"{prefix}{k}", fn.returns, b) for k, b in enumerate(bodies)]
        result = check_batch(candidates, directory, unwind=d.unwind)
        better = [x for x in result.disagreements if key(x) == want]
        if not better:
            return d
        d = better[0]
    return d


def alone(d: Disagreement, directory: str) -> Disagreement:
    """The disagreement re-checked as the only function of its file, renamed to newThing/makeThing
    without a number, so its printed lines are the ones a reader would paste."""
    fn = dataclasses.replace(d.function,
                             name="newThing" if d.function.acquire_named else "makeThing")
    result = check_batch([fn], directory, unwind=d.unwind)
    return result.disagreements[0] if result.disagreements else d
