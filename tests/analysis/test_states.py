"""The analysis alone, on CFGs built directly from IR (no parsing): the state at each node, the
events of the transfer functions, the contraction of branches that cannot matter, and the rule
table discovered from its files."""

from __future__ import annotations

import shutil
from pathlib import Path

import networkx as nx

from refcheck import ir
from refcheck.analysis import analyze
from refcheck.analysis.explore import explore
from refcheck.analysis.slicing import relevant_branches
from refcheck.analysis.transfer import Transfer
from refcheck.analysis.view import state_table
from refcheck.ir.cfg import FunctionCFG, Node
from refcheck.conventions import Conventions
from refcheck.rules.events import EventKind, Via
from refcheck.findings import Location
from refcheck.rules import RULES, discover


def L(line: int) -> Location:
    return Location("f.c", line, 1)


def make(nodes: list[Node], edges: list, name: str = "f", params=()) -> FunctionCFG:
    """nodes[0] is the entry, nodes[1] the exit; edges are (a, b) or (a, b, branch)."""
    g = nx.DiGraph()
    for i, n in enumerate(nodes):
        g.add_node(i, data=n)
    for e in edges:
        g.add_edge(e[0], e[1], branch=e[2] if len(e) > 2 else None, label="")
    return FunctionCFG(name, g, 0, 1, L(1), list(params), {})


CONV = Conventions()


def test_leak_on_one_branch_state_table():
    # t = THFloatTensor_new(); if (c) free(t); return;   (c opaque)
    cfg = make([
        Node("entry", L(1)), Node("exit", L(9)),
        Node("block", ops=[ir.Acquire(L(2), "t", "THFloatTensor_new")]),
        Node("branch", L(3), cond=ir.Opaque("c"), text="c"),
        Node("block", ops=[ir.Release(L(4), ("t",), "THFloatTensor_free")]),
        Node("return", L(5)),
    ], [(0, 2), (2, 3), (3, 4, True), (3, 5, False), (4, 5)])
    table, result = state_table(cfg, CONV, RULES.values())
    assert table[3] == ["{t -> a2.0#0} a2.0#0: acquire THFloatTensor_new owned=1"]
    # t is dead at the return: its released object is forgotten (`liveness`), the owned one is not.
    assert table[5] == ["{t -> a2.0#0} a2.0#0: acquire THFloatTensor_new owned=1", "{}"]
    assert [(f.rule, f.location.line, f.origin.line) for f in result.findings] == [("RC001", 5, 2)]
    assert [s.message for s in result.findings[0].path] == [
        "acquired here by THFloatTensor_new", "taking the false branch (c)", "not released before this return"]


def test_null_test_kills_the_reference_on_its_null_edge():
    cfg = make([
        Node("entry", L(1)), Node("exit", L(9)),
        Node("block", ops=[ir.Acquire(L(2), "t", "THFloatTensor_new")]),
        Node("branch", L(3), cond=ir.NullTest("t"), text="t"),
        Node("block", ops=[ir.Release(L(4), ("t",), "THFloatTensor_free")]),
        Node("return", L(5)),
    ], [(0, 2), (2, 3), (3, 4, True), (3, 5, False), (4, 5)])
    table, result = state_table(cfg, CONV, RULES.values(), prune=False)
    assert table[4] == ["{t -> a2.0#0} a2.0#0: acquire THFloatTensor_new owned=1 nonnull"]
    assert table[5] == ["{t -> a2.0#0} a2.0#0: acquire THFloatTensor_new owned=0 null",
                        "{t -> a2.0#0} a2.0#0: acquire THFloatTensor_new owned=0 released nonnull"]
    assert result.findings == []
    # t is dead at the return and nothing is owned on either edge: one state reaches it.
    table, result = state_table(cfg, CONV, RULES.values())
    assert table[5] == ["{}"]
    assert result.findings == []


def test_transfer_emits_typed_events_without_rule_codes():
    cfg = make([
        Node("entry", L(1)), Node("exit", L(9)),
        Node("block", ops=[ir.Acquire(L(2), "t", "THFloatTensor_new"),
                           ir.Release(L(3), ("t",), "THFloatTensor_free"),
                           ir.Use(L(4), "t"),
                           ir.Release(L(5), ("t",), "THFloatTensor_free")]),
        Node("return", L(6)),
    ], [(0, 2), (2, 3)])
    tr = Transfer(cfg, CONV)
    events: list = []
    tr.step(2, tr.initial(), events)
    assert [(e.kind, e.via, e.loc.line, e.holder) for e in events] == [
        (EventKind.USED_AFTER_RELEASE, Via.USE, 4, "t"), (EventKind.RELEASED_TWICE, Via.RELEASE, 5, "t")]
    assert all(not hasattr(e, "rule") for e in events)
    result = analyze(cfg, CONV)
    assert [(f.rule, f.location.line) for f in result.findings] == [("RC003", 4), ("RC002", 5)]


def counter_loop(correlated_flag: bool) -> FunctionCFG:
    """t = new(); i = 0; while (i < n) { if (k == 1) ... ; i++; }  free(t); return;

    The loop body holds no ownership op: its branches are contracted."""
    flag = ir.Fact("k == 1", frozenset({"k"}), ("k", "==", 1))
    nodes = [
        Node("entry", L(1)), Node("exit", L(20)),
        Node("block", ops=[ir.Acquire(L(2), "t", "THFloatTensor_new"), ir.Const(L(3), "i", 0)]),  # 2
        Node("branch", L(4), cond=ir.Fact("i < n", frozenset({"i", "n"})), text="i < n"),  # 3
        Node("branch", L(5), cond=flag, text="k == 1"),  # 4
        Node("block", ops=[ir.Const(L(6), "k", 1)]),  # 5
        Node("block", ops=[ir.Const(L(7), "k", 2), ir.Use(L(7), "t")]),  # 6
        Node("block", ops=[ir.Touch(L(8), "i")]),  # 7
        Node("block", ops=[ir.Release(L(9), ("t",), "THFloatTensor_free")]),  # 8
        Node("return", L(10)),  # 9
    ]
    edges = [(0, 2), (2, 3), (3, 4, True), (3, 8, False), (4, 5, True), (4, 6, False), (5, 7), (6, 7),
             (7, 3), (8, 9)]
    if correlated_flag:  # a second test of the flag after the loop, deciding a release
        nodes[8] = Node("branch", L(9), cond=flag, text="k == 1")
        nodes.append(Node("block", ops=[ir.Release(L(11), ("t",), "THFloatTensor_free")]))  # 10
        edges = edges[:-1] + [(8, 10, True), (8, 9, False), (10, 9)]
    return make(nodes, edges)


def test_counter_loop_is_contracted_and_results_do_not_change():
    cfg = counter_loop(correlated_flag=False)
    assert relevant_branches(cfg) == set()
    full = explore(cfg, CONV, RULES.values(), contract=False)
    sliced = explore(cfg, CONV, RULES.values(), contract=True)
    assert sliced.states < full.states
    assert [(f.rule, f.location, f.message) for f in sliced.findings] == \
           [(f.rule, f.location, f.message) for f in full.findings]
    table, _ = state_table(cfg, CONV, RULES.values())
    assert table[3] == ["{t -> a2.0#0} a2.0#0: acquire THFloatTensor_new owned=1"]


def test_a_flag_that_decides_a_release_is_kept():
    cfg = counter_loop(correlated_flag=True)
    # The test after the loop decides a release; the loop's test of the same flag keeps it too.
    assert 8 in relevant_branches(cfg)
    full = explore(cfg, CONV, RULES.values(), contract=False)
    sliced = explore(cfg, CONV, RULES.values(), contract=True)
    assert [(f.rule, f.location.line) for f in sliced.findings] == \
           [(f.rule, f.location.line) for f in full.findings] == [("RC001", 10)]


RULE_FILE = '''
from refcheck.rules.events import EventKind, Via
from refcheck.rules import Rule

RULE = Rule(
    "RC099", "use-of-freed-in-call",
    "a released reference is used",
    "{what} {origin} is used after release (test rule)",
    reports=lambda ev: ev.kind is EventKind.USED_AFTER_RELEASE and ev.via is Via.USE,
    note=lambda ev: "used here",
)
'''


def test_a_new_rule_is_its_file_and_its_page(tmp_path: Path):
    rules_dir = tmp_path / "rules"
    shutil.copytree(Path(RULES["RC001"].home), rules_dir, ignore=shutil.ignore_patterns("__pycache__"))
    (rules_dir / "rc099_use_of_freed_in_call.py").write_text(RULE_FILE)
    (rules_dir / "RC099.md").write_text("# RC099 use-of-freed-in-call\n")
    table = discover(rules_dir)
    assert list(table) == [*RULES, "RC099"]
    assert table["RC099"].doc == "# RC099 use-of-freed-in-call\n"
    cfg = make([
        Node("entry", L(1)), Node("exit", L(9)),
        Node("block", ops=[ir.Acquire(L(2), "t", "THFloatTensor_new"),
                           ir.Release(L(3), ("t",), "THFloatTensor_free"), ir.Use(L(4), "t")]),
        Node("return", L(5)),
    ], [(0, 2), (2, 3)])
    result = explore(cfg, CONV, table.values())
    assert [(f.rule, f.location.line) for f in result.findings] == [("RC003", 4), ("RC099", 4)]


def test_a_rule_file_without_its_page_is_refused(tmp_path: Path):
    import pytest

    from refcheck.rules import RuleError
    (tmp_path / "rc099_x.py").write_text(RULE_FILE)
    with pytest.raises(RuleError, match="no page RC099.md"):
        discover(tmp_path)


def test_cfg_command_prints_the_states(tmp_path: Path):
    from click.testing import CliRunner

    from refcheck.commands.cli import cli
    src = tmp_path / "s.c"
    src.write_text("typedef struct THFloatTensor THFloatTensor;\n"
                   "THFloatTensor *THFloatTensor_new(void);\n"
                   "void THFloatTensor_free(THFloatTensor *t);\n"
                   "int c(void);\n"
                   "void f(void) {\n"
                   "  THFloatTensor *t = THFloatTensor_new();\n"
                   "  if (c())\n"
                   "    THFloatTensor_free(t);\n"
                   "}\n")
    out = CliRunner().invoke(cli, ["cfg", str(src), "--function", "f", "--states"])
    assert out.exit_code == 0, out.output
    exit_block = out.output.split("] exit")[1].split("\n  [")[0]
    assert "state {t -> a2.0#0} a2.0#0: acquire THFloatTensor_new owned=1" in exit_block
    # Where t was freed it is dead at the exit: the released object is forgotten (`liveness`).
    assert "state {}" in exit_block
    plain = CliRunner().invoke(cli, ["cfg", str(src), "--function", "f"])
    assert "state " not in plain.output
