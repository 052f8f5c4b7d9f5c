"""The CFG builder alone: shapes of graphs for each construct, independent of the analysis."""

from __future__ import annotations

from dataclasses import replace

import networkx as nx
import pytest

from refcheck import ir
from cunit import CUnit

PRELUDE = ("typedef struct T T;\nT *T_new(void);\nvoid T_free(T *t);\nvoid use(T *t);\n"
           "void THError(const char *m, ...) __attribute__((noreturn));\nvoid abort(void);\n")


def cfg_of(tmp_path, body: str, name: str = "f", ext: str = ".c"):
    cfg = CUnit(tmp_path).cfg(PRELUDE + body, name, name=f"u{ext}")
    # The shapes are checked with networkx's algorithms (paths, acyclicity) on a copy.
    g = nx.DiGraph()
    g.add_nodes_from(cfg.graph.nodes(data=True))
    g.add_edges_from((u, v, e) for u, es in cfg.graph.adjacency() for v, e in es.items())
    return replace(cfg, graph=g)


def kinds(cfg):
    return sorted(cfg.graph.nodes[n]["data"].kind for n in cfg.graph.nodes)


def ops(cfg, kind):
    return [op for n in cfg.graph.nodes for op in cfg.graph.nodes[n]["data"].ops if isinstance(op, kind)]


def test_straight_line_code_is_one_path(tmp_path):
    cfg = cfg_of(tmp_path, "void f(void) { T *t = T_new(); use(t); T_free(t); }")
    assert nx.has_path(cfg.graph, cfg.entry, cfg.exit)
    assert kinds(cfg).count("branch") == 0
    assert [type(op).__name__ for op in ops(cfg, (ir.Acquire, ir.Release))] == ["Acquire", "Release"]


def test_short_circuit_conditions_get_a_branch_per_operand(tmp_path):
    cfg = cfg_of(tmp_path, "void f(T *x, int a) { T *t; if ((t = T_new()) == 0 || a) return; T_free(t); }")
    branches = [cfg.graph.nodes[n]["data"] for n in cfg.graph.nodes if cfg.graph.nodes[n]["data"].kind == "branch"]
    assert len(branches) == 2
    assert isinstance(branches[0].cond, ir.NullTest)


@pytest.mark.parametrize("header, branches", [
    ("for (;;)", 0), ("for (i = 0;;)", 0), ("for (; i < n;)", 1), ("for (;; i++)", 0),
    ("for (i = 0; i < n;)", 1), ("for (i = 0;; i++)", 0), ("for (; i < n; i++)", 1),
    ("for (i = 0; i < n; i++)", 1),
])
def test_for_loops_with_missing_clauses(tmp_path, header, branches):
    cfg = cfg_of(tmp_path, f"void f(int n) {{ int i = 0; {header} {{ if (n) break; }} }}")
    assert kinds(cfg).count("branch") == branches + 1  # the loop test, and `if (n)` in the body
    # An infinite loop leaves only through break.
    assert nx.has_path(cfg.graph, cfg.entry, cfg.exit)


def test_do_while_zero_runs_its_body_once(tmp_path):
    cfg = cfg_of(tmp_path, "void f(void) { do { T *t = T_new(); T_free(t); } while (0); }")
    assert kinds(cfg).count("branch") == 0
    assert nx.is_directed_acyclic_graph(cfg.graph)


def test_switch_has_an_edge_per_case_and_falls_through(tmp_path):
    cfg = cfg_of(tmp_path, "void f(int c, T *t) { switch (c) { case 0: use(t); case 1: T_free(t); break;"
                           " default: break; } }")
    g = cfg.graph
    (switch,) = [n for n in g.nodes if g.nodes[n]["data"].kind == "switch"]
    assert sorted((e.get("case") for _, _, e in g.out_edges(switch, data=True)), key=str) == [0, 1, None]
    case0 = next(s for s in g.successors(switch) if g.edges[switch, s].get("case") == 0)
    case1 = next(s for s in g.successors(switch) if g.edges[switch, s].get("case") == 1)
    assert nx.has_path(g, case0, case1)  # fall-through


def test_goto_cleanup_label_joins_paths(tmp_path):
    cfg = cfg_of(tmp_path, "int f(int a) { T *t = T_new(); if (a) goto done; use(t); done: T_free(t); return 0; }")
    (release,) = [n for n in cfg.graph.nodes if any(isinstance(o, ir.Release) for o in cfg.graph.nodes[n]["data"].ops)]
    assert len(list(nx.all_simple_paths(cfg.graph, cfg.entry, release))) == 2


def test_noreturn_and_error_calls_end_their_paths(tmp_path):
    cfg = cfg_of(tmp_path, "void f(int a) { if (a) THError(\"bad\"); if (!a) abort(); }")
    g = cfg.graph
    ends = {g.nodes[n]["data"].kind for n in g.nodes if g.out_degree(n) == 0}
    assert ends == {"exit", "error", "stop"}


def test_conditional_operator_and_statement_expression_values(tmp_path):
    cfg = cfg_of(tmp_path, "void f(int a, T *x) { T *t = a ? T_new() : x; T *u = ({ T *v = T_new(); v; });"
                           " T_free(t); T_free(u); }")
    assert kinds(cfg).count("branch") == 1
    assert len(ops(cfg, ir.Acquire)) == 2


def test_throw_inside_try_reaches_the_handler(tmp_path):
    cfg = cfg_of(tmp_path, "struct E {}; void f(int a) { T *t = T_new(); try { if (a) throw E(); }"
                           " catch (E &) { T_free(t); return; } T_free(t); }", ext=".cpp")
    g = cfg.graph
    assert "error" not in kinds(cfg)
    assert any(e.get("label") == "throw" for _, _, e in g.edges(data=True))


def test_unreachable_code_is_dropped(tmp_path):
    cfg = cfg_of(tmp_path, "int f(void) { return 0; T *t = T_new(); T_free(t); }")
    assert ops(cfg, ir.Acquire) == []
