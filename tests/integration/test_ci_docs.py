"""The CI and pre-commit docs are code people copy: check that it parses, that the options it
uses exist, and that the GitLab converter really turns refcheck's SARIF into a code quality
report."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "docs" / "ci.md", REPO / "docs" / "pre-commit.md"]

LEAK = """\
typedef struct THFloatTensor THFloatTensor;
THFloatTensor *THFloatTensor_newClone(THFloatTensor *t);
void THFloatTensor_free(THFloatTensor *t);

void THFloatTensor_touch(THFloatTensor *t)
{
  THFloatTensor *c = THFloatTensor_newClone(t);
}
"""


def blocks(path: Path, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", path.read_text("utf-8"), re.M | re.S)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_yaml_examples_parse(doc):
    yaml = pytest.importorskip("yaml")
    found = blocks(doc, "yaml")
    assert found
    for text in found:
        assert yaml.safe_load(text) is not None


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_documented_check_options_exist(doc):
    from refcheck.commands.cli import check
    known = {opt for param in check.params for opt in param.opts}
    text = doc.read_text("utf-8")
    commands = re.findall(r"refcheck check[^\n`]*", text)
    # The hook's `args:` lists are passed to `refcheck check` too.
    args = re.findall(r"args: \[([^\]]*)\]", text)
    used = {opt for line in commands + args for opt in re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*",
                                                                  line)}
    assert used and used <= known, sorted(used - known)


def test_gitlab_converter_turns_sarif_into_code_quality(tmp_path):
    marker = "<!-- codequality-converter -->\n```python\n"
    text = (REPO / "docs" / "ci.md").read_text("utf-8")
    code = text[text.index(marker) + len(marker):]
    code = code[:code.index("```")]
    script = tmp_path / "refcheck_codequality.py"
    script.write_text(code)
    (tmp_path / "src dir").mkdir()
    (tmp_path / "src dir" / "leak.c").write_text(LEAK)
    check = subprocess.run(
        [sys.executable, "-m", "refcheck", "check", "--format", "sarif", "-o", "refcheck.sarif",
         "--exit-zero", "-q", "--no-cache", "src dir"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stderr
    convert = subprocess.run([sys.executable, str(script), "refcheck.sarif"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=60)
    assert convert.returncode == 0, convert.stderr
    (issue,) = json.loads(convert.stdout)
    assert issue["check_name"] == "RC001"
    assert issue["description"].startswith("RC001: 'c'")
    assert issue["location"] == {"path": "src dir/leak.c", "lines": {"begin": 8}}
    assert re.fullmatch(r"[0-9a-f]{32}:1", issue["fingerprint"])
    assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
