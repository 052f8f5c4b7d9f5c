"""Small helpers over clang.cindex that the binding lacks: operator kinds, constants, names."""

from __future__ import annotations

import re

import os
from functools import lru_cache

import clang.cindex as ci

from refcheck.frontend import binding
from refcheck.frontend.binding import (KIDS, STMT_EXPR, canonical_kind_id, children, children_by_key,  # noqa: F401
                                       cursor_key, extent_places, file_named, kind_of, lib, place,
                                       folded, raw, referenced, semantic_parent, spelling, type_of)  # STMT_EXPR, kind_of, referenced re-exported
from refcheck.findings import Location

K = ci.CursorKind
T = ci.TypeKind

# CXBinaryOperatorKind / CXUnaryOperatorKind values (clang-c/Index.h, LLVM 17+).
BIN = {3: "*", 4: "/", 5: "%", 6: "+", 7: "-", 8: "<<", 9: ">>", 10: "<=>", 11: "<", 12: ">", 13: "<=",
       14: ">=", 15: "==", 16: "!=", 17: "&", 18: "^", 19: "|", 20: "&&", 21: "||", 22: "=", 23: "*=",
       24: "/=", 25: "%=", 26: "+=", 27: "-=", 28: "<<=", 29: ">>=", 30: "&=", 31: "^=", 32: "|=", 33: ","}
UN = {1: "post++", 2: "post--", 3: "++", 4: "--", 5: "&", 6: "*", 7: "+", 8: "-", 9: "~", 10: "!",
      11: "__real", 12: "__imag", 13: "__extension__", 14: "co_await"}


# What is asked of one cursor several times in a build (an operator three times on THTensor.c, a
# location or a constant about 1.4 times) is kept on the cursor object, as the binding keeps its
# own answers (`_referenced`, `_type`): the cursors of a build's walk live until its end.
_OP, _CONST, _LOC, _VALUE = "_refcheck_op", "_refcheck_const", "_refcheck_loc", "_refcheck_value"


# (getattr with a default, not try/except: a raised AttributeError costs more than the call it
# saves, and most asks are first asks.)
_UNSET = object()


def binop(c) -> str:
    op = getattr(c, _OP, None)
    if op is None:
        op = BIN.get(binding.binary_operator(c), "?")
        setattr(c, _OP, op)
    return op


def unop(c) -> str:
    op = getattr(c, _OP, None)
    if op is None:
        op = UN.get(binding.unary_operator(c), "?")
        setattr(c, _OP, op)
    return op



# What clang folds a cursor to (binding.folded: compiled where the walk is).
_folded = folded


def constant(c) -> int | None:
    """The integer value of a constant expression, or None."""
    value = getattr(c, _CONST, _UNSET)
    if value is _UNSET:
        value = _folded(c, False)
        setattr(c, _CONST, value)
    return value


def value_of(c) -> int | float | None:
    """What clang folds `c` to as it is typed, the conversions at its top included: an integer
    (an unsigned one as such), a floating value, or None. `constant(strip(c))` is the value before
    those conversions: `unsigned char k = 300;` initializes k from a cursor whose value is 44."""
    value = getattr(c, _VALUE, _UNSET)
    if value is _UNSET:
        value = _folded(c, True)
        setattr(c, _VALUE, value)
    return value


def converted_constant(c) -> int | None:
    """The integer constant `c` is once converted to its own type (an assignment's right side as
    the local receives it, a comparison's operand as it is compared): the folded integer, or the
    unconverted constant where a floating type holds it exactly; None where it folds to nothing
    or a floating type rounds it."""
    k = constant(strip(c))
    if k is None:
        return None
    value = value_of(c)
    if type(value) is float:
        return k if value == k else None
    return value


# Types an operand of these kinds is promoted from to `int` (or, for an enum, to its underlying
# type) without changing its value.
_PROMOTED = frozenset(k.value for k in (T.BOOL, T.CHAR_U, T.UCHAR, T.CHAR_S, T.SCHAR, T.SHORT, T.USHORT, T.ENUM))
_PROMOTED_TO = frozenset(k.value for k in (T.INT, T.UINT))


def compared_as_held(operand, ref) -> bool:
    """Whether a comparison operand (`operand`, its conversions included) compares the value of
    the variable `ref` (the operand stripped to its reference) unchanged: it is compared in the
    variable's own type, or promoted to `int`, and no cast stands between them. Not when the
    comparison converts it to a wider or other-signed type (`int i = -1; i < 0u` compares
    4294967295), nor through a cast (`(int)u`), whose type an instance key may have erased
    (reuse/unevaluated.py: a cast of a variable reaches no folded value)."""
    held = canonical_kind(ref)
    compared = canonical_kind(operand)
    if not (held == compared or (held in _PROMOTED and compared in _PROMOTED_TO)):
        return False
    return strip(operand, _IMPLICIT) is ref


def location(c) -> Location:
    """Where a user reads it: for code from a macro, the macro's call site."""
    loc = getattr(c, _LOC, None)
    if loc is not None:
        return loc
    # One instantiation query, no SourceLocation or File objects (binding.place).
    at = place(c)
    places = _PLACES
    loc = places.get(at) if places is not None else None
    if loc is None:
        loc = Location(name_of_file(at[0]), at[1], at[2])
        if places is not None:
            places[at] = loc
    setattr(c, _LOC, loc)
    return loc


def end_location(c) -> Location:
    f, line, column, _ = extent_places(c)[1]
    return Location(name_of_file(f), line, max(1, column - 1))


_FILES: dict | None = None  # file pointer -> name, while one function's graph is built
# Other modules' answers kept while one function's graph is built (`build_memo`).
_BUILD: dict | None = None
# binding.place's answer -> its Location, while one function's graph is built: THTensor.c's
# builds ask 81,337 cursors for 7,324 places (the cursors of one macro expansion share one), and
# a frozen dataclass costs five times the lookup (31 -> 12 ms).
_PLACES: dict | None = None


def name_of_file(pointer: int) -> str:
    """The name of a file by its CXFile pointer (`binding.place`), "" for none. `File.name` asks
    libclang and decodes a string each time; a build asks for a handful of files a few hundred
    thousand times. Cached only within one build: a pointer could name another file once its
    unit is gone."""
    if not pointer:
        return ""
    files = _FILES
    if files is None:
        return file_named(pointer).name
    name = files.get(pointer)
    if name is None:
        name = files[pointer] = file_named(pointer).name
    return name




_KIDS: dict = {}


def nested(top, descend):
    """Every cursor of `top`, in order, and the children of those `descend(cursor)` accepts
    (namespaces, extern "C" blocks, classes), depth first: a unit's top-level walk."""
    stack = [iter(top)]
    while stack:
        c = next(stack[-1], None)
        if c is None:
            stack.pop()
            continue
        yield c
        if descend(c):
            stack.append(iter(c.get_children()))


def argument_types(t) -> list:
    """A function type's parameter types: `Type.argument_types()` defines a class at every call,
    whose objects sit in reference cycles that only a collection frees (tests/test_gcpause.py)."""
    lib = ci.conf.lib
    return [lib.clang_getArgType(t, i) for i in range(max(lib.clang_getNumArgTypes(t), 0))]


def kids(c) -> list:
    """A cursor's children, listed once per function build: each listing is a walk through the
    binding (a Python callback per child), and the builder looks at most nodes several times.
    Callers must not mutate the list."""
    found = getattr(c, KIDS, None)  # a cursor of the function's walk (binding.children_by_key)
    if found is None:
        key = cursor_key(c)
        found = _KIDS.get(key)
        if found is None:
            found = _KIDS[key] = children(c)
    return found


def build_memo() -> dict | None:
    """A dict that lives while one function's graph is built (None outside a build), for answers
    that may hold the unit's objects (a Type holds its unit): gone with the build, they never keep
    a parse alive past its check."""
    return _BUILD


def reset_kids(fn=None) -> None:
    """Forget the listings of the last function; with `fn`, list every cursor under it at once
    and keep file names until the next reset."""
    global _FILES, _CANON, _RECORDS, _TEXTS, _PLACES, _BUILD
    _KIDS.clear()
    _FILES = _CANON = _RECORDS = _TEXTS = _PLACES = _BUILD = None
    if fn is not None:
        children_by_key(fn, _KIDS)
        _BUILD = {}
        _FILES = {}
        _PLACES = {}
        _CANON = {}
        _RECORDS = {}
        _TEXTS = {}


# Kind ids for which CursorKind.is_expression() holds (a libclang call per ask), over the kinds
# the binding knows (kind_of reads the same table).
EXPRESSION_IDS = frozenset(k.value for k in ci.CursorKind.get_all_kinds() if k.is_expression())


def is_expression(c) -> bool:
    """`c.kind.is_expression()` as a set lookup."""
    return c._kind_id in EXPRESSION_IDS


STRIPPED = frozenset(k.value for k in (K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR,
                                         K.CXX_FUNCTIONAL_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR,
                                         K.CXX_CONST_CAST_EXPR))


# What strip looks through but explicit casts.
_IMPLICIT = STRIPPED - frozenset(k.value for k in (
    K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR,
    K.CXX_CONST_CAST_EXPR))


def strip(c, through=STRIPPED):
    """Look through parentheses, implicit conversions and casts (`through`: the kinds of those)."""
    # By kind id: the most called helper of the build, and `.kind` costs a property and a lookup.
    while c._kind_id in through:
        children = getattr(c, KIDS, None)  # kids(c), without the call for a cursor of the walk
        if children is None:
            children = kids(c)
        if not children:
            return c
        c = children[-1]
    return c


def constant_condition(cond):
    """`if constexpr (a == b)`: libclang gives the constant expression the comparison's kind and
    the comparison as its one child; the comparison itself, which conditions read."""
    c = strip(cond)
    while c._kind_id == K.BINARY_OPERATOR.value:
        children = kids(c)
        if len(children) != 1:
            break
        cond = c = strip(children[0])
    return cond


# The compiled twin (_cquery.c), the same steps without a Python frame per ask; this one is the
# fallback and the tests' oracle.
PURE_STRIP = strip
if binding.native.CHOICE.module is not None:
    binding.native.CHOICE.module.set_listing(kids, STRIPPED)
    strip = binding.native.CHOICE.module.strip  # noqa: F811


POINTER_IDS = frozenset(k.value for k in (T.POINTER, T.BLOCKPOINTER, T.MEMBERPOINTER, T.NULLPTR))

# bytes of a CXType -> its canonical TypeKind id, while one function's graph is built: a build
# asks of a few dozen distinct types (58 on THTensor.c) half a million times. Per build, as
# the type's pointers mean nothing once its unit is gone.
_CANON: dict | None = None
# Per build: a type's bytes -> the record it points to (`handles.record_name`), or None outside one.
_RECORDS: dict | None = None


def record_cache() -> dict | None:
    return _RECORDS


def canonical_kind(c) -> int:
    """The TypeKind id of a cursor's canonical type (`c.type.get_canonical().kind.value`)."""
    t = type_of(c)
    canon = _CANON
    if canon is None:
        return canonical_kind_id(t)
    key = bytes(t)
    k = canon.get(key)
    if k is None:
        k = canon[key] = canonical_kind_id(t)
    return k


PURE_CANONICAL_KIND = canonical_kind
if binding.canonical_kind is not None:  # the compiled walk's (binding.py)
    canonical_kind = binding.canonical_kind  # noqa: F811


def named_parameter(e):
    """The parameter declaration `e` (through casts) names, else None."""
    e = strip(e)
    ref = referenced(e) if kind_of(e) == K.DECL_REF_EXPR else None
    return ref if ref is not None and kind_of(ref) == K.PARM_DECL else None


def has_pointer_type(c) -> bool:
    """The cursor's type is a pointer (canonically: typedefs looked through)."""
    return canonical_kind(c) in POINTER_IDS


def points_to_const(param) -> bool:
    """A pointer parameter whose pointee is const-qualified (`const char *`, `const GList *`)."""
    t = param.type.get_canonical()
    return t.kind == T.POINTER and t.get_pointee().is_const_qualified()


# Typedef names of truth values; read by name, so instance keys hold it (reuse/shapes.py).
BOOLEANS = frozenset({"gboolean", "bool", "_Bool", "BOOL", "dbus_bool_t"})


def returns_truth(fn) -> bool:
    """The function's result is a truth value (`gboolean`, `bool`): its success is TRUE, not 0."""
    t = fn.result_type
    return t.spelling in BOOLEANS or t.get_canonical().kind == T.BOOL


def returns_pointer(fn) -> bool:
    """The function's result is a pointer."""
    return fn.result_type.get_canonical().kind == T.POINTER


def unlike_result(fn, param) -> bool:
    """A pointer parameter of another type than the function's pointer result, neither of them
    `void *`: the result is never the parameter moved, as a realloc's is."""
    result, own = fn.result_type.get_canonical(), param.type.get_canonical()
    if result.kind != T.POINTER or own.kind != T.POINTER:
        return False
    a, b = result.get_pointee().get_canonical(), own.get_pointee().get_canonical()
    if T.VOID in (a.kind, b.kind):
        return False
    return a.spelling.replace("const ", "") != b.spelling.replace("const ", "")


def returns_value(fn) -> bool:
    """The function's result type is known and not void (a lambda's is not known here)."""
    return fn.result_type.get_canonical().kind not in (T.VOID, T.INVALID)


FUNCTION_KINDS = {K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.FUNCTION_TEMPLATE,
                  K.CONVERSION_FUNCTION, K.LAMBDA_EXPR}

SCALAR_KINDS = {T.VOID, T.BOOL, T.CHAR_U, T.UCHAR, T.CHAR16, T.CHAR32, T.USHORT, T.UINT, T.ULONG,
                T.ULONGLONG, T.UINT128, T.CHAR_S, T.SCHAR, T.WCHAR, T.SHORT, T.INT, T.LONG, T.LONGLONG,
                T.INT128, T.FLOAT, T.DOUBLE, T.LONGDOUBLE, T.ENUM}


SCALAR_IDS = frozenset(k.value for k in SCALAR_KINDS)


def has_scalar_type(c) -> bool:
    """The cursor's type is known not to be a pointer (dependent types in templates are not known)."""
    return canonical_kind(c) in SCALAR_IDS


def qualified_name(decl) -> str:
    """ns::Class::name for C++ declarations, the plain name in C."""
    parts = [spelling(decl)]
    p = semantic_parent(decl)
    while p is not None and kind_of(p) in (K.NAMESPACE, K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE):
        if spelling(p):
            parts.append(spelling(p))
        p = semantic_parent(p)
    return "::".join(reversed(parts))


def is_noreturn(decl, type_spelling: str | None = None) -> bool:
    """`__attribute__((noreturn))` shows in the function's type; `_Noreturn` and `[[noreturn]]` only
    as an unexposed attribute, whose own source text we read. (Not its tokens: for an attribute
    spelled through a macro such as TH_API, libclang returns tokens from the macro's definition
    onward, which can run into an unrelated `noreturn` further down the header.)
    `type_spelling`: `decl.type.spelling` where the caller has it already (the instance keys ask
    of every declaration a unit's keyed bodies name: THTensor.c's 3,900)."""
    if decl is None:
        return False
    if "noreturn" in (decl.type.spelling if type_spelling is None else type_spelling):
        return True
    for child in children(decl):  # compiled: no Python callback per parameter
        if child._kind_id != _UNEXPOSED_ATTR:
            continue
        start, end = child.extent.start, child.extent.end
        if start.file is None or end.file is None or start.file.name != end.file.name:
            continue
        if 0 <= end.offset - start.offset <= 64:
            text = read_source(start.file.name)[start.offset:end.offset]
            if b"noreturn" in text.lower():
                return True
    return False


_UNEXPOSED_ATTR = K.UNEXPOSED_ATTR.value
_TEXTS: dict | None = None  # path -> bytes, while one function's graph is built


def read_source(path: str) -> bytes:
    """A source file's bytes, for text at cursor extents (expressions, attributes). Cached by
    the file's identity and not only its name: a process that checks a file rewritten at the same
    path (the differential oracle's batches, a mutation's re-check) must not read the old bytes.
    Within one function's build (`reset_kids`) by its name alone: a build asks for the text of
    every expression it lowers (20,015 times over THTensor.c's builds, a stat each), and no
    file is rewritten while one function's graph is built."""
    texts = _TEXTS
    if texts is not None:
        got = texts.get(path)
        if got is None:
            got = texts[path] = _read_fresh(path)
        return got
    return _read_fresh(path)


def _read_fresh(path: str) -> bytes:
    try:
        st = os.stat(path)
    except OSError:
        return b""
    return _read_source(path, st.st_ino, st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=64)
def _read_source(path: str, ino: int, size: int, mtime_ns: int) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def expr_text(c, limit: int = 60, macros: bool = False) -> str:
    """The source text of an expression, for messages (macro bodies show as their call site;
    `macros`: one wholly inside a macro expansion as that macro's invocation)."""
    text = ""
    start, end = extent_places(c)
    name = name_of_file(start[0])
    if name and end[0] and name == name_of_file(end[0]) and end[3] > start[3]:
        text = read_source(name)[start[3]:end[3]].decode("utf-8", "replace")
        text = " ".join(text.split())
    if not text:
        text = spelling(c)
    if not text and macros and name and end[0] == start[0] and end[3] == start[3]:
        # Wholly inside one macro expansion and nameless (`Py_INCREF (Py_True)`'s cast, a
        # `PyTuple_GET_ITEM` subscript): both ends are the expansion's start, so name it by the
        # macro's invocation as written there rather than by its cursor kind.
        text = macro_invocation(read_source(name), start[3])
    if not text:
        text = kind_of(c).name.lower()
    return text if len(text) <= limit else text[: limit - 3] + "..."


_MACRO_NAME = re.compile(rb"[A-Za-z_]\w*")


def macro_invocation(source: bytes, offset: int, limit: int = 200) -> str:
    """The macro invocation written at `offset`: its name and, where one follows, its
    parenthesised arguments (balanced, within `limit` bytes), whitespace collapsed; "" if none."""
    m = _MACRO_NAME.match(source, offset)
    if m is None:
        return ""
    end, rest = m.end(), source[m.end():m.end() + limit]
    stripped = rest.lstrip()
    if stripped.startswith(b"("):
        depth, start = 0, len(rest) - len(stripped)
        for i in range(start, len(rest)):
            depth += {40: 1, 41: -1}.get(rest[i], 0)
            if depth == 0:
                end += i + 1
                break
    return " ".join(source[offset:end].decode("utf-8", "replace").split())


def declared_by_macro(decl) -> bool:
    """Whether a local is a macro's own, hidden from the user (`__s1` in `g_assert_cmpstr`, `_ptr`
    in `g_clear_pointer`, `__p` in `g_new`): its declaration is written by a macro (its location
    where a user reads it is the macro's invocation, not its name), its name is one of the
    identifiers C reserves to the implementation (a leading underscore, C11 7.1.3: how library
    headers keep their macros' locals apart from the user's names), and it spells none of the
    invocation's arguments, whole or pasted between underscores: a macro declaring a local the
    user names (`DECLARE (x)`) or pastes from one (TH_TENSOR_APPLY's `src_counter`) is not."""
    name = binding.spelling(decl)
    if not name.startswith("_"):
        return False
    f, _, _, offset = binding.place(decl)
    path = name_of_file(f)
    if not path:
        return False
    source = read_source(path)
    m = _MACRO_NAME.match(source, offset)
    if m is None or m.group().decode() == name:
        return False
    words = set(re.findall(r"[A-Za-z_]\w*", macro_invocation(source, offset, limit=2000)[m.end() - offset:]))
    return not any(re.search(rf"(?<![A-Za-z0-9]){re.escape(w)}(?![A-Za-z0-9])", name) for w in words)


def externally_visible(fn) -> bool:
    """A definition other units can call: external linkage (not `static`)."""
    try:
        return fn.linkage == ci.LinkageKind.EXTERNAL
    except ValueError:  # a linkage kind this binding does not know
        return False


def enumerators(c) -> frozenset:
    """The values of the enumerators of `c`'s enum type (empty when it is not an enum)."""
    t = c.type.get_canonical()
    if t.kind != ci.TypeKind.ENUM:
        return frozenset()
    return frozenset(k.enum_value for k in t.get_declaration().get_children()
                     if k.kind == ci.CursorKind.ENUM_CONSTANT_DECL)
