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


# Enough of TH's API to compile every example in the rule docs on its own.
PRELUDE = """\
#define NULL ((void *)0)
typedef struct THFloatStorage { float *data; long size; int refcount; } THFloatStorage;
typedef struct THFloatTensor {
  long *size; long *stride; int nDimension;
  THFloatStorage *storage; long storageOffset; int refcount;
} THFloatTensor;
void THFloatStorage_retain(THFloatStorage *s);
THFloatTensor *THFloatTensor_newContiguous(THFloatTensor *t);
THFloatTensor *THFloatTensor_newClone(THFloatTensor *t);
THFloatTensor *THFloatTensor_newTranspose(THFloatTensor *t, int d1, int d2);
THFloatTensor *THFloatTensor_newSelect(THFloatTensor *t, int d, long i);
void THFloatTensor_free(THFloatTensor *t);
void THFloatTensor_freeCopyTo(THFloatTensor *t, THFloatTensor *dst);
long THFloatTensor_nElement(const THFloatTensor *t);
int THFloatTensor_nDimension(const THFloatTensor *t);
long THFloatTensor_size(const THFloatTensor *t, int d);
void THFloatTensor_resizeAs(THFloatTensor *r, THFloatTensor *t);
void THFloatTensor_zero(THFloatTensor *t);
void THFloatTensor_mul(THFloatTensor *r, THFloatTensor *t, float v);
"""


def analyze(tmp_path, name: str, code: str):
    from refcheck.driver.engine import Settings, check_unit
    path = tmp_path / f"{name}.c"
    path.write_text(PRELUDE + code)
    result = check_unit(str(path), Settings(root=str(tmp_path)))
    assert result.errors == []
    offset = PRELUDE.count("\n")
    return [(f.rule, f.location.line - offset) for f in result.findings]


@pytest.mark.parametrize("code", list(RULES))
def test_doc_example_breaks_its_rule_and_the_fix_is_clean(tmp_path, code):
    sections = dict(re.findall(r"^## (.+?)\n(.*?)(?=^## |\Z)", RULES[code].doc, re.M | re.S))
    example = "".join(re.findall(r"```c\n(.*?)```", sections["Example"], re.S))
    fix = "".join(re.findall(r"```c\n(.*?)```", sections["Fix"], re.S))
    # The example marks the line the finding belongs on with a `/* RCxxx: ... */` comment.
    marked = [i for i, line in enumerate(example.splitlines(), 1) if f"/* {code}:" in line]
    assert analyze(tmp_path, "example", example) == [(code, line) for line in marked]
    assert analyze(tmp_path, "fix", fix) == []
