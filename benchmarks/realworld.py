"""Runs refcheck over the real-world corpora that benchmarks/corpora/*.toml describe.

A spec names each project's source (`github:owner/name`), its commit, the Debian packages and
build steps it needs, and what to check (a compile database, or unit globs with flags); third-party
source is never committed. The runner lays out any missing tree from a local git mirror, builds
once, runs `python -m refcheck check` from the checkout given (and `benchmarks/floor.py` with
--floor), writes one results JSON per project, and scores the findings against the batch's
verdicts file where there is one.

    python benchmarks/realworld.py benchmarks/corpora/cpy22.toml --trees /tmp/corpora \\
        --checkout /tmp/msnapR --out /tmp/corpora/results/R [--floor] [--only ijson,pycups]
    python benchmarks/realworld.py --compare /tmp/corpora/results/R /tmp/corpora/results/B
    python benchmarks/realworld.py benchmarks/corpora/cpy22.toml --score /tmp/corpora/results/R

Times: each run compiles refcheck's modules from source (PYTHONDONTWRITEBYTECODE=1), which on a
small unit is most of its stages; `--bytecode DIR` runs from bytecode compiled once, as an
installed refcheck does (each result says which under `bytecode`).

A spec: `batch`, `preset`, and per [[project]] `name`, `source` (github:owner/name), `commit`, and
`units` (globs in the tree) or `compile_commands` (a database folder; with `units` too, only
those paths of it); optional `apt`, `build` (shell steps run once in the tree), `flags` (clang
arguments; `{python_include}`, `{numpy_include}` expand), `errors`, `tree` (a folder shared by
extensions of one project), `overlays` (a submodule: path, source, commit) and `config` (more
[tool.refcheck] keys). Verdicts: BATCH.verdicts.tsv beside the spec, tab-separated `project file
line rule function true|false why`. `--rebuild` reruns the build steps in the existing tree
(delete a meson build folder first: `meson setup` refuses a configured one).
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import resource
import subprocess
import sys
import sysconfig
import tomllib
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bytecode  # noqa: E402
from realworld_results import (  # noqa: E402
    SpecError, compare, load_results, parse_verdicts, print_compare, print_scores,
    totals_line)

PRESETS = ("cpython", "glib", "th", "lua-torch")  # refcheck/conventions/presets.py's
BUILT_MARKER = ".realworld-built"
COMMIT_MARKER = ".realworld-commit"
MISSING_MARKER = ".realworld-missing"
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Overlay:
    """Another repository laid out inside the tree (a git submodule the archive lacks)."""

    path: str
    source: str
    commit: str


@dataclass(frozen=True)
class Project:
    name: str
    source: str
    commit: str
    apt: tuple[str, ...] = ()
    build: tuple[str, ...] = ()
    compile_commands: str | None = None
    units: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    errors: str | None = None
    overlays: tuple[Overlay, ...] = ()
    tree: str = ""  # the folder under --trees (default: name); extensions of one project share it
    config: tuple[tuple[str, object], ...] = ()  # more [tool.refcheck] keys (gir = [...])


@dataclass(frozen=True)
class Batch:
    batch: str
    preset: str
    projects: tuple[Project, ...]
    path: Path | None = None


def _strings(where: str, key: str, value) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, list) or not all(
            isinstance(v, str) for v in value):
        raise SpecError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def _string(where: str, table: dict, key: str, required: bool = True) -> str | None:
    value = table.get(key)
    if value is None:
        if required:
            raise SpecError(f"{where}: missing key '{key}'")
        return None
    if not isinstance(value, str) or not value:
        raise SpecError(f"{where}: '{key}' must be a non-empty string")
    return value


def _overlay(where: str, table) -> Overlay:
    if not isinstance(table, dict):
        raise SpecError(f"{where}: each overlay must be a table")
    return Overlay(*(_string(where, table, k) for k in ("path", "source", "commit")))


def _config(where: str, table) -> tuple[tuple[str, object], ...]:
    """Extra configuration keys: strings, booleans, numbers or lists of strings (written as
    JSON, which TOML reads the same for these)."""
    if not isinstance(table, dict):
        raise SpecError(f"{where}: 'config' must be a table")
    for key, value in table.items():
        plain = isinstance(value, (str, bool, int, float))
        if not plain and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise SpecError(f"{where}: config key '{key}' must be a string, number, boolean "
                            f"or list of strings")
    return tuple(sorted(table.items()))


def _project(index: int, table) -> Project:
    if not isinstance(table, dict):
        raise SpecError(f"project #{index + 1}: must be a table ([[project]])")
    where = f"project #{index + 1}"
    name = _string(where, table, "name")
    where = f"project '{name}'"
    known = {"name", "source", "commit", "apt", "build", "compile_commands", "units", "flags",
             "errors", "overlays", "tree", "config"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise SpecError(f"{where}: unknown key(s) {', '.join(unknown)}")
    source = _string(where, table, "source")
    if not source.startswith("github:") or source.count("/") != 1:
        raise SpecError(f"{where}: 'source' must read github:owner/name, not {source!r}")
    units = _strings(where, "units", table.get("units", []))
    compile_commands = _string(where, table, "compile_commands", required=False)
    if not units and compile_commands is None:
        raise SpecError(f"{where}: needs 'units' or 'compile_commands'")
    errors = _string(where, table, "errors", required=False)
    if errors not in (None, "abort", "unwind"):
        raise SpecError(f"{where}: 'errors' must be abort or unwind")
    overlays = table.get("overlays", [])
    if not isinstance(overlays, list):
        raise SpecError(f"{where}: 'overlays' must be a list of tables")
    return Project(
        name=name, source=source, commit=_string(where, table, "commit"),
        apt=_strings(where, "apt", table.get("apt", [])),
        build=_strings(where, "build", table.get("build", [])),
        compile_commands=compile_commands, units=units,
        flags=_strings(where, "flags", table.get("flags", [])), errors=errors,
        overlays=tuple(_overlay(where, o) for o in overlays),
        tree=_string(where, table, "tree", required=False) or name,
        config=_config(where, table.get("config", {})))


def parse_spec(text: str, path: Path | None = None) -> Batch:
    """The batch a spec's TOML text describes; SpecError says what is missing or malformed."""
    label = str(path) if path else "spec"
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{label}: not valid TOML: {e}") from None
    batch = _string(label, doc, "batch")
    preset = _string(label, doc, "preset")
    if preset not in PRESETS:
        raise SpecError(f"{label}: 'preset' must be one of {', '.join(PRESETS)}")
    tables = doc.get("project")
    if not isinstance(tables, list) or not tables:
        raise SpecError(f"{label}: no [[project]] tables")
    projects = tuple(_project(i, t) for i, t in enumerate(tables))
    names = [p.name for p in projects]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SpecError(f"{label}: project name(s) given twice: {', '.join(twice)}")
    return Batch(batch=batch, preset=preset, projects=projects, path=path)


def load_spec(path: Path) -> Batch:
    try:
        text = path.read_text()
    except OSError as e:
        raise SpecError(f"cannot read spec {path}: {e.strerror}") from None
    return parse_spec(text, path)


# -- laying out and building -------------------------------------------------------------------

def _git_dir(mirror: Path, source: str) -> Path:
    owner, name = source.removeprefix("github:").split("/")
    git_dir = mirror / f"{owner}+{name}" / "repo"
    if (git_dir / ".git").is_dir():  # fetch gives a work tree's .git for some repositories
        git_dir = git_dir / ".git"
    if not git_dir.is_dir():
        raise SpecError(f"no mirror of {source} at {git_dir} (fetch it first: `fetch {source}`)")
    return git_dir


def _archive(git_dir: Path, commit: str, dest: Path) -> tuple[str, list[str]]:
    """Writes `commit`'s files of `git_dir` into dest (made here); returns the full sha and the
    paths whose blobs the mirror lacks (written empty). Not `git archive`: with a blob missing it
    stops there and still exits 0, leaving half a tree."""
    sha = subprocess.run(["git", "--git-dir", str(git_dir), "rev-parse", "--verify", "-q",
                          f"{commit}^{{commit}}"], capture_output=True, text=True).stdout.strip()
    if not sha:
        raise SpecError(f"commit {commit} is not in {git_dir}")
    listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", sha],
                             capture_output=True, check=True).stdout
    entries = []
    for record in listing.split(b"\0"):
        if record:
            meta, path = record.split(b"\t", 1)
            mode, kind, obj = meta.decode().split()
            entries.append((mode, kind, obj, os.fsdecode(path)))
    dest.mkdir(parents=True)
    missing = []
    with subprocess.Popen(["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE) as cat:
        for mode, kind, obj, path in entries:
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if kind == "commit":  # a submodule: its folder, empty (see overlays)
                target.mkdir(exist_ok=True)
                continue
            cat.stdin.write(obj.encode() + b"\n")
            cat.stdin.flush()
            header = cat.stdout.readline().split()
            if header[1:2] == [b"missing"]:
                missing.append(path)
                data = b""
            else:
                data = cat.stdout.read(int(header[2]))
                cat.stdout.read(1)  # the newline after the contents
            if mode == "120000":
                os.symlink(os.fsdecode(data), target)
            else:
                target.write_bytes(data)
                if mode == "100755":
                    target.chmod(0o755)
        cat.stdin.close()
    return sha, missing


def lay_out(project: Project, trees: Path, mirror: Path | None) -> Path:
    """The project's tree, laid out from the mirror if it is missing."""
    tree = trees / project.tree
    if tree.is_dir():
        laid = _tree_commit(tree)
        if laid is not None and not laid.startswith(project.commit):
            raise SpecError(f"{project.name}: {tree} holds {laid[:12]}, not {project.commit}")
        return tree
    if mirror is None:
        raise SpecError(f"{project.name}: no tree at {tree}, and no --mirror to lay it out from")
    partial = trees / f".{project.tree}.partial"
    if partial.exists():
        subprocess.run(["rm", "-rf", str(partial)], check=True)
    sha, missing = _archive(_git_dir(mirror, project.source), project.commit, partial)
    for overlay in project.overlays:
        target = partial / overlay.path
        if target.is_dir() and not any(target.iterdir()):
            target.rmdir()  # an empty submodule folder
        missing += [f"{overlay.path}/{m}" for m in
                    _archive(_git_dir(mirror, overlay.source), overlay.commit, target)[1]]
    (partial / COMMIT_MARKER).write_text(sha + "\n")
    if missing:
        (partial / MISSING_MARKER).write_text("".join(m + "\n" for m in missing))
        print(f"{project.name}: the mirror lacks {len(missing)} blob(s), written empty "
              f"(listed in {tree / MISSING_MARKER}): {', '.join(missing[:3])}"
              + (" ..." if len(missing) > 3 else ""))
    partial.rename(tree)
    print(f"{project.name}: laid out {project.source} at {sha[:12]} in {tree}")
    return tree


def missing_packages(packages: tuple[str, ...]) -> list[str]:
    missing = []
    for package in packages:
        status = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", package],
                                capture_output=True, text=True).stdout
        if "install ok installed" not in status:
            missing.append(package)
    return missing


def build(project: Project, tree: Path, path_first: tuple[str, ...] = (),
          again: bool = False) -> bool:
    """Runs the build steps once per tree (a marker records the steps run; `again` runs them
    anyway); False on failure. A failing step does not stop the check: `ninja -k 0` builds
    leave most units usable."""
    if not project.build:
        return True
    digest = hashlib.sha256("\n".join(project.build).encode()).hexdigest()
    marker = tree / BUILT_MARKER
    if not again and marker.is_file() and marker.read_text().split()[:1] == [digest]:
        if "failed" in marker.read_text():
            print(f"{project.name}: its build failed before (--rebuild runs it again)")
            return False
        return True
    ok = True
    env = {**os.environ, "PATH": os.pathsep.join([*path_first, os.environ.get("PATH", "")])}
    with open(tree / ".realworld-build.log", "w") as log:
        for step in project.build:
            log.write(f"$ {step}\n")
            log.flush()
            if subprocess.run(step, shell=True, cwd=tree, stdout=log, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, env=env).returncode != 0:
                ok = False
                print(f"{project.name}: build step failed: {step} "
                      f"(log: {tree / '.realworld-build.log'})")
    marker.write_text(digest + ("" if ok else " failed") + "\n")
    return ok


# -- checking ----------------------------------------------------------------------------------

def check_args(batch: Batch, project: Project, tree: Path) -> tuple[list[str], list[str]]:
    """(paths, clang arguments) for the project: the database, or the units' globs expanded in
    the tree, and the spec's flags (with the running Python's headers for the cpython preset)."""
    extra = [_expand(project.name, f) for f in project.flags]
    if batch.preset == "cpython":
        extra.append("-I" + sysconfig.get_paths()["include"])
    if project.compile_commands is not None:
        if not (tree / project.compile_commands).exists():
            raise SpecError(f"{project.name}: no compile database at "
                            f"{tree / project.compile_commands} (did the build run?)")
        return ["-p", project.compile_commands, *_expand_units(project, tree)], extra
    return _expand_units(project, tree), extra


def _expand_units(project: Project, tree: Path) -> list[str]:
    """The units' globs expanded in the tree (files or folders), each path once, in order."""
    paths: list[str] = []
    for pattern in project.units:
        matched = sorted(glob.glob(pattern, root_dir=tree, recursive=True))
        if not matched:
            raise SpecError(f"{project.name}: unit glob {pattern!r} matches nothing in {tree}")
        paths += [m for m in matched if m not in paths]
    return paths


def _placeholders() -> dict[str, str]:
    """What a flag may name in braces: this machine's include folders."""
    values = {"python_include": sysconfig.get_paths()["include"]}
    try:
        import numpy
        values["numpy_include"] = numpy.get_include()
    except ImportError:
        pass
    return values


def _expand(project: str, flag: str) -> str:
    if "{" not in flag:
        return flag
    try:
        return flag.format(**_placeholders())
    except (KeyError, ValueError, IndexError) as e:
        raise SpecError(f"{project}: flag {flag!r} names {e}, unknown here "
                        f"(known: {', '.join(_placeholders())})") from None


def write_config(batch: Batch, project: Project, tree: Path,
                 overrides: tuple[tuple[str, object], ...] = ()) -> None:
    """The preset, the spec's config keys and the run's overrides (which win) in a refcheck.toml
    at the tree's root, which `check` and floor.py both load (a project's own would be replaced:
    none of the corpora has one)."""
    keys = dict(project.config)
    keys.update(overrides)
    lines = ["[tool.refcheck]", f'preset = "{batch.preset}"']
    lines += [f"{key} = {json.dumps(value)}" for key, value in keys.items()]
    (tree / "refcheck.toml").write_text("\n".join(lines) + "\n")


def _run_measured(argv: list[str], cwd: Path, env: dict) -> tuple[subprocess.CompletedProcess, float]:
    """Runs argv to completion; returns it and its CPU seconds (user + sys, children included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def parse_stages(stderr: str) -> dict[str, float]:
    """The per-stage seconds of `--statistics` (lines `parse   0.062 s`)."""
    stages = {}
    for line in stderr.splitlines():
        cells = line.split()
        if len(cells) == 3 and cells[2] == "s" and cells[0].isidentifier():
            try:
                stages[cells[0]] = float(cells[1])
            except ValueError:
                pass
    return stages


def _env(checkout: Path, pycache: Path | None = None) -> dict:
    return bytecode.env({**os.environ, "PYTHONPATH": str(checkout), "PYTHONDONTWRITEBYTECODE": "1"}, pycache)


def run_check(batch: Batch, project: Project, tree: Path, checkout: Path, pycache: Path | None = None,
              overrides: tuple[tuple[str, object], ...] = ()) -> dict:
    paths, extra = check_args(batch, project, tree)
    write_config(batch, project, tree, overrides)
    argv = [sys.executable, "-m", "refcheck", "check", "-j1", "--no-cache", "--format", "json",
            "--statistics", *[f"--clang-arg={a}" for a in extra]]
    if project.errors:
        argv.append(f"--errors={project.errors}")
    done, cpu = _run_measured(argv + paths, tree, _env(checkout, pycache))
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise SpecError(f"{project.name}: refcheck exited {done.returncode} without a JSON "
                        f"report:\n    " + "\n    ".join(tail)) from None
    return {"exit": done.returncode, "findings": report["findings"], "errors": report["errors"],
            "stats": report.get("stats", {}), "stages": parse_stages(done.stderr),
            "cpu_seconds": round(cpu, 3), "argv": argv[1:] + paths}


def run_floor(batch: Batch, project: Project, tree: Path, checkout: Path, pycache: Path | None = None) -> dict | None:
    """benchmarks/floor.py (the checkout's, else this one's) over the same units and flags."""
    paths, extra = check_args(batch, project, tree)
    if project.compile_commands is not None:
        paths = paths[:2]  # floor.py parses every unit of a database: it takes no paths with -p
    script = checkout / "benchmarks" / "floor.py"
    if not script.is_file():
        script = HERE / "floor.py"
    argv = [sys.executable, str(script), str(tree), *paths, *[f"--clang-arg={a}" for a in extra]]
    done, cpu = _run_measured(argv, tree, _env(checkout, pycache))
    try:
        floor = json.loads(done.stdout)
    except json.JSONDecodeError:
        print(f"{project.name}: floor.py failed (exit {done.returncode})", file=sys.stderr)
        return None
    return {"parse_seconds": floor.get("parse_seconds"), "units": floor.get("units"),
            "cpu_seconds": round(cpu, 3)}


def run_project(batch: Batch, project: Project, args) -> dict:
    tree = lay_out(project, args.trees, args.mirror)
    missing = missing_packages(project.apt)
    if missing:
        print(f"{project.name}: packages not installed: {' '.join(missing)} "
              f"(apt-get install -y {' '.join(missing)})")
    built = build(project, tree, tuple(args.build_path), args.rebuild)
    overrides = _overrides(args)
    result = {"batch": batch.batch, "project": project.name, "source": project.source,
              "commit": _tree_commit(tree) or project.commit, "checkout": str(args.checkout),
              "built": built, "missing_packages": missing, "environment": _environment(),
              "bytecode": "cached" if args.bytecode else "compiled at each run",
              "overrides": dict(overrides),
              **run_check(batch, project, tree, args.checkout, args.bytecode, overrides)}
    if args.floor:
        result["floor"] = run_floor(batch, project, tree, args.checkout, args.bytecode)
    return result


def _overrides(args) -> tuple[tuple[str, object], ...]:
    """Config keys the command line sets for every project: a longer per-function time limit
    keeps a loaded machine's time-outs from changing what two runs report."""
    if args.function_seconds is None:
        return ()
    return (("function-seconds", args.function_seconds),)


def _environment() -> dict:
    """What outside the tree changes findings: the Python headers and the installed .gir files
    (the glib preset reads every installed library's, so another package's install can change a
    GLib code base's findings)."""
    gir = Path("/usr/share/gir-1.0")
    return {"python": sysconfig.get_python_version(),
            "python_include": sysconfig.get_paths()["include"],
            "gir": sorted(p.name for p in gir.glob("*.gir")) if gir.is_dir() else []}


def _tree_commit(tree: Path) -> str | None:
    marker = tree / COMMIT_MARKER
    return marker.read_text().strip() if marker.is_file() else None


# -- scoring -----------------------------------------------------------------------------------

def verdicts_path(batch: Batch) -> Path | None:
    if batch.path is None:
        return None
    path = batch.path.with_name(batch.path.stem + ".verdicts.tsv")
    return path if path.is_file() else None


# -- command line ------------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", nargs="*", type=Path, help="spec files (benchmarks/corpora/*.toml)")
    p.add_argument("--trees", type=Path, default=Path("/tmp/corpora"))
    p.add_argument("--mirror", type=Path, default=None,
                   help="folder of git mirrors, OWNER+NAME/repo each (e.g. /work/.mirror)")
    p.add_argument("--checkout", type=Path, help="refcheck checkout to run (PYTHONPATH)")
    p.add_argument("--out", type=Path, help="results folder: OUT/BATCH/PROJECT.json")
    p.add_argument("--floor", action="store_true", help="also run benchmarks/floor.py")
    p.add_argument("--bytecode", type=Path, metavar="DIR",
                   help="compile the checkout's modules once into DIR and run from there, as an installed "
                        "refcheck does (default: every run compiles them from source; benchmarks/bytecode.py)")
    p.add_argument("--function-seconds", type=float, metavar="S",
                   help="set function-seconds = S in every project's refcheck.toml (default: refcheck's "
                        "10 s): under load, functions near the limit flip between runs")
    p.add_argument("--rebuild", action="store_true", help="run the build steps again")
    p.add_argument("--build-path", action="append", default=[], metavar="DIR",
                   help="put DIR first on PATH for the build steps (a newer meson's bin/)")
    p.add_argument("--only", default="", help="comma-separated project names")
    p.add_argument("--layout-only", action="store_true", help="lay out and build, do not check")
    p.add_argument("--score", type=Path, metavar="OUT",
                   help="score an earlier run's results against the verdicts, run nothing")
    p.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    return p


def _run_batch(batch: Batch, args) -> list[dict]:
    only = {n for n in args.only.split(",") if n}
    results = []
    for project in batch.projects:
        if only and project.name not in only:
            continue
        try:
            if args.layout_only:
                tree = lay_out(project, args.trees, args.mirror)
                build(project, tree, tuple(args.build_path), args.rebuild)
                continue
            result = run_project(batch, project, args)
        except SpecError as e:
            message = str(e).removeprefix(f"{project.name}: ")
            print(f"{batch.batch}/{project.name}: {message}", file=sys.stderr)
            continue
        target = args.out / batch.batch / f"{project.name}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(result, indent=1) + "\n")
        errors = sum(1 for e in result["errors"] if e["severity"] == "error")
        print(f"{batch.batch}/{project.name}: {len(result['findings'])} findings, "
              f"{errors} errors, {result['cpu_seconds']:.1f} s CPU")
        results.append(result)
    return results


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.compare:
            print_compare(compare(load_results(args.compare[0]), load_results(args.compare[1])))
            return 0
        if not args.spec:
            raise SpecError("give a spec file (or --compare OLD NEW)")
        batches = [load_spec(path) for path in args.spec]
        unknown = {n for n in args.only.split(",") if n} - {
            p.name for b in batches for p in b.projects}
        if unknown:
            raise SpecError(f"--only names no project of the spec(s): {', '.join(sorted(unknown))}")
        if args.score is None and not args.layout_only and (args.checkout is None or args.out is None):
            raise SpecError("--checkout and --out are needed to run the checks")
        if args.checkout is not None and not (args.checkout / "refcheck").is_dir():
            raise SpecError(f"{args.checkout} is not a refcheck checkout (no refcheck/ in it)")
        args.trees.mkdir(parents=True, exist_ok=True)
        if args.bytecode is not None and args.checkout is not None and args.score is None:
            bytecode.prime(args.checkout, args.bytecode)
        for batch in batches:
            if args.score is not None:
                found = load_results(args.score / batch.batch)
                results = list(found.values())
            else:
                results = _run_batch(batch, args)
            vpath = verdicts_path(batch)
            if vpath is not None and not args.layout_only:
                print(f"== {batch.batch}: scored against {vpath}")
                print_scores(results, parse_verdicts(vpath.read_text()))
            elif not args.layout_only:
                print(f"== {batch.batch}: no verdicts file")
            if results:
                print(totals_line(batch.batch, results))
    except SpecError as e:
        print(f"realworld: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
