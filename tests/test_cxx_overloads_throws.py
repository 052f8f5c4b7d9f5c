"""C++ overloads kept apart (frontend.overloads, frontend.overloadsets), a throw unwinding the
holders it leaves (cxxcalls.unwind) and a checker throwing only where its pointer is NULL
(frontend.nullthrows)."""

from __future__ import annotations

from refcheck import ir
from cunit import CUnit

PRELUDE = """
typedef struct T T;
T *T_new(void);
void T_free(T *t);
int may_fail(T *t);
class Own {
  T *p;
 public:
  Own(T *q = 0) : p(q) {}
  ~Own() { if (p) T_free(p); }
};
static T *req(T *p, int code = 0) { if (!p) throw code; return p; }
static void req(int status) { if (status < 0) throw status; }
"""


def ops_by_text(cfg) -> dict:
    return {n: (d["data"].text, d["data"].ops) for n, d in cfg.graph.nodes(data=True)}


def test_a_throw_releases_the_holders_it_leaves(tmp_path):
    body = "int f(void) { try { Own o(T_new()); req(may_fail(0)); } catch (int) { return 1; } return 0; }"
    cfg = CUnit(tmp_path).cfg(PRELUDE + body, "f", name="u.cpp")
    unwinds = [ops for text, ops in ops_by_text(cfg).values() if text == "unwind"]
    assert unwinds and all(any(type(op) is ir.Release and op.cleanup for op in ops) for ops in unwinds)


def test_a_checker_throwing_on_null_throws_on_its_arguments_null_edge(tmp_path):
    body = "T *f(void) { try { return req(T_new()); } catch (int) { return 0; } }"
    cfg = CUnit(tmp_path).cfg(PRELUDE + body, "f", name="u.cpp")
    conds = [d["data"].cond for _, d in cfg.graph.nodes(data=True) if d["data"].cond is not None]
    assert any(type(c) is ir.NullTest for c in conds)


def test_a_checker_throwing_on_a_status_throws_on_every_path(tmp_path):
    body = "int f(int s) { try { req(s); return 0; } catch (int) { return 1; } }"
    cfg = CUnit(tmp_path).cfg(PRELUDE + body, "f", name="u.cpp")
    assert not any(type(d["data"].cond) is ir.NullTest for _, d in cfg.graph.nodes(data=True))


def test_overloads_get_record_names_by_signature(tmp_path):
    from refcheck.frontend.clangutil import qualified_name
    from refcheck.frontend.overloads import overloaded, record_names

    c = CUnit(tmp_path)
    c.write("u.cpp", PRELUDE + "int f(void) { return 0; }")
    parsed = c.parse("u.cpp")
    plain = [qualified_name(fn) for fn in parsed.functions]
    assert overloaded(parsed.functions, plain) == frozenset({"req"})
    keys = [k for k in record_names(parsed.functions, plain, frozenset({"req"})) if k.startswith("req")]
    assert len(set(keys)) == 2 and all(k.startswith("req(") for k in keys)


def test_a_dependent_call_names_the_one_overload_of_its_arity(tmp_path):
    text = (PRELUDE + "namespace chk { T *need(T *p, int c) { if (!p) throw c; return p; }\n"
            "void need(int s) { if (s < 0) throw s; } }\n"
            "template <typename X> T *T_cast(X *x);\n"
            "template <typename X> struct P { X *p; T *get(int c) const { return chk::need(T_cast(this->p), c); } };\n")
    cfg = CUnit(tmp_path).cfg(text, "get", name="u.cpp")
    callees = [op.callee for _, d in cfg.graph.nodes(data=True) for op in d["data"].ops if type(op) is ir.Call]
    assert "chk::need" in callees  # not the bare `need` of the unresolved set
