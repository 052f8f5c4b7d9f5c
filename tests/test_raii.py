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


COPYING = """
typedef struct T T;
T *T_new(void);
void T_free(T *t);
void T_retain(T *t);
inline T *xref(T *t) { T_retain(t); return t; }
class Ptr {
  T *m;
 public:
  Ptr(T *t, bool ref = false) : m(ref ? xref(t) : t) {}
  ~Ptr() { T *tmp = m; m = 0; if (tmp) T_free(tmp); }
  T *give() { T *tmp = m; m = 0; return tmp; }
};
"""


def copying_ops(tmp_path, body: str):
    cfg = CUnit(tmp_path).cfg(COPYING + body, "f", name="u.cpp")
    return [op for n in cfg.graph.nodes for op in cfg.graph.nodes[n]["data"].ops]


def test_a_destructor_releasing_a_copy_of_the_member_makes_a_holder(tmp_path):
    found = copying_ops(tmp_path, "int f(int a) { Ptr p(T_new()); if (a) return 1; return 0; }")
    assert [op.cleanup for op in releases(found)] == [True, True]


def test_a_flag_argument_makes_the_construction_a_copy(tmp_path):
    found = copying_ops(tmp_path, "T *f(T *t) { Ptr p(t, true); return p.give(); }")
    assert any(type(op) is ir.Retain for op in found)
    found = copying_ops(tmp_path, "T *f(T *t) { Ptr p(t); return p.give(); }")
    assert not any(type(op) is ir.Retain for op in found)


def test_an_unknown_flag_keeps_the_plain_call(tmp_path):
    found = copying_ops(tmp_path, "void f(T *t, bool b) { Ptr p(t, b); }")
    assert not any(op.cleanup for op in releases(found))


TEMPLATED = """
typedef struct T T;
T *T_new(void);
void T_free(T *t);
template <typename X> class Base {
 protected:
  X *p;
 public:
  Base(X *x = nullptr) : p(x) {}
};
template <typename X> class Owned : public Base<X> {
 protected:
  explicit Owned(X *x) : Base<X>(x) {}
 public:
  static Owned<X> consuming(X *x) { return Owned<X>(x); }
  Owned(const Owned<X> &o) : Base<X>(o.p) {}
  ~Owned() { if (this->p) T_free(this->p); }
  X *give() { X *r = this->p; this->p = nullptr; return r; }
};
"""


def templated_ops(tmp_path, body: str, std: str):
    cfg = CUnit(tmp_path).cfg(TEMPLATED + body, "f", name="u.cpp", clang_args=["-std=" + std])
    return [op for n in cfg.graph.nodes for op in cfg.graph.nodes[n]["data"].ops]


def test_a_class_template_holder_is_read_through_its_base_and_its_factory(tmp_path):
    # C++11 copies the factory's temporary (an elidable copy), C++17 does not: the same holder.
    for std in ("c++11", "c++17"):
        found = templated_ops(tmp_path, "int f(int a) { Owned<T> o = Owned<T>::consuming(T_new()); "
                                        "if (a) return 1; return 0; }", std)
        assert [op.cleanup for op in releases(found)] == [True, True], std


def test_a_returned_factory_holder_hands_its_argument_to_the_caller(tmp_path):
    for std in ("c++11", "c++17"):
        found = templated_ops(tmp_path, "Owned<T> f(void) { return Owned<T>::consuming(T_new()); }", std)
        assert any(type(op) is ir.Escape for op in found), std
