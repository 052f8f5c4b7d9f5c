"""Hostile files next to a good one, through the real engine: each costs its own file only.

Bad paths, empty directories, binary files, broken compile databases and bad configuration
are covered with the fake engine in tests/cli (the parent process handles them before libclang
is involved); here are the inputs that do reach libclang, plus a cache that cannot be read.
"""

from __future__ import annotations

import json
import re

from refcheck.caches.cache import FORMAT as CACHE_FORMAT

from robust_cli import assert_good_intact, assert_no_traceback, assert_one_line_error

PRELUDE = ("typedef struct THFloatTensor THFloatTensor;\n"
           "THFloatTensor *THFloatTensor_new(void);\n")
# clang's diagnostic style: file:line:col: error: message [tool]
DIAGNOSTIC = re.compile(r"^syntax\.c:\d+:\d+: error: .+ \[tool\]$")


def test_syntax_errors_are_tool_errors_and_what_parsed_is_still_checked(project):
    project.write("syntax.c", PRELUDE + (
        "int broken(int c) { return c + ; }\n"
        "int also_broken(void) { return 1 }\n"
        "void still_leaks(void) { THFloatTensor *t = THFloatTensor_new(); }\n"))
    r = project.check("-j", "2", ".")
    assert r.code == 2, r.err  # tool errors win over findings
    assert_no_traceback(r)
    assert_good_intact(r)
    errors = [line for line in r.lines_about("syntax.c")
              if ": error: " in line and "[tool]" in line]
    assert errors and all(DIAGNOSTIC.match(line) for line in errors), errors
    assert any("syntax.c:3:" in line and "expected expression" in line for line in errors), errors
    assert any("syntax.c:4:" in line and "expected ';'" in line for line in errors), errors
    assert "syntax.c: warning: 3 function(s) checked on a partial parse" in r.out
    assert "syntax.c:5:" in "".join(line for line in r.lines_about("[RC001 leak]"))


def test_missing_header_names_the_header_and_the_line_that_includes_it(project):
    project.write("nohdr.c", '#include "no_such_header.h"\n' + PRELUDE +
                  "void f(void) { THFloatTensor *t = THFloatTensor_new(); }\n")
    r = project.check("-j", "2", ".")
    assert r.code == 2, r.err  # tool errors win over findings
    assert_no_traceback(r)
    assert_good_intact(r)
    assert_one_line_error(r, "nohdr.c", "nohdr.c:1:10: error: 'no_such_header.h' file not found")
    # Its leak is found all the same, on the partial parse, and said to be on one.
    assert "(checked on a partial parse)" in "".join(r.lines_about("nohdr.c:4:"))


def test_not_utf8_source_through_libclang_and_every_reporter(project):
    project.write("latin1.c", PRELUDE.encode() + (
        b"void latin(void) { THFloatTensor *t = THFloatTensor_new(); /* caf\xe9 \xff */ }\n"
        b'const char *s = "\xe9\xe8";\n'))
    for fmt in ("text", "json", "sarif", "github", "html"):
        r = project.check("--format", fmt, "-o", f"out.{fmt}", "latin1.c", "good.c")
        assert r.code == 1, (fmt, r.err)
        assert_no_traceback(r)
        report = (project.root / f"out.{fmt}").read_text(encoding="utf-8")
        assert "latin1.c" in report and "good.c" in report, fmt
    text = (project.root / "out.text").read_text()
    assert "latin1.c:3:" in text and "error: 't' (acquired by THFloatTensor_new" in text


def _entries(project) -> list:
    return sorted((project.root / ".refcheck_cache" / "entries").glob("*.json"))


def test_unreadable_cache_entries_are_misses_and_the_output_is_unchanged(project):
    project.write("other.c", PRELUDE + "void o(void) { THFloatTensor *t = THFloatTensor_new(); }\n")
    cold = project.check("-j", "2", ".")
    assert cold.code == 1
    entries = _entries(project)
    assert len(entries) == 2
    # A directory where an entry should be: open() fails with IsADirectoryError, not ENOENT
    # (chmod 000 would not do it when the suite runs as root).
    entries[0].unlink()
    entries[0].mkdir()
    (entries[0] / "junk").write_text("x")
    entries[1].write_bytes(b"\x00\xff{not json")
    warm = project.check("-j", "2", ".")
    assert warm.code == 1
    assert_no_traceback(warm)
    assert warm.out == cold.out
    # The blocked entry cannot be rewritten: said once, not raised. The first failed write
    # turns caching off for the run, so the corrupt one is rebuilt only if it came back first.
    assert warm.err.count("cannot write cache") == 1, warm.err
    rebuilt = entries[1].read_bytes()
    assert rebuilt == b"\x00\xff{not json" or json.loads(rebuilt.split(b"\n", 2)[2])["format"] == CACHE_FORMAT
    # A run with the blockage gone rebuilds both and still prints the same.
    (entries[0] / "junk").unlink()
    entries[0].rmdir()
    again = project.check("-j", "2", ".")
    assert again.out == cold.out
    # A corrupt entry the warm run did not get to rewrite is reported once more, as a miss.
    expected = ["ignored 1 cache entry"] if rebuilt == b"\x00\xff{not json" else []
    assert [w for w in expected if w in again.err] == expected, again.err
    assert again.err.count("cache") == len(expected), again.err
    # Each entry: a magic line, its MAC, then the JSON body.
    assert [json.loads(e.read_bytes().split(b"\n", 2)[2])["format"] for e in _entries(project)] == [CACHE_FORMAT] * 2


def test_cache_directory_that_is_a_file_is_a_warning(project):
    project.write(".refcheck_cache", "not a directory\n")
    r = project.check("good.c")
    assert r.code == 1
    assert_no_traceback(r)
    assert_good_intact(r)
    warnings = [line for line in r.err.splitlines() if "cache" in line]
    assert len(warnings) == 1 and ".refcheck_cache" in warnings[0], r.err
