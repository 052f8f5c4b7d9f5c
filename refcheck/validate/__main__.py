"""`python -m refcheck.validate`: the mutation harness.

Exit codes: 0 every mutant detected statically and no false negative, 1 some were missed,
2 usage or setup errors, 130 interrupted.
"""

from __future__ import annotations

import shlex
import sys

import click

from refcheck.validate.sites import KINDS


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--root", type=click.Path(file_okay=False), default=".", show_default=True,
              help="The folder holding runtime/ (and tests/runtime/).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write the JSON report here.")
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False),
              help="Write the Markdown report here (docs/validation.md for a full run).")
@click.option("--sample", type=click.IntRange(min=1), help="Check a random subset of this many mutants.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for --sample.")
@click.option("--kinds", default=",".join(KINDS), show_default=True,
              help="Comma-separated mutation kinds.")
@click.option("--under", metavar="PATH",
              help="Only mutants in files under PATH, relative to --root (e.g. runtime/THC).")
@click.option("--static-only", is_flag=True, help="Skip the dynamic check (build and tests).")
@click.option("--dynamic-sample", type=click.IntRange(min=1),
              help="Run the dynamic check on a random subset of this many mutants (same seed).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes for the static check.")
@click.option("--diagnosis", "diagnosis_path", type=click.Path(exists=True, dir_okay=False),
              help="Markdown explaining the disagreements, included in the report as written.")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
def main(root, json_path, markdown_path, sample, seed, kinds, under, static_only, jobs, dynamic_sample, diagnosis_path, quiet):
    """Break the runtime's ownership rules one at a time and check that refcheck notices."""
    from refcheck.validate import harness, report

    options = harness.Options(
        root=root, kinds=[k.strip() for k in kinds.split(",") if k.strip()], sample=sample, seed=seed,
        static_only=static_only, jobs=jobs, dynamic_sample=dynamic_sample, under=under,
        command="python -m refcheck.validate " + shlex.join(sys.argv[1:]))
    progress = None if quiet else (lambda line: click.echo(line, err=True))
    try:
        result = harness.run(options, progress)
        if diagnosis_path:
            with open(diagnosis_path, encoding="utf-8") as f:
                result["diagnosis"] = f.read()
        if json_path:
            report.write_json(json_path, result)
        if markdown_path:
            report.write_markdown(markdown_path, result)
    except harness.ValidateError as e:
        click.echo(f"refcheck validate: error: {e}", err=True)
        sys.exit(2)
    except OSError as e:
        click.echo(f"refcheck validate: error: {e.filename or ''}: {e.strerror or e}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("refcheck validate: interrupted", err=True)
        sys.exit(130)
    s = result["summary"]
    click.echo(f"{s['mutants']} mutants: {s['static_detected']} detected statically; dynamic: "
               f"{s['dynamic_confirmed']} confirmed of {s['dynamic_reached']} reached"
               + (f" ({s['dynamic_note']})" if s.get("dynamic_note") else ""))
    for i in s["false_negatives"]:
        click.echo(f"false negative: {i}")
    for i in s["static_misses"]:
        if i not in s["false_negatives"]:
            click.echo(f"missed: {i}")
    sys.exit(0 if not s["static_misses"] else 1)


if __name__ == "__main__":
    main(prog_name="python -m refcheck.validate")
