"""The shape of the package: libclang stays inside refcheck/frontend/ (and the mutation tooling,
which is not the linter), and modules and stage packages import each other without cycles (a
cycle hides which stage depends on which, and breaks on reordering)."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import networkx as nx

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "refcheck"


def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: pathlib.Path, modules: dict) -> list[tuple[str, int]]:
    """(imported module, line) for every import in the file, at any depth (lazy imports inside
    functions and TYPE_CHECKING imports count: each is a dependency all the same)."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((sub if sub in modules else base, node.lineno))
    return found


def test_no_module_outside_the_frontend_imports_clang():
    modules = _modules()
    offenders = []
    for name, path in modules.items():
        if _package(name) in ("refcheck.frontend", "refcheck.validate"):
            continue
        for target, line in _imports(name, path, modules):
            if target == "clang" or target.startswith("clang."):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}")
    assert not offenders, "libclang is the frontend's business:\n" + "\n".join(offenders)


def test_no_import_cycles_among_refcheck_modules():
    modules = _modules()
    g = nx.DiGraph()
    g.add_nodes_from(modules)
    for name, path in modules.items():
        for target, _ in _imports(name, path, modules):
            if target in modules and target != name:
                g.add_edge(name, target)
    cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert not cycles, f"import cycles: {cycles}"


def _package(name: str) -> str:
    """The stage package a module belongs to (refcheck.driver for refcheck.driver.engine); the
    root's own modules (__init__, __main__) are the root's."""
    parts = name.split(".")
    return "refcheck" if len(parts) == 2 and parts[1].startswith("__") else ".".join(parts[:2])


def _package_graph() -> nx.DiGraph:
    modules = _modules()
    g = nx.DiGraph()
    for name, path in modules.items():
        g.add_node(_package(name))
        for target, _ in _imports(name, path, modules):
            if target in modules and _package(target) != _package(name) and _package(target) != "refcheck":
                g.add_edge(_package(name), _package(target))
    return g


def test_no_import_cycles_among_stage_packages():
    g = _package_graph()
    cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert not cycles, f"package-level import cycles: {cycles}"


# Which stage may import which (besides findings and support, which every stage may use): the
# pipeline of docs/architecture.md. A new edge is a design decision: add it here on purpose.
ALLOWED = {
    "refcheck.findings": set(),
    "refcheck.support": set(),
    "refcheck.ir": set(),
    "refcheck.rules": set(),
    "refcheck.filters": {"refcheck.rules"},
    "refcheck.conventions": set(),
    "refcheck.workspace": {"refcheck.conventions", "refcheck.filters"},
    "refcheck.frontend": {"refcheck.conventions", "refcheck.ir"},
    "refcheck.analysis": {"refcheck.conventions", "refcheck.ir", "refcheck.rules"},
    "refcheck.reuse": {"refcheck.conventions", "refcheck.ir", "refcheck.frontend"},
    "refcheck.caches": {"refcheck.workspace", "refcheck.frontend", "refcheck.conventions"},
    "refcheck.reporters": {"refcheck.rules"},
    "refcheck.driver": {"refcheck.conventions", "refcheck.workspace", "refcheck.frontend", "refcheck.ir",
                        "refcheck.analysis", "refcheck.reuse", "refcheck.caches", "refcheck.filters",
                        "refcheck.rules"},
    "refcheck.commands": {"refcheck.conventions", "refcheck.workspace", "refcheck.frontend", "refcheck.ir",
                          "refcheck.analysis", "refcheck.driver", "refcheck.caches", "refcheck.filters",
                          "refcheck.reporters", "refcheck.rules", "refcheck.validate"},
    "refcheck.validate": {"refcheck.conventions", "refcheck.frontend", "refcheck.driver", "refcheck.workspace",
                          "refcheck.ir", "refcheck.analysis", "refcheck.rules"},
    "refcheck.ruledocs": {"refcheck.rules"},
    # The generators of the presets' tables live beside the data they write, in the record's terms.
    "refcheck.data": {"refcheck.conventions"},
    "refcheck": {"refcheck.commands"},
}
EVERYONE = {"refcheck.findings", "refcheck.support"}


def test_stage_packages_import_only_the_stages_before_them():
    g = _package_graph()
    assert set(g.nodes) <= set(ALLOWED), f"a stage package without a place: {set(g.nodes) - set(ALLOWED)}"
    wrong = [f"{a} -> {b}" for a, b in g.edges if b not in ALLOWED.get(a, set()) | EVERYONE]
    assert not wrong, "stage dependencies outside the pipeline:\n" + "\n".join(sorted(wrong))


def test_the_stage_check_fails_on_a_filter_importing_a_reporter():
    g = _package_graph()
    g.add_edge("refcheck.filters", "refcheck.reporters")
    wrong = [f"{a} -> {b}" for a, b in g.edges if b not in ALLOWED.get(a, set()) | EVERYONE]
    assert wrong == ["refcheck.filters -> refcheck.reporters"]


def test_the_cycle_check_sees_lazy_and_type_checking_imports(tmp_path):
    # The checker must not be blind to the two ways a cycle used to hide (a TYPE_CHECKING import
    # back into the builder, an import inside a function).
    src = tmp_path / "m.py"
    src.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from refcheck.ir.cfg import Node\n"
                   "def f():\n    from refcheck import ir\n")
    modules = {"refcheck.ir.cfg": None, "refcheck.ir": None, "refcheck": None}
    assert {t for t, _ in _imports("refcheck.m", src, modules)} == {"typing", "refcheck.ir.cfg", "refcheck.ir"}


def test_data_stages_load_no_libclang():
    # The CFG data, the analysis, the reporters and the parent process's modules must be usable
    # without libclang (a fully cached run never loads it).
    code = ("import sys\n"
            "import refcheck.ir.cfg, refcheck.ir, refcheck.analysis, refcheck.commands.cfg_dump, refcheck.driver.runner, refcheck.commands.cli\n"
            "import refcheck.reporters, refcheck.frontend, refcheck.workspace.compdb\n"
            "loaded = sorted(m for m in sys.modules if m == 'clang' or m.startswith('clang.'))\n"
            "assert not loaded, loaded\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
