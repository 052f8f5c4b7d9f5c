import re
import subprocess
import sys
from pathlib import Path

import pytest

from refcheck.rules import RULES

REPO = Path(__file__).resolve().parents[2]
SECTIONS = ["What it finds", "Why it matters", "Example", "Fix", "Notes"]


@pytest.mark.parametrize("code", list(RULES))
def test_every_rule_has_a_doc_page_with_the_required_sections(code):
    rule = RULES[code]
    doc = rule.doc
    assert doc.splitlines()[0] == f"# {code} {rule.name}"
    assert re.findall(r"^## (.+)$", doc, re.M) == SECTIONS
    sections = dict(re.findall(r"^## (.+?)\n(.*?)(?=^## |\Z)", doc, re.M | re.S))
    for name in ("Example", "Fix"):
        assert "```c\n" in sections[name], f"{code}: {name} has no C code block"
    # The suppression comment named in the notes must be for this very rule.
    assert f"refcheck: ignore[{code}]" in sections["Notes"]


@pytest.mark.parametrize("code", list(RULES))
def test_docs_copy_is_identical(code):
    copy = REPO / "docs" / "rules" / f"{code}.md"
    assert copy.read_text("utf-8") == RULES[code].doc, (
        "docs/rules is stale: run `python -m refcheck.ruledocs`")


def test_ruledocs_script_checks_and_regenerates(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "refcheck.ruledocs", *args],
                              capture_output=True, text=True, cwd=REPO)

    assert run("--check").returncode == 0
    assert run("--check", str(tmp_path)).returncode == 1
    assert run(str(tmp_path)).returncode == 0
    assert run("--check", str(tmp_path)).returncode == 0
    (tmp_path / "RC003.md").write_text("stale\n")
    stale = run("--check", str(tmp_path))
    assert stale.returncode == 1 and "RC003.md: differs" in stale.stdout
    assert run("--frobnicate").returncode == 2
