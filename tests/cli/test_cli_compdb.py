"""compile_commands.json: -p as a file or a build directory, per-unit flags, broken databases."""

from __future__ import annotations

import json

import pytest

from refcheck.workspace.compdb import clang_args, load
from refcheck.support.errors import ConfigError

TH = """
typedef struct THFloatTensor THFloatTensor;
THFloatTensor *THFloatTensor_new(void);
void THFloatTensor_free(THFloatTensor *t);
void use(THFloatTensor *t);
"""
# Clean only when the build defines RELEASE_IT: which flags a unit gets decides the result.
CONDITIONAL = """
#include "th.h"
void f(void) {
  THFloatTensor *t = THFloatTensor_new();
  use(t);
#ifdef RELEASE_IT
  THFloatTensor_free(t);
#endif
}
"""


def write_db(project, entries, where="build/compile_commands.json"):
    return project.write(where, json.dumps(entries))


def test_per_unit_flags_from_the_database_change_the_result(project):
    project.write("inc/th.h", TH)
    project.write("src/a.c", CONDITIONAL)
    project.write("src/b.c", CONDITIONAL)
    build = str(project.root / "build")
    write_db(project, [{"directory": build, "file": "../src/a.c",
                        "arguments": ["cc", "-I../inc", "-DRELEASE_IT", "-c", "../src/a.c", "-o", "a.o"]}])
    # Without the database neither unit finds th.h: both are tool errors.
    assert project.run("check", "--no-cache", "src").code == 2
    # a.c gets its own flags (clean); b.c falls back to the command line flags (a leak).
    r = project.run("check", "-p", "build", "-I", "inc", "src")
    assert r.code == 1, r.out + r.err
    assert "src/b.c:" in r.out and "src/a.c" not in r.out
    # The database file itself works as well as its directory.
    r2 = project.run("check", "-p", "build/compile_commands.json", "-I", "inc", "src")
    assert r2.out == r.out
    # With -D on the command line, b.c is clean too.
    assert project.run("check", "-p", "build", "-I", "inc", "-D", "RELEASE_IT", "src").code == 0


def test_without_paths_the_database_lists_the_units(project, fake):
    project.write("src/a.c", "void f(void) { t = LEAK(1); }\n")
    project.write("src/other.c", "void f(void) { t = LEAK(1); }\n")
    write_db(project, [{"directory": str(project.root), "file": "src/a.c", "command": "cc -c src/a.c"}])
    r = project.run("check", "-p", "build")
    assert r.code == 1 and "src/a.c" in r.out and "other.c" not in r.out


def test_database_from_configuration(project, fake):
    project.write("refcheck.toml", "compile-commands = 'build'\n")
    project.write("src/a.c", "void f(void) { LEAK_IF_FROM_DB; }\n")
    write_db(project, [{"directory": str(project.root), "file": "src/a.c",
                        "arguments": ["cc", "-DFROM_DB", "src/a.c"]}])
    assert project.run("check", "src").code == 1
    assert project.run("check", "-p", "missing-dir", "src").code == 2


def test_missing_file_in_database_is_a_tool_error_for_it_only(project, fake):
    project.write("src/a.c", "void f(void) { t = LEAK(1); }\n")
    write_db(project, [
        {"directory": str(project.root), "file": "src/a.c", "arguments": ["cc", "src/a.c"]},
        {"directory": str(project.root), "file": "src/gone.c", "arguments": ["cc", "src/gone.c"]},
    ])
    r = project.run("check", "-p", "build")
    assert r.code == 2  # the tool error wins over the findings (README "Exit codes")
    assert "src/a.c:1:" in r.out
    assert "src/gone.c: error: listed in build/compile_commands.json but not found [tool]" in r.out


@pytest.mark.parametrize("content, message", [
    ("{not json", "build/compile_commands.json: not valid JSON"),
    ('{"file": "a.c"}', "expected a JSON array of compile commands, got dict"),
    ('[1]', "entry 0: expected an object, got int"),
    ('[{"directory": "/x", "arguments": ["cc"]}]', 'entry 0: "file" must be a string, missing'),
    ('[{"directory": "build", "file": "a.c", "arguments": ["cc"]}]',
     "entry 0: \"directory\" must be an absolute path, got 'build'"),
    ('[{"directory": "/x", "file": "a.c"}]', 'entry 0: needs "arguments" or "command"'),
    ('[{"directory": "/x", "file": "a.c", "arguments": "cc a.c"}]', '"arguments" must be a list of strings'),
    ('[{"directory": "/x", "file": "a.c", "command": "cc \'a.c"}]', 'cannot split "command"'),
])
def test_broken_database_is_a_one_line_error(project, fake, content, message):
    project.write("a.c", "int x;\n")
    project.write("build/compile_commands.json", content)
    r = project.run("check", "-p", "build", "a.c")
    assert r.code == 2
    assert message in r.err
    assert r.err.count("\n") == 1


def test_nothing_in_the_database_is_ever_executed(project, fake, tmp_path):
    marker = tmp_path / "pwned"
    project.write("a.c", "int x;\n")
    write_db(project, [{"directory": str(project.root), "file": "a.c",
                        "command": f"touch {marker}; cc $(touch {marker}) `touch {marker}` a.c"}])
    assert project.run("check", "-p", "build").code == 0
    assert not marker.exists()


def test_arguments_are_filtered_and_made_absolute():
    args = clang_args(["gcc", "-c", "-Iinc", "-I", "../x", "-DFOO=1", "-o", "a.o", "src/a.c",
                       "-Xclang", "-load", "-Xclang", "plugin.so", "-fplugin=evil.so", "-std=c11",
                       "-Werror", "-Wall", "@flags.rsp", "-isystem", "sys", "-include", "pre.h",
                       "-MD", "-MF", "a.d", "-g"], "/b", "/b/src/a.c")
    assert args == ["-I/b/inc", "-I", "/x", "-DFOO=1", "-std=c11", "-Wall", "-isystem", "/b/sys",
                    "-include", "/b/pre.h"]


def test_nvcc_command_lines_keep_what_clang_understands():
    argv = ["/usr/local/cuda/bin/nvcc", "-x", "cu", "-Iinc", "-DUSE_CUDA", "-std=c++17",
            "-gencode", "arch=compute_70,code=sm_70", "-Xcompiler", "-fPIC", "--expt-relaxed-constexpr",
            "-maxrregcount=32", "-ccbin", "g++", "-c", "k.cu", "-o", "k.o"]
    assert clang_args(argv, "/b", "/b/k.cu") == ["-x", "cuda", "-I/b/inc", "-DUSE_CUDA", "-std=c++17"]


def test_first_command_for_a_file_wins(tmp_path):
    db = tmp_path / "compile_commands.json"
    db.write_text(json.dumps([
        {"directory": str(tmp_path), "file": "a.c", "arguments": ["cc", "-DFIRST", "a.c"]},
        {"directory": str(tmp_path), "file": "a.c", "arguments": ["cc", "-DSECOND", "a.c"]},
    ]))
    assert load(str(tmp_path)).args_for(str(tmp_path / "a.c")) == ["-DFIRST"]


def test_directory_without_database(tmp_path):
    with pytest.raises(ConfigError, match="no compile_commands.json in this directory"):
        load(str(tmp_path))
