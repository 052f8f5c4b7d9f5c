"""Longer differential runs than the test suite affords: python -m tests.differential --n 2000

Generates functions with a seeded hypothesis run, checks them in batches, groups disagreements
by class (which rules refcheck misses or adds) and prints one minimized example per class.
Exit status 1 when refcheck disagrees with the oracle or reports a tool error, else 0.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
import tempfile
import time

import click
from hypothesis import HealthCheck, Phase, given, seed, settings

from .compare import Disagreement, alone, check_batch, disagreement_class, shrink, unexpected_errors
from .generate import BIG, CORE, FULL, LOOPS, SIZES, SWITCHES, UNWIND, batches

PROFILES = {p.name: p for p in (CORE, FULL, UNWIND, SIZES, BIG, LOOPS, SWITCHES)}


@click.command()
@click.option("--n", "count", default=2000, show_default=True, type=click.IntRange(1),
              help="How many functions to generate.")
@click.option("--seed", "seed_value", default=0, show_default=True, type=int,
              help="Seed of the generation; the same seed gives the same functions.")
@click.option("--batch", default=40, show_default=True, type=click.IntRange(1, 500),
              help="Functions per parsed file.")
@click.option("--profile", "profile_name", default="full", show_default=True,
              type=click.Choice(sorted(PROFILES)),
              help="Statement kinds to use; 'loops' is checked for clean termination only.")
def main(count: int, seed_value: int, batch: int, profile_name: str) -> None:
    profile = PROFILES[profile_name]
    compare = not profile.loops
    classes: dict[frozenset, list[Disagreement]] = {}
    errors: list[str] = []
    crashes: list[str] = []
    checked = 0
    started = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="refcheck-differential-")

    @seed(seed_value)
    @settings(max_examples=math.ceil(count / batch), database=None, deadline=None,
              phases=(Phase.generate,), suppress_health_check=list(HealthCheck))
    @given(batches(profile, batch, batch))
    def explore(functions):
        nonlocal checked
        try:
            result = check_batch(functions, workdir, compare=compare, unwind=profile.unwind)
        except Exception as e:  # refcheck crashing is a finding too: keep the file, go on
            kept = os.path.join(workdir, f"crash{len(crashes)}.c")
            shutil.copy(os.path.join(workdir, "unit.c"), kept)
            crashes.append(f"{kept}: {type(e).__name__}: {e}")
            return
        checked += len(functions)
        bad = result.errors if compare else unexpected_errors(result.errors)
        errors.extend(f"{e.line}: {e.message}" for e in bad)
        for d in result.disagreements:
            classes.setdefault(disagreement_class(d), []).append(d)

    explore()
    seconds = time.monotonic() - started
    disagreeing = sum(len(v) for v in classes.values())
    click.echo(f"{checked} functions ({profile.name}), seed {seed_value}, {seconds:.1f} s: "
               f"{disagreeing} disagree in {len(classes)} classes, {len(errors)} tool errors, "
               f"{len(crashes)} crashed batches")
    for c in crashes[:5]:
        click.echo(f"  crash: {c}")
    for e in errors[:20]:
        click.echo(f"  tool error: {e}")
    for why, found in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        names = "refcheck " + ", ".join(f"{k} {rule}" for k, rule in sorted(why))
        small = alone(shrink(found[0], workdir), workdir)
        click.echo(f"\n== {len(found)} functions, {names}; minimized:\n{small.describe()}")
    click.echo(f"(files of the last batch: {workdir})")
    sys.exit(1 if classes or errors or crashes else 0)


if __name__ == "__main__":
    main()
