"""Pathological but legal functions (gcc accepts every one), all checked in one real run.

One run with -j 2 holds them all next to good.c, so each test also shows that its neighbors'
troubles cost nothing else. A function is either checked (its planted leak is reported) or
reported as not fully checked, by name; it is never silently skipped, and no Python error
(RecursionError above all) reaches the output.
"""

from __future__ import annotations

import pytest

import pathological as gen
from robust_cli import (Project, assert_good_intact, assert_no_traceback, assert_one_line_error,
                        gcc_accepts)

SHAPES = {
    "branches.c": gen.flat_branches(20_000),
    "deep.c": gen.deep_nesting(3_000),
    "unbraced.c": gen.unbraced_nesting(3_000),
    "switch.c": gen.huge_switch(5_000),
    "chain.c": gen.else_if_chain(3_000),
    "spaghetti.c": gen.goto_spaghetti(300),
    "irreducible.c": gen.irreducible_loop(),
}


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    project = Project(tmp_path_factory.mktemp("shapes"))
    for name, text in SHAPES.items():
        gcc_accepts(project.write(name, text))
    # --full-path: test_irreducible_loop... is about the branches the path takes, which do not
    # mention the leaked reference and are left out of the default view.
    r = project.check("--no-cache", "--full-path", "-j", "2", ".", timeout=300)
    return r


def leak_line(r, name: str) -> str:
    lines = [line for line in r.lines_about(name) if "[RC001 leak]" in line]
    assert len(lines) == 1, (name, lines)
    return lines[0]


def test_the_run_completes_with_every_result(shapes):
    assert shapes.code == 2, shapes.err  # tool errors win over findings
    assert_no_traceback(shapes)
    assert "RecursionError" not in shapes.out + shapes.err
    assert_good_intact(shapes)
    assert f"in {len(SHAPES) + 1} files" in shapes.err


def test_20000_flat_branches_are_checked_or_named_as_not_fully_checked(shapes):
    lines = [line for line in shapes.lines_about("branches.c") if ": error: " in line]
    assert len(lines) == 1, lines
    # Today the state bound (50,000) stops it; a leak at the return would be the better answer.
    assert (lines[0].startswith("branches.c:5:5: error: function 'branches' not fully checked: ")
            or "branches.c:20008:3: error: 't' (acquired by THFloatTensor_new at line 8)"
            in lines[0]), lines[0]


def test_3000_braced_levels_are_a_clear_parse_error_not_a_crash(shapes):
    # clang stops at 256 nested brackets by default (gcc has no limit): a per-file tool error.
    assert_one_line_error(shapes, "deep.c", "bracket nesting level exceeded maximum of 256")


def test_3000_unbraced_levels_are_checked_without_recursion_error(shapes):
    assert leak_line(shapes, "unbraced.c").startswith(
        "unbraced.c:3009:1: error: 't' (acquired by THFloatTensor_new at line 7)")


def test_5000_case_switch_finds_the_leak_in_the_default_arm(shapes):
    assert leak_line(shapes, "switch.c").startswith(
        "switch.c:5011:1: error: 't' (acquired by THFloatTensor_new at line 7)")


def test_5000_case_switch_is_never_silently_skipped(shapes):
    lines = [line for line in shapes.lines_about("switch.c") if ": error: " in line]
    assert len(lines) == 1, lines
    assert "[RC001 leak]" in lines[0] or "function 'dispatch' not fully checked" in lines[0]


def test_3000_arm_else_if_chain_finds_the_leak(shapes):
    assert leak_line(shapes, "chain.c").startswith(
        "chain.c:3009:1: error: 't' (acquired by THFloatTensor_new at line 7)")


def test_goto_spaghetti_with_300_labels(shapes):
    assert leak_line(shapes, "spaghetti.c").startswith(
        "spaghetti.c:909:3: error: 't' (acquired by THFloatTensor_new at line 8)")


def test_irreducible_loop_entered_twice_by_goto(shapes):
    assert leak_line(shapes, "irreducible.c").startswith(
        "irreducible.c:21:3: error: 't' (acquired by THFloatTensor_new at line 7)")
    # The path printed for it enters the cycle at B, not at its top.
    assert "irreducible.c:8:7: note: taking the true branch (c)" in shapes.out


@pytest.fixture(scope="module")
def deep_raised(tmp_path_factory):
    """deep.c again, with clang's bracket limit raised past its depth, as a user would."""
    project = Project(tmp_path_factory.mktemp("deep"))
    project.write("deep.c", SHAPES["deep.c"])
    return project.check("--no-cache", "-j", "2", "--clang-arg=-fbracket-depth=4000", ".")


def test_libclang_crash_on_deep_nesting_costs_that_unit_only(deep_raised):
    assert deep_raised.code == 1, deep_raised.err
    assert_no_traceback(deep_raised)
    assert_good_intact(deep_raised)
    lines = [line for line in deep_raised.lines_about("deep.c") if ": error: " in line]
    assert len(lines) == 1, lines
    assert ("[RC001 leak]" in lines[0]
            or "not checked: the worker process died (signal SIGSEGV)" in lines[0]), lines[0]


def test_3000_braced_levels_are_checked_when_clang_allows_them(deep_raised):
    assert leak_line(deep_raised, "deep.c").startswith(
        "deep.c:6009:1: error: 't' (acquired by THFloatTensor_new at line 3007)")
