"""Plain data passed between the stages: locations, findings, tool errors, unit results."""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True, order=True)
class Location:
    file: str
    line: int
    column: int


@dataclass(frozen=True)
class Step:
    """One note on the path that leads to a finding."""

    location: Location
    message: str
    # False for a branch whose condition mentions no variable that held the reported reference
    # (`n > 0 ? a : b` in an argument list): shown only with --full-path.
    bears: bool = True


def bearing_path(path: list[Step]) -> list[Step]:
    """The steps that bear on the reported reference: the default view of a path."""
    return [s for s in path if s.bears]


@dataclass(frozen=True)
class Extent:
    """Where one function definition lies (1-based lines of one file): its first token, the
    `{` that opens its body and the `}` that closes it, as the parse saw them."""

    file: str
    first: int
    body: int
    last: int


@dataclass(frozen=True)
class Comment:
    """A comment that mentions refcheck, as the parse lexed it: what suppressions read."""

    location: Location
    text: str


@dataclass(frozen=True)
class StatementText:
    """The normalised text of the statements a finding's fingerprint hashes, read from the bytes
    the parse read (`findings.source.statement_text`); None where it could not be read."""

    primary: str | None
    origin: str | None  # "" for a finding without an acquisition


@dataclass(frozen=True)
class Finding:
    """One broken rule, immutable once made: later stages derive new ones (`dataclasses.replace`)."""

    rule: str  # "RC001"
    name: str  # "leak"
    location: Location  # primary location: where the rule is broken
    function: str
    message: str
    path: tuple[Step, ...] = ()
    instantiations: tuple[str, ...] = ()
    # Where the reference involved was acquired (None for rules with no acquisition).
    origin: Location | None = None
    # Carried from the unit's parse for the stages after it (reporters, baselines), so that they
    # need not re-read the source: the statements' text and the enclosing definition's extent.
    # None on a finding made elsewhere (by hand, in a test): readers fall back to the source.
    statements: StatementText | None = None
    extent: Extent | None = None

    def __post_init__(self) -> None:
        # Callers may pass lists; the finding keeps tuples, so that nothing can change it.
        if type(self.path) is not tuple:
            object.__setattr__(self, "path", tuple(self.path))
        if type(self.instantiations) is not tuple:
            object.__setattr__(self, "instantiations", tuple(self.instantiations))

    def key(self) -> tuple:
        """Identity across generic instantiations: the same rule broken at the same source place."""
        return (self.location, self.rule, self.origin)

    def sort_key(self) -> tuple:
        return (self.location.file, self.location.line, self.location.column, self.rule, self.message)


@dataclass(frozen=True, order=True)
class ToolError:
    file: str
    message: str
    line: int = 0
    column: int = 0
    # "error": the unit or function was not (fully) checked; "warning": checked, but something is off.
    severity: str = "error"
    # The one flag or configuration line most likely to fix it ("" when none is known), so that a
    # first run on a real project says what to do rather than only what went wrong.
    hint: str = ""


@dataclass
class UnitResult:
    """Everything refcheck learned from one translation unit."""

    file: str
    findings: list[Finding] = field(default_factory=list)
    errors: list[ToolError] = field(default_factory=list)
    functions: int = 0
    # Every file the unit read (the unit itself and its includes), for cache keys.
    includes: list[str] = field(default_factory=list)
    # Seconds per stage: parse, cfg, analysis.
    timings: dict[str, float] = field(default_factory=dict)
    # Functions by what checking them took: analysed, shared (an identical instantiation's
    # analysis), skipped (nothing in them can produce a finding).
    counts: dict[str, int] = field(default_factory=dict)
    # Warnings for stderr that are not part of the result (the per-function cache's trouble).
    notes: list[str] = field(default_factory=list)
    # Summaries inferred for the unit's externally visible functions (name -> summary.Summary),
    # and (name, digest) of every summary of another unit's function its check asked for
    # ("-": none known): the run re-checks the unit when the run's table disagrees.
    exports: dict = field(default_factory=dict)
    imported: tuple = ()
    # The comments in the unit's files that mention refcheck (suppressions), and the extents of
    # the definitions in the files that have such a comment (`ignore-function` needs them).
    comments: tuple[Comment, ...] = ()
    definitions: tuple[Extent, ...] = ()
    # The checks of the unit's definitions (driver.repeats.Earlier), for phase 2 to repeat
    # where the run's table changes none of the records one asked: neither cached nor reported.
    checks: object = None


def merge_findings(findings: list[Finding]) -> list[Finding]:
    """One finding per source place: a generic/*.c body compiled for Float and Double is one defect.

    The first finding (in sort order) is kept; the function names of all copies become its
    instantiations.
    """
    first: dict[tuple, Finding] = {}
    names: dict[tuple, list[str]] = {}
    for f in sorted(findings, key=lambda f: (f.sort_key(), f.function)):
        k = f.key()
        first.setdefault(k, f)
        kept = names.setdefault(k, [])
        for name in f.instantiations or (f.function,):
            if name not in kept:
                kept.append(name)
    out = [replace(f, instantiations=tuple(sorted(names[k]))) for k, f in first.items()]
    out.sort(key=Finding.sort_key)
    return out


@dataclass
class RunResult:
    """A whole run, as reporters see it: findings merged and sorted, errors sorted."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[ToolError] = field(default_factory=list)
    files: int = 0
    functions: int = 0
    seconds: float = 0.0
    # Seconds per stage summed over units (parse, cfg, analysis, report), for --statistics.
    timings: dict[str, float] = field(default_factory=dict)
    # Project root: reporters print paths relative to it (SARIF's %SRCROOT%).
    root: str = "."
