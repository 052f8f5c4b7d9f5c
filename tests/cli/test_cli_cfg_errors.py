"""`refcheck cfg` on units that do not parse: a message, exit 2, and no graph of a unit clang
never read to the end."""

from __future__ import annotations

import subprocess
import sys


def _cfg(tmp_path, name, *args):
    return subprocess.run([sys.executable, "-m", "refcheck", "cfg", name, "--function", "f", *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)


def test_a_fatal_parse_error_prints_no_graph_and_exits_2(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "there.h").write_text("int g(void);\n")
    (tmp_path / "a.c").write_text('#include "there.h"\nint f(int x) { if (x) return g(); return 0; }\n')
    p = _cfg(tmp_path, "a.c")
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.splitlines()
    assert lines[0] == "a.c:1:10: error: 'there.h' file not found"
    assert lines[-1].startswith("refcheck: error: a.c: clang stopped on a fatal error, so no graph is printed")
    # The same unit with its include directory prints the graph and exits 0.
    ok = _cfg(tmp_path, "a.c", "-I", "inc")
    assert ok.returncode == 0 and ok.stderr == "" and ok.stdout.startswith("function f ")


def test_a_partial_parse_prints_the_graph_with_the_errors_and_exits_2(tmp_path):
    (tmp_path / "b.c").write_text("int f(int x) { int y = ; if (x) return 1; return 0; }\n")
    p = _cfg(tmp_path, "b.c")
    assert p.returncode == 2
    assert p.stdout.startswith("function f ")
    assert p.stderr.splitlines() == [
        "b.c:1:24: error: expected expression",
        "refcheck: warning: b.c parsed with errors: the graph may miss what did not parse"]
