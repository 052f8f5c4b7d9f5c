"""Names of expressions wholly inside a macro expansion (`frontend/clangutil.macro_invocation`):
a finding names `Py_INCREF(Py_True)` as written, not its cursor kind (`unary_operator`)."""

from refcheck.frontend.clangutil import macro_invocation


def test_a_bare_macro_is_its_name():
    assert macro_invocation(b"x = Py_True;", 4) == "Py_True"


def test_a_function_like_macro_takes_its_balanced_arguments():
    src = b"  Py_INCREF(PyTuple_GET_ITEM(args, (i + 1)));\n"
    assert macro_invocation(src, 2) == "Py_INCREF(PyTuple_GET_ITEM(args, (i + 1)))"


def test_arguments_over_lines_are_collapsed():
    assert macro_invocation(b"M (a,\n     b) + 1", 0) == "M (a, b)"


def test_no_identifier_or_unbalanced_arguments():
    assert macro_invocation(b"(x)", 0) == ""
    assert macro_invocation(b"M(a, b", 0) == "M"  # unbalanced within the limit: the name alone
