"""refcheck runs on a corpus (stage times from --statistics, findings from --format json) and the
scoring of any tool's findings against the corpus's planted bugs."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field

from proc import Run, run

STAGES = ("parse", "cfg", "analysis", "report", "wall")
_CACHE_HITS = re.compile(r"(\d+) from cache")
_STAGE_LINE = re.compile(r"^(parse|cfg|analysis|report|wall)\s+([0-9.]+) s\s*$", re.M)


# The environment refcheck runs in; run.py points PYTHONPATH at a snapshot of the package.
ENV: dict | None = None


def use_snapshot(repo: str, into: str) -> str:
    """Copies refcheck/ once, so that every run of a benchmark measures the same code even while
    the working tree changes (its cache key covers its own source: an edit would turn a warm
    run cold). Returns the snapshot's directory, to put first on PYTHONPATH."""
    import shutil

    target = os.path.join(into, "refcheck")
    shutil.copytree(os.path.join(repo, "refcheck"), target,
                    ignore=shutil.ignore_patterns("__pycache__"))
    global ENV
    ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [into] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    return into


@dataclass
class Check:
    run: Run
    stages: dict[str, float]
    findings: list[dict] = field(default_factory=list)
    tool_errors: int = 0
    cache_hits: int = 0  # units answered from the cache (a warm run that misses is not warm)


def refcheck(corpus: str, paths: list[str], jobs: int, cache_dir: str | None) -> Check:
    """`refcheck check -j N` in the corpus; cache_dir None means --no-cache."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        report = f.name
    argv = [sys.executable, "-m", "refcheck", "check", "-j", str(jobs), "--statistics", "-q",
            "--format", "json", "-o", report, "--timeout", "600"]
    argv += ["--no-cache"] if cache_dir is None else ["--cache-dir", cache_dir]
    r = run(argv + paths, cwd=corpus, env=ENV)
    try:
        # 2 with a report is a run with tool errors (they win over findings); a usage or
        # configuration error is 2 with "refcheck: error:" and no report.
        if r.returncode not in (0, 1, 2) or "refcheck: error:" in r.stderr:
            raise RuntimeError(f"refcheck failed (exit {r.returncode}): {r.stderr.strip()[-2000:]}")
        with open(report, encoding="utf-8") as f:
            doc = json.load(f)
    finally:
        os.unlink(report)
    stages = {name: float(v) for name, v in _STAGE_LINE.findall(r.stderr)}
    hits = _CACHE_HITS.search(r.stderr)
    return Check(r, stages, doc["findings"], len(doc["errors"]), int(hits.group(1)) if hits else 0)


@dataclass
class Score:
    planted: int
    found: int  # planted bugs with at least one finding inside their function
    false_positives: int  # distinct finding locations outside every planted function
    findings: int


def score(manifest, locations: list[tuple[str, int]]) -> Score:
    """locations: (corpus-relative file, line) of each finding, as any tool reports them."""
    by_file: dict[str, list] = {}
    for p in manifest.planted:
        by_file.setdefault(p.file, []).append(p)
    hit, false = set(), set()
    for file, line in locations:
        file = os.path.normpath(file)
        match = [p for p in by_file.get(file, []) if p.first_line <= line <= p.last_line]
        if match:
            hit.update((p.file, p.first_line) for p in match)
        else:
            false.add((file, line))
    return Score(len(manifest.planted), len(hit), len(false), len(locations))
