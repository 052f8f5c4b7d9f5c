"""C++ RAII holder locals (frontend.raii): the lowering of their construction, members and scope exits."""

from __future__ import annotations

from refcheck import ir
from cunit import CUnit

HOLDER = """
typedef struct T T;
T *T_new(void);
void T_free(T *t);
void use(T *t);
class Own {
  T *p;
 public:
  Own(T *q = 0) : p(q) {}
  ~Own() { if (p) T_free(p); }
  Own &operator=(T *q) { if (p) T_free(p); p = q; return *this; }
  T *take() { T *r = p; p = 0; return r; }
  T *peek() { return p; }
  void poke(T *q) { use(p); p = q; }
};
"""


def ops(tmp_path, body: str, name: str = "f"):
    cfg = CUnit(tmp_path).cfg(HOLDER + body, name, name="u.cpp")
    return [op for n in cfg.graph.nodes for op in cfg.graph.nodes[n]["data"].ops]


def releases(found) -> list:
    return [op for op in found if type(op) is ir.Release]


def test_a_holder_is_released_at_each_exit_of_its_scope(tmp_path):
    found = ops(tmp_path, "int f(int a) { Own o(T_new()); if (a) return 1; use(o.peek()); return 0; }")
    assert [op.cleanup for op in releases(found)] == [True, True]
    assert all(op.callee == "T_free" for op in releases(found))


def test_assignment_releases_the_old_value_and_detach_clears_the_holder(tmp_path):
    found = ops(tmp_path, "T *f(void) { Own o; o = T_new(); return o.take(); }")
    assert [op.cleanup for op in releases(found)] == [False, True]  # the reset's, then the scope's
    assert any(type(op) is ir.Assign and op.null and op.src is None for op in found)


def test_a_member_doing_anything_else_keeps_the_plain_call(tmp_path):
    # poke hands the held pointer to a call: not read, so lowered as the call it is.
    found = ops(tmp_path, "void f(T *x) { Own o(T_new()); o.poke(x); }")
    assert any(type(op) is ir.Call and "poke" in op.callee for op in found)


def test_a_class_whose_destructor_releases_nothing_is_no_holder(tmp_path):
    body = "struct Plain { T *p; Plain(T *q) : p(q) {} ~Plain() {} };\nvoid f(void) { Plain o(T_new()); }"
    assert not any(op.cleanup for op in releases(ops(tmp_path, body)))
