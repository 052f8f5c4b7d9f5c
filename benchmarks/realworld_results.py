"""The results side of benchmarks/realworld.py: verdicts, scores, totals, and the comparison of
two runs (finding keys gone and new per project). No refcheck import: results are plain JSON."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path


class SpecError(Exception):
    """A spec, tree, results or verdicts file the runner cannot use; the message says why."""


@dataclass(frozen=True)
class Verdict:
    verdict: bool
    why: str


def parse_verdicts(text: str) -> dict[tuple, Verdict]:
    """Verdict lines, `project file line rule function [subject] verdict why` (tab-separated),
    keyed by (project, file, line, rule, function, subject); '#' lines and blank lines are
    skipped. The optional subject (the name a finding's message quotes first, or the start of
    its message) tells apart findings of one rule on one line; a line without it judges every
    finding of its key that no line with a subject judges. Two lines of one key that disagree are an error: the last
    would win without a word."""
    out: dict[tuple, Verdict] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        at = 6 if len(cells) > 6 and cells[6] in ("true", "false") else 5
        if len(cells) <= at or cells[at] not in ("true", "false") or not cells[2].isdigit():
            raise SpecError(f"verdicts line {number}: want project, file, line, rule, function, "
                            f"[subject,] true|false, why (tab-separated): {line!r}")
        key = (cells[0], cells[1], int(cells[2]), cells[3], cells[4], cells[5] if at == 6 else "")
        verdict = Verdict(cells[at] == "true", "\t".join(cells[at + 1:]))
        if key in out and out[key].verdict != verdict.verdict:
            raise SpecError(f"verdicts line {number}: {key[1]}:{key[2]} {key[3]} {key[4]} "
                            f"{key[5]!r} judged both true and false: give each its subject")
        out[key] = verdict
    return out


def finding_key(project: str, finding: dict) -> tuple:
    return (project, finding["file"], int(finding["line"]), finding["rule"],
            finding.get("function", ""))


def finding_subject(finding: dict) -> str:
    """The name the message quotes first (`'obj' (acquired by ...) is not released`), or ''."""
    message = finding.get("message", "")
    if message.startswith("'"):
        end = message.find("'", 1)
        if end > 0:
            return message[1:end]
    return ""


def subject_index(verdicts: dict[tuple, Verdict]) -> dict[tuple, list[str]]:
    """The subjects given per finding key."""
    index: dict[tuple, list[str]] = {}
    for key in verdicts:
        if key[5]:
            index.setdefault(key[:5], []).append(key[5])
    return index


def verdict_for(project: str, finding: dict, verdicts: dict[tuple, Verdict],
                subjects: dict[tuple, list[str]]) -> Verdict | None:
    """The line judging this finding: the longest subject that is its quoted name or a prefix of
    its message (`'value' (acquired by PyList_New` where one name leaks from many calls), else the
    key's line without a subject."""
    key = finding_key(project, finding)
    name, message = finding_subject(finding), finding.get("message", "")
    best = ""
    for subject in subjects.get(key, ()):
        if (subject == name or message.startswith(subject)) and len(subject) > len(best):
            best = subject
    return verdicts.get(key + (best,))


def score(project: str, findings: list[dict], verdicts: dict[tuple, Verdict]) -> dict:
    """Findings of one project split by verdict; the unjudged ones listed by key."""
    counts = {"findings": len(findings), "true": 0, "false": 0, "unjudged": []}
    subjects = subject_index(verdicts)
    for finding in findings:
        verdict = verdict_for(project, finding, verdicts, subjects)
        if verdict is None:
            counts["unjudged"].append(finding_key(project, finding)[1:])
        else:
            counts["true" if verdict.verdict else "false"] += 1
    return counts


def print_scores(results: list[dict], verdicts: dict[tuple, Verdict]) -> None:
    total = {"findings": 0, "true": 0, "false": 0, "unjudged": 0}
    print(f"{'project':24} {'findings':>8} {'true':>6} {'false':>6} {'unjudged':>8}")
    for result in results:
        counts = score(result["project"], result["findings"], verdicts)
        print(f"{result['project']:24} {counts['findings']:8} {counts['true']:6} "
              f"{counts['false']:6} {len(counts['unjudged']):8}")
        for file, line, rule, function in counts["unjudged"]:
            print(f"    unjudged: {file}:{line} {rule} {function}")
        for k in ("findings", "true", "false"):
            total[k] += counts[k]
        total["unjudged"] += len(counts["unjudged"])
    print(f"{'total':24} {total['findings']:8} {total['true']:6} {total['false']:6} "
          f"{total['unjudged']:8}")


def totals_line(name: str, results: list[dict]) -> str:
    """Findings, tool errors, refcheck's CPU and (parse + cfg + analysis) over the floor."""
    findings = sum(len(r["findings"]) for r in results)
    errors = sum(1 for r in results for e in r["errors"] if e["severity"] == "error")
    cpu = sum(r.get("cpu_seconds", 0) for r in results)
    work = sum(r["stages"].get(k, 0) for r in results for k in ("parse", "cfg", "analysis"))
    floor = sum((r.get("floor") or {}).get("parse_seconds") or 0 for r in results)
    ratio = f", (parse + cfg + analysis) / floor {work / floor:.1f}" if floor else ""
    return (f"== {name}: {len(results)} projects, {findings} findings, {errors} tool errors, "
            f"{cpu:.1f} s CPU{ratio}")


def load_results(directory: Path) -> dict[str, dict]:
    """Every results JSON under directory, keyed by its path relative to it (batch/project)."""
    if not directory.is_dir():
        raise SpecError(f"no results directory {directory}")
    out = {}
    for path in sorted(directory.rglob("*.json")):
        try:
            doc = json.loads(path.read_text())
        except json.JSONDecodeError:
            raise SpecError(f"{path}: not a results JSON") from None
        if isinstance(doc, dict) and "findings" in doc and "project" in doc:
            out[str(path.relative_to(directory).with_suffix(""))] = doc
    return out


def compare(old: dict[str, dict], new: dict[str, dict]) -> dict[str, dict]:
    """Per project present in either run: the finding keys gone and new (file, line, rule,
    function), counted with multiplicity (one line may hold two findings of one rule, on two
    names); a project present in one run only has all its findings gone or new."""
    out = {}
    for name in sorted(set(old) | set(new)):
        keys = []
        for side in (old, new):
            doc = side.get(name)
            keys.append(Counter(finding_key(doc["project"], f)[1:] for f in doc["findings"])
                        if doc else Counter())
        out[name] = {"old": keys[0].total() if name in old else None,
                     "new": keys[1].total() if name in new else None,
                     "gone": sorted((keys[0] - keys[1]).elements()),
                     "added": sorted((keys[1] - keys[0]).elements())}
    return out


def print_compare(diff: dict[str, dict]) -> None:
    changed = 0
    for name, d in diff.items():
        old = "-" if d["old"] is None else d["old"]
        new = "-" if d["new"] is None else d["new"]
        print(f"{name}: {old} -> {new}  ({len(d['gone'])} gone, {len(d['added'])} new)")
        for sign, keys in (("-", d["gone"]), ("+", d["added"])):
            for file, line, rule, function in keys:
                print(f"  {sign} {file}:{line} {rule} {function}")
        changed += bool(d["gone"] or d["added"])
    print(f"{changed} of {len(diff)} projects changed")
