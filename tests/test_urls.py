"""Every URL refcheck shows a user points somewhere real: the project's own addresses only as
pyproject.toml's [project.urls] declares them, other sites only where the text cites them on
purpose; and the distribution name is the same everywhere.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from refcheck.support import links
from refcheck.reporters import render

sys.path.insert(0, str(Path(__file__).parent / "reporters"))
from sample_result import FILE, SOURCE, make_result  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
URL = re.compile(r"https?://[^\s\"'<>)`\]]+")

# Other sites, each cited for what it is (a tool's home page, a specification, a library).
EXTERNAL = (
    "https://pre-commit.com",
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/",
    "https://no-color.org",
    "https://github.com/Textualize/rich",
    "https://docs.gitlab.com/ee/ci/testing/code_quality.html",
    # The yardstick docs/first-run.md clones: torch7, the TH that PyTorch's grew from.
    "https://github.com/torch/torch7",
    # Not links: the XML namespaces of GObject-Introspection files (refcheck/conventions/gir.py).
    "http://www.gtk.org/introspection/core/1.0",
    "http://www.gtk.org/introspection/c/1.0",
)


def _shipped_texts() -> dict[str, str]:
    files = [REPO / "README.md", REPO / "pyproject.toml", REPO / ".pre-commit-hooks.yaml", REPO / ".ci" / "run"]
    files += sorted((REPO / "docs").rglob("*.md")) + sorted((REPO / "refcheck").rglob("*.py"))
    files += sorted((REPO / "refcheck").rglob("*.md"))
    return {str(p.relative_to(REPO)): p.read_text("utf-8") for p in files}


def _allowed(url: str) -> bool:
    own = list(PYPROJECT["project"].get("urls", {}).values())
    return any(url.startswith(prefix) for prefix in (*EXTERNAL, *own))


def test_every_url_in_docs_and_code_is_declared_or_a_cited_site():
    bad = [(name, url) for name, text in _shipped_texts().items() for url in URL.findall(text)
           if not _allowed(url)]
    assert bad == []


def sample(tmp_path):
    (tmp_path / FILE).parent.mkdir(parents=True)
    (tmp_path / FILE).write_text(SOURCE)
    return make_result(str(tmp_path))


def test_reports_carry_only_declared_urls(tmp_path):
    result = sample(tmp_path)
    for fmt in ("sarif", "html", "json", "text", "github"):
        urls = [u for u in URL.findall(render(fmt, result)) if not u.startswith(
            "https://docs.oasis-open.org/sarif/sarif/v2.1.0/")]
        declared = list(PYPROJECT["project"].get("urls", {}).values())
        assert all(any(u.startswith(d) for d in declared) for u in urls), (fmt, urls)


def test_html_rule_links_point_into_the_report(tmp_path):
    html = render("html", sample(tmp_path))
    targets = re.findall(r'href="#(rule-RC\d{3})"', html)
    assert targets and all(f'id="{t}"' in html for t in targets)


def test_the_urls_reports_use_are_the_installed_metadata_of_pyproject():
    declared = PYPROJECT["project"].get("urls", {})
    assert links.information_uri() == (declared.get("Repository") or declared.get("Homepage"))
    base = declared.get("Rules")
    assert links.rule_doc_uri("RC001") == (f"{base.rstrip('/')}/RC001.md" if base else None)


def test_the_distribution_name_is_used_consistently():
    name = PYPROJECT["project"]["name"]
    assert name == links.DISTRIBUTION == "refcheck-th"
    texts = _shipped_texts()
    # "refcheck" alone on PyPI is another project: no install line may name it.
    wrong = [(n, m.group(0)) for n, t in texts.items()
             for m in re.finditer(r"pip install\s+(?:-\S+\s+)*refcheck(?![-\w/.])", t)]
    assert wrong == []
    assert "refcheck-th" in texts["docs/pre-commit.md"] and "refcheck-th" in texts["README.md"]
    hooks = texts[".pre-commit-hooks.yaml"]
    assert "entry: refcheck check" in hooks and "language: python" in hooks
