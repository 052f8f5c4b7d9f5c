"""The rules: one place for each rule's code, name, message template and documentation."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str
    # str.format template; fields: what (the reference, e.g. "`t`"), origin (how it was acquired).
    message: str

    @property
    def doc(self) -> str:
        """The rule's documentation page; docs/rules/<code>.md is a copy of this text."""
        return resources.files("refcheck.ruledocs").joinpath(f"{self.code}.md").read_text("utf-8")

    @property
    def help_uri(self) -> str:
        return f"https://github.com/refcheck/refcheck/blob/main/docs/rules/{self.code}.md"


RULES: dict[str, Rule] = {r.code: r for r in [
    Rule("RC001", "leak",
         "an owned reference is not released or handed over on some path",
         "{what} {origin} is not released on this path"),
    Rule("RC002", "double-release",
         "a reference is released twice",
         "{what} {origin} is released again after it was already released"),
    Rule("RC003", "use-after-release",
         "a reference is used after it was released or handed over",
         "{what} {origin} is used after it was released"),
    Rule("RC004", "owned-return-from-non-new",
         "a function whose name does not begin with `new` returns an owned reference",
         "{what} {origin} is returned owned from a function whose name does not begin with 'new'"),
    Rule("RC005", "borrowed-return-from-new",
         "a `new*` function returns a reference it does not own (a missing retain)",
         "{what} {origin} is returned from a 'new' function without being owned (missing retain?)"),
    Rule("RC006", "release-of-borrowed",
         "a reference this function does not own is released",
         "{what} {origin} is released but this function does not own a reference to it"),
    Rule("RC007", "overwritten-owner",
         "the only owner of a reference is overwritten while it still holds it",
         "{what} {origin} is overwritten while it still holds the only owned reference"),
    Rule("RC008", "release-after-consume",
         "a reference is released after it was consumed (move, freeCopyTo)",
         "{what} {origin} is released after it was consumed"),
]}


def rule(code: str) -> Rule:
    return RULES[code]
