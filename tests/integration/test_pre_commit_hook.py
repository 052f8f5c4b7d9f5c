"""The pre-commit hook, end to end: pre-commit installs refcheck from this repository into its
own virtualenv (from PyPI for the dependencies) and runs it on a throwaway project.

Slow (one install per run, about half a minute each); deselect with `-m "not integration"`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.integration

HEADER = """\
typedef struct THFloatTensor THFloatTensor;
THFloatTensor *THFloatTensor_newContiguous(THFloatTensor *t);
void THFloatTensor_free(THFloatTensor *t);
long THFloatTensor_nElement(const THFloatTensor *t);
"""

GOOD = HEADER + """
long THFloatTensor_countContiguous(THFloatTensor *t)
{
  THFloatTensor *tc = THFloatTensor_newContiguous(t);
  long n = THFloatTensor_nElement(tc);
  THFloatTensor_free(tc);
  return n;
}
"""

BAD = HEADER + """
long THFloatTensor_countContiguous(THFloatTensor *t)
{
  THFloatTensor *tc = THFloatTensor_newContiguous(t);
  long n = THFloatTensor_nElement(tc);
  return n;
}
"""


def test_manifest_is_valid_for_pre_commit():
    clientlib = pytest.importorskip("pre_commit.clientlib")
    hooks = clientlib.load_manifest(str(REPO / ".pre-commit-hooks.yaml"))
    (hook,) = hooks
    assert hook["id"] == "refcheck"
    assert hook["entry"] == "refcheck check"
    assert hook["language"] == "python"
    assert hook["types_or"] == ["c", "c++", "cuda"]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    pytest.importorskip("pre_commit", reason="pre-commit is in the [test] extra")
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs git and a git checkout of refcheck")
    root = tmp_path_factory.mktemp("project")
    (root / "good.c").write_text(GOOD)
    (root / "bad.c").write_text(BAD)
    env = _env(tmp_path_factory.mktemp("pre-commit-home"))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
    subprocess.run(["git", "add", "good.c", "bad.c"], cwd=root, check=True, env=env)
    return root, env


def _env(home: Path) -> dict[str, str]:
    # A hook run inherits GIT_DIR and friends; they would point git at the wrong repository.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    identity = {"GIT_AUTHOR_NAME": "refcheck tests", "GIT_AUTHOR_EMAIL": "tests@refcheck.invalid"}
    env.update(identity, GIT_COMMITTER_NAME=identity["GIT_AUTHOR_NAME"],
               GIT_COMMITTER_EMAIL=identity["GIT_AUTHOR_EMAIL"], PRE_COMMIT_HOME=str(home))
    return env


def try_repo(project, filename: str) -> subprocess.CompletedProcess:
    root, env = project
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "refcheck",
         "--files", filename, "--color", "never"],
        cwd=root, env=env, capture_output=True, text=True, timeout=900)


def test_hook_fails_on_a_leak(project):
    run = try_repo(project, "bad.c")
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "Failed" in out
    (line,) = [l for l in out.splitlines() if l.startswith("bad.c:10:3: error:")]
    assert line.endswith("[RC001 leak]") and "'tc'" in line


def test_hook_passes_a_clean_file(project):
    run = try_repo(project, "good.c")
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "Passed" in out
    assert "error:" not in out


def test_the_documented_configuration_works(project, tmp_path):
    """docs/pre-commit.md's configuration, with a clone of this repository's HEAD and its commit."""
    import re

    root, env = project
    doc = (REPO / "docs" / "pre-commit.md").read_text("utf-8")
    config = re.search(r"^```yaml\n(repos:.*?)^```$", doc, flags=re.S | re.M).group(1)
    assert "/path/to/refcheck-th" in config and "COMMIT" in config
    clone = tmp_path / "refcheck-th"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, env=env)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, check=True, env=env,
                            capture_output=True, text=True).stdout.strip()
    (root / ".pre-commit-config.yaml").write_text(
        config.replace("/path/to/refcheck-th", str(clone)).replace("COMMIT", commit))
    subprocess.run(["git", "add", ".pre-commit-config.yaml"], cwd=root, check=True, env=env)
    run = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--files", "bad.c", "good.c",
                          "--color", "never"], cwd=root, env=env, capture_output=True, text=True,
                         timeout=900)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert [l for l in out.splitlines() if l.startswith("bad.c:10:3: error:")], out
    assert "good.c" not in out.replace("bad.c", "")


INLINE_LEAK = HEADER + """
static inline long THFloatTensor_countContiguous(THFloatTensor *t)
{
  THFloatTensor *tc = THFloatTensor_newContiguous(t);
  long n = THFloatTensor_nElement(tc);
  return n;
}
"""


def test_a_header_only_commit_fails_on_a_leak_in_the_header(tmp_path):
    """pre-commit passes only the staged header; refcheck checks it through the unit that
    includes it (found by its #include lines: this project has no cache yet), so the commit of a
    leak in an inline function is refused."""
    pytest.importorskip("pre_commit", reason="pre-commit is in the [test] extra")
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs git and a git checkout of refcheck")
    env = _env(tmp_path / "pre-commit-home")
    clone = tmp_path / "refcheck-th"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, env=env)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, check=True, env=env,
                            capture_output=True, text=True).stdout.strip()
    root = tmp_path / "project"
    (root / "include").mkdir(parents=True)
    (root / "include" / "tensor.h").write_text(HEADER)
    (root / "use.c").write_text('#include "include/tensor.h"\n'
                                "long use(THFloatTensor *t) { return THFloatTensor_nElement(t); }\n")
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {clone}\n  rev: {commit}\n  hooks:\n  - id: refcheck\n")
    git = lambda *a: subprocess.run(["git", *a], cwd=root, env=env, capture_output=True,  # noqa: E731
                                    text=True, timeout=900)
    assert git("init", "-q").returncode == 0
    assert git("add", ".").returncode == 0
    assert git("commit", "-q", "-m", "start").returncode == 0
    installed = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=root, env=env,
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    (root / "include" / "tensor.h").write_text(INLINE_LEAK)
    assert git("add", "include/tensor.h").returncode == 0
    run = git("commit", "-m", "a leak in a header")
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    assert [l for l in out.splitlines()
            if l.startswith("include/tensor.h:10:3: error:") and l.endswith("[RC001 leak]")], out
    assert git("rev-list", "--count", "HEAD").stdout.strip() == "1"  # the commit was refused
