"""The rules, one file each (`rcNNN_name.py`, defining `RULE`) with its page (`RCNNN.md`) beside it.

A rule is a consumer of the analysis's events (`refcheck.rules.events`): `reports` says which events it
turns into findings, `note` words the last step of the finding's path, `message` is the finding's
text. The table `RULES` is discovered from the files of this package, so adding a rule is adding
its file, its page and its fixtures.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from refcheck.rules.events import Event

HERE = Path(__file__).resolve().parent
_FILE = re.compile(r"^rc\d{3}_\w+\.py$")
_CODE = re.compile(r"^RC\d{3}$")


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str
    # str.format template; fields: what (the reference, e.g. "`t`"), origin (how it was acquired).
    message: str
    reports: Callable[[Event], bool] = field(default=lambda ev: False, compare=False)
    note: Callable[[Event], str] = field(default=lambda ev: "", compare=False)
    # The path shows where the reference was released before the event (uses after release, ...).
    shows_release: bool = False
    # Set: several references the rule reports at one primary location are one finding, with
    # this message (field: refs, each reference with its origin) — a `return` of one of several
    # owned references is one defect at that return, not one per reference.
    merged: str | None = None
    # One finding per object per source line: the events of one statement are one defect (a use
    # of a released object inside `return CAST (ret);` and the return itself).
    per_line: bool = False
    # One finding per object per release: every later use of an object released at one place is
    # one defect (the release came too early, or the uses too late), reported at the first use in
    # the source, as an analyzer that ends the path at its first use of freed memory reports it.
    per_release: bool = False
    home: Path = field(default=HERE, compare=False)  # the directory of the rule's file and page

    @property
    def doc(self) -> str:
        """The rule's documentation page; docs/rules/<code>.md is a copy of this text."""
        return (self.home / f"{self.code}.md").read_text("utf-8")

    @property
    def help_uri(self) -> str | None:
        """Where the page is published, when pyproject's [project.urls] says (refcheck.support.links)."""
        from refcheck.support.links import rule_doc_uri

        return rule_doc_uri(self.code)


class RuleError(Exception):
    pass


def discover(directory: Path = HERE) -> dict[str, Rule]:
    """Every rule defined by an `rcNNN_*.py` file in `directory`, by code, in code order."""
    found: dict[str, Rule] = {}
    for path in sorted(directory.iterdir()):
        if not _FILE.match(path.name):
            continue
        spec = importlib.util.spec_from_file_location(f"refcheck.rules.{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        rule = getattr(module, "RULE", None)
        if not isinstance(rule, Rule):
            raise RuleError(f"{path}: defines no RULE = Rule(...)")
        if not _CODE.match(rule.code) or not path.name.startswith(rule.code.lower() + "_"):
            raise RuleError(f"{path}: the file name must begin with the rule's code ({rule.code!r})")
        if rule.code in found:
            raise RuleError(f"{path}: a second rule {rule.code}")
        if not (directory / f"{rule.code}.md").is_file():
            raise RuleError(f"{path}: no page {rule.code}.md beside it")
        found[rule.code] = replace(rule, home=directory)
    return dict(sorted(found.items()))


RULES: dict[str, Rule] = discover()


def rule(code: str) -> Rule:
    return RULES[code]
