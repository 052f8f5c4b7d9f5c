"""The shape of the package: libclang stays inside refcheck/frontend/, and modules import each
other without cycles (a cycle hides which stage depends on which, and breaks on reordering)."""

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
        if name == "refcheck.frontend" or name.startswith("refcheck.frontend."):
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


def test_the_cycle_check_sees_lazy_and_type_checking_imports(tmp_path):
    # The checker must not be blind to the two ways a cycle used to hide (a TYPE_CHECKING import
    # back into the builder, an import inside a function).
    src = tmp_path / "m.py"
    src.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from refcheck.cfg import Node\n"
                   "def f():\n    from refcheck import ir\n")
    modules = {"refcheck.cfg": None, "refcheck.ir": None, "refcheck": None}
    assert {t for t, _ in _imports("refcheck.m", src, modules)} == {"typing", "refcheck.cfg", "refcheck.ir"}


def test_data_stages_load_no_libclang():
    # The CFG data, the analysis, the reporters and the parent process's modules must be usable
    # without libclang (a fully cached run never loads it).
    code = ("import sys\n"
            "import refcheck.cfg, refcheck.ir, refcheck.analysis, refcheck.cfg_dump, refcheck.runner, refcheck.cli\n"
            "import refcheck.reporters, refcheck.frontend, refcheck.frontend.compdb\n"
            "loaded = sorted(m for m in sys.modules if m == 'clang' or m.startswith('clang.'))\n"
            "assert not loaded, loaded\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
