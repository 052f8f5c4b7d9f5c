"""Mutants: one source edit per site and kind, applied to a copy of the runtime, never in place.

Edits keep every line where it was (a deleted call becomes `(void)0`, a duplicated one a comma
expression, a moved use leaves its line blank and joins the release's line), so findings and
coverage line numbers of the mutant and the original stay comparable.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from refcheck.conventions import TH_NEW
from refcheck.validate.layout import Runtime
from refcheck.validate.sites import Site


@dataclass(frozen=True)
class Edit:
    file: str
    start: int
    end: int
    text: bytes


@dataclass
class Mutant:
    id: str
    kind: str
    file: str  # the file holding the mutated function
    function: str
    instantiations: list[str]
    line: int
    expected: list[str]
    edits: list[Edit] = field(default_factory=list)

    def files(self) -> list[str]:
        return sorted({e.file for e in self.edits})

    def apply(self, originals: dict[str, bytes]) -> dict[str, bytes]:
        """The mutated contents of every file this mutant touches."""
        out = {}
        for name in self.files():
            data = originals[name]
            for e in sorted((e for e in self.edits if e.file == name), key=lambda e: e.start, reverse=True):
                data = data[:e.start] + e.text + data[e.end:]
            out[name] = data
        return out

    def diff(self, originals: dict[str, bytes]) -> str:
        chunks = []
        for name, data in self.apply(originals).items():
            before = originals[name].decode("utf-8", "replace").splitlines(keepends=True)
            after = data.decode("utf-8", "replace").splitlines(keepends=True)
            chunks.append("".join(difflib.unified_diff(before, after, f"a/{name}", f"b/{name}", n=2)))
        return "".join(chunks)


def read_sources(runtime: Runtime, sites: list[Site]) -> dict[str, bytes]:
    names = {s.span.file for s in sites} | {o.file for s in sites for o in s.others}
    out = {}
    for name in sorted(names):
        with open(runtime.path(name), "rb") as f:
            out[name] = f.read()
    return out


def make(site: Site, sources: dict[str, bytes]) -> Mutant:
    fn = site.function
    m = Mutant(site.id, site.kind, fn.file, fn.name, sorted(fn.instantiations), site.line, list(site.expected))
    sp = site.span
    call = sources[sp.file][sp.start:sp.end]
    if site.kind in ("delete-release", "delete-retain"):
        m.edits = [Edit(sp.file, sp.start, sp.end, b"(void)0")]
    elif site.kind == "duplicate-release":
        # A comma expression keeps both releases under the same `if` as the original one.
        m.edits = [Edit(sp.file, sp.start, sp.end, b"(" + call + b", " + call + b")")]
    elif site.kind == "use-after-release":
        use = site.others[0]
        text = sources[use.file][use.start:use.end]
        end = _after_semicolon(sources[sp.file], sp.end)
        m.edits = [Edit(use.file, use.start, use.end, b""), Edit(sp.file, end, end, b" " + text)]
    elif site.kind == "early-return":
        m.edits = [Edit(sp.file, sp.end, sp.end, b" " + site.return_text.encode())]
    elif site.kind == "rename-new":
        m.edits = [Edit(s.file, s.start, s.end, renamed(sources[s.file][s.start:s.end]))
                   for s in [sp, *site.others]]
        # Findings will name the function by its new name.
        m.instantiations = sorted(renamed(n.encode()).decode() for n in fn.instantiations)
    else:
        raise ValueError(f"unknown mutation kind {site.kind}")
    return m


def renamed(token: bytes) -> bytes:
    """`newNarrow` -> `makeNarrow`, `THCOWContext_new` -> `THCOWContext_make`: no longer `new*`."""
    match = re.search(TH_NEW, token.decode())
    if match is None:
        raise ValueError(f"{token!r} is not a new* name")
    at = match.start() + (1 if match.group(0).startswith("_") else 0)
    return token[:at] + b"make" + token[at + 3:]


def _after_semicolon(src: bytes, offset: int) -> int:
    i = offset
    while i < len(src) and src[i:i + 1] in b" \t":
        i += 1
    if src[i:i + 1] != b";":
        raise ValueError("a release statement without its `;`")
    return i + 1
