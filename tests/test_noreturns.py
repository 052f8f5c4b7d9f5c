"""Whether a callee is noreturn is asked once per declaration of a unit (`graph._unit_noreturns`),
and a new parse (a file rewritten at the same path) asks again."""

from __future__ import annotations

from cunit import graphs_of, parse_unit

from refcheck.frontend import graph

TWO_CALLERS = """void die(const char *why) __attribute__((noreturn));
void *malloc(unsigned long n);
void f(int n) { void *p = malloc(n); if (!p) die("f"); die("g"); }
void g(int n) { void *p = malloc(n); if (!p) die("g"); }
"""


def _asks(monkeypatch) -> list:
    asked = []
    real = graph.is_noreturn
    monkeypatch.setattr(graph, "is_noreturn", lambda decl: asked.append(decl.spelling) or real(decl))
    return asked


def test_one_ask_per_declaration_of_the_unit(tmp_path, monkeypatch):
    asked = _asks(monkeypatch)
    path = tmp_path / "u.c"
    path.write_text(TWO_CALLERS)
    built = graphs_of(parse_unit(path))
    assert asked.count("die") == 1 and asked.count("malloc") == 1
    assert all(any(d.kind == "error" or d.kind == "stop" for _, d in built[name].graph.nodes(data="data"))
               for name in ("f", "g"))


def test_a_new_parse_asks_again(tmp_path, monkeypatch):
    asked = _asks(monkeypatch)
    path = tmp_path / "u.c"
    path.write_text(TWO_CALLERS)
    first = parse_unit(path)
    graphs_of(first)
    path.write_text(TWO_CALLERS.replace(" __attribute__((noreturn))", ""))
    built = graphs_of(parse_unit(path))
    assert asked.count("die") == 2
    assert not any(d.kind in ("error", "stop") for _, d in built["g"].graph.nodes(data="data"))
