"""The one place that reaches past the clang.cindex binding's public surface.

Each use is for speed or for something the binding does not expose; `tests/test_frontend.py`
checks every one against the installed binding, so an upgrade that changes them fails a test
instead of silently changing results. One private attribute is also read outside this module:
`Cursor._kind_id` in the graph build's innermost loops (clangutil, expressions, conditions,
graph), where even `kind_of`'s call measured; `kind_of` reads the same attribute and its test
covers them.
"""

from __future__ import annotations

import ctypes
from functools import lru_cache

import clang.cindex as ci

from refcheck.frontend import native

# GNU statement expressions `({ ... })`: the binding has no named CursorKind for id 121
# (CXCursor_StmtExpr in clang-c/Index.h), so it is looked up by number.
STMT_EXPR = ci.CursorKind.from_id(121)


def cursor_key(c) -> bytes:
    """A hashable identity of a cursor. `Cursor.__eq__` is a call into libclang per comparison;
    the fields clang_equalCursors compares (kind, xdata, the three data pointers) make a key that
    dict lookups compare in Python: the CXCursor's own 32 bytes, which `bytes` reads in one step
    (a tuple of the five fields costs three times as much, and the walk below makes two keys per
    cursor). (Not `Cursor.hash`: a 32-bit hash, which collides between distinct cursors of one
    large body, and a collision here would give a cursor another's children.)"""
    return bytes(c)


# The attribute by which each cursor of such a walk also holds its children: reading it is
# cheaper than building the cursor's key.
KIDS = "_refcheck_kids"


def children_by_key(fn, found: dict) -> dict:
    """Fills `found`, cursor_key -> children, for every cursor under a function (and it), from
    one recursive clang_visitChildren. `Cursor.get_children` makes a visit of its own per cursor,
    each with a fresh ctypes callback and a libclang call per child for its null-cursor assert;
    over a body of thousands of cursors that was most of the graph build's time.

    A statement cursor carries its nearest enclosing declaration (data[0]), which a recursive
    walk sets and `get_children` on a statement leaves None: the keys of this walk are its own,
    so a cursor reached another way is not found here and the caller lists its children itself.
    Should the walk not be the plain pre-order this relies on, `found` is left empty."""
    tu = fn._tu
    root: list = []
    found[cursor_key(fn)] = root
    strays: list = []

    def visit(child, parent, _):
        child._tu = tu  # as get_children does: the cursor keeps its unit alive
        key = bytes(parent)  # cursor_key, inlined
        siblings = found.get(key)
        if siblings is None:
            # Pre-order: every parent but the root was met as a child first. The root itself,
            # the parent of the first child, comes back under another key when it is a
            # statement (a lambda: data[0] None).
            strays.append(key)
            if root:
                return 0  # CXChildVisit_Break
            siblings = found[key] = root
        siblings.append(child)
        found[bytes(child)] = child._refcheck_kids = []  # KIDS
        return 2  # CXChildVisit_Recurse

    ci.conf.lib.clang_visitChildren(fn, ci.callbacks["cursor_visit"](visit), None)
    if any(found.get(key) is not root for key in strays):  # the walk broke off
        found.clear()
    return found


def of_kinds(top, kinds) -> list:
    """`top` and the cursors under it whose kind id is in `kinds`, in pre-order, from one recursive
    clang_visitChildren: a whole-unit scan that wants a few kinds (vtables' stores) makes no
    cursor object for the others, which are most of a unit."""
    tu = top._tu
    out = [top] if top._kind_id in kinds else []

    def visit(child, parent, _):
        if child._kind_id in kinds:
            child._tu = tu
            out.append(child)
        return 2  # CXChildVisit_Recurse

    ci.conf.lib.clang_visitChildren(top, ci.callbacks["cursor_visit"](visit), None)
    return out


def top_level(cursor) -> tuple[list, list]:
    """A unit cursor's children but the preprocessor's, and its macro expansions, in one visit
    whose callback keeps what it is given (unit._top_level)."""
    top: list = []
    expansions: list = []
    owner = cursor._tu

    def visit(child, _parent, _data):
        kind = child._kind_id
        if 501 <= kind <= 503:  # CXCursor_MacroDefinition, _MacroExpansion, _InclusionDirective
            if kind == 502:
                expansions.append(child)  # no `_tu`: an instance dict per expansion (11 MB on THTensor.c)
            return 1  # CXChildVisit_Continue
        child._tu = owner  # as get_children does: the cursor keeps its unit alive
        top.append(child)
        return 1

    ci.conf.lib.clang_visitChildren(cursor, ci.callbacks["cursor_visit"](visit), None)
    return top, expansions


def last_child(c):
    """The last of a cursor's children (a definition's body), or None: one visit whose callback
    only keeps what it is given, where `get_children` builds a checked cursor per child."""
    box = [None]

    def visit(child, parent, _):
        box[0] = child
        return 1  # CXChildVisit_Continue

    ci.conf.lib.clang_visitChildren(c, ci.callbacks["cursor_visit"](visit), None)
    found = box[0]
    if found is not None:
        found._tu = c._tu
    return found


_KINDS = ci.CursorKind._kinds


def kind_of(c):
    """`c.kind` without the property and `CursorKind.from_id`'s checks: a list index. The graph
    build asks a few million times on THTensor.c. (Ids come from libclang's own cursors, so
    from_id's check for an unknown id never fired.)"""
    return _KINDS[c._kind_id]


def file_pointer(f) -> int:
    """The CXFile a `File` wraps, as an int: a key for caching what libclang says of it."""
    return ctypes.addressof(f.obj.contents)


def instantiation(loc) -> tuple:
    """(file, line, column, offset) of a location where a user reads it (a macro's call site),
    in one query: `.file`, `.line` and `.column` make one query each."""
    return loc._get_instantiation()


@lru_cache(maxsize=1)
def lib():
    """libclang with the C functions the binding does not wrap given their signatures."""
    lib = ci.conf.lib
    result = ctypes.c_void_p
    for name, args, res in (
            ("clang_getCursorBinaryOperatorKind", [ci.Cursor], ctypes.c_int),
            ("clang_getCursorUnaryOperatorKind", [ci.Cursor], ctypes.c_int),
            ("clang_Cursor_Evaluate", [ci.Cursor], result),
            ("clang_EvalResult_getKind", [result], ctypes.c_int),
            ("clang_EvalResult_getAsLongLong", [result], ctypes.c_longlong),
            ("clang_EvalResult_isUnsignedInt", [result], ctypes.c_uint),
            ("clang_EvalResult_getAsUnsigned", [result], ctypes.c_ulonglong),
            ("clang_EvalResult_getAsDouble", [result], ctypes.c_double),
            ("clang_EvalResult_dispose", [result], None)):
        f = getattr(lib, name)
        f.argtypes = args
        f.restype = res
    return lib


class _CXSourceLocation(ctypes.Structure):
    # clang-c/Index.h CXSourceLocation; the binding's SourceLocation, without its methods.
    _fields_ = [("ptr_data", ctypes.c_void_p * 2), ("int_data", ctypes.c_uint)]


class _CXSourceRange(ctypes.Structure):
    _fields_ = [("ptr_data", ctypes.c_void_p * 2), ("begin_int_data", ctypes.c_uint),
                ("end_int_data", ctypes.c_uint)]


class _CXSourceRangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(_CXSourceRange))]


class _CXString(ctypes.Structure):
    # clang-c/CXString.h; the binding has its own, but private.
    _fields_ = [("data", ctypes.c_void_p), ("private_flags", ctypes.c_uint)]


class _CXType(ctypes.Structure):
    # CXType: the kind and two opaque pointers (the QualType and the unit), nothing to release.
    _fields_ = [("kind", ctypes.c_int), ("data", ctypes.c_void_p * 2)]


_FILE = ctypes.c_void_p()
_LINE, _COLUMN, _OFFSET = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
_OUT = (ctypes.byref(_FILE), ctypes.byref(_LINE), ctypes.byref(_COLUMN), ctypes.byref(_OFFSET))
_FILE_P = ctypes.POINTER(ctypes.c_void_p)  # the binding's c_object_p (ctypes caches POINTER types)


@lru_cache(maxsize=1)
def raw():
    """A ctypes handle of our own on the loaded libclang whose functions return plain structs:
    the binding's give each result an `errcheck` (a Type looks for its unit among the arguments;
    a referenced Cursor asks libclang for the null cursor and compares with it: two more calls)
    and wrap locations and files in objects, which the graph build asks for a million times."""
    own = ctypes.CDLL(ci.conf.lib._name)
    for name, args, res in (
            ("clang_getCursorLocation", [ci.Cursor], _CXSourceLocation),
            ("clang_getCursorExtent", [ci.Cursor], _CXSourceRange),
            ("clang_getRangeStart", [_CXSourceRange], _CXSourceLocation),
            ("clang_getRangeEnd", [_CXSourceRange], _CXSourceLocation),
            ("clang_getInstantiationLocation", [_CXSourceLocation, ctypes.POINTER(ctypes.c_void_p),
                                                ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint),
                                                ctypes.POINTER(ctypes.c_uint)], None),
            ("clang_Location_isInSystemHeader", [_CXSourceLocation], ctypes.c_int),
            ("clang_isCursorDefinition", [ci.Cursor], ctypes.c_uint),
            ("clang_getCursorType", [ci.Cursor], _CXType),
            ("clang_getCanonicalType", [_CXType], _CXType),
            ("clang_getCursorReferenced", [ci.Cursor], ci.Cursor),
            ("clang_Cursor_getNumArguments", [ci.Cursor], ctypes.c_int),
            ("clang_Cursor_getArgument", [ci.Cursor, ctypes.c_uint], ci.Cursor),
            ("clang_getCursorSpelling", [ci.Cursor], _CXString),
            ("clang_getCString", [_CXString], ctypes.c_char_p),
            ("clang_disposeString", [_CXString], None),
            ("clang_getCursorSemanticParent", [ci.Cursor], ci.Cursor),
            ("clang_getCursorDefinition", [ci.Cursor], ci.Cursor),
            ("clang_getNullCursor", [], ci.Cursor),
            ("clang_getCursorBinaryOperatorKind", [ci.Cursor], ctypes.c_int),
            ("clang_getCursorUnaryOperatorKind", [ci.Cursor], ctypes.c_int),
            ("clang_getClangVersion", [], _CXString),
            ("clang_getCursorPrintingPolicy", [ci.Cursor], ctypes.c_void_p),
            ("clang_PrintingPolicy_dispose", [ctypes.c_void_p], None),
            ("clang_getCursorPrettyPrinted", [ci.Cursor, ctypes.c_void_p], _CXString),
            ("clang_getAllSkippedRanges", [ctypes.c_void_p], ctypes.POINTER(_CXSourceRangeList)),
            ("clang_disposeSourceRangeList", [ctypes.POINTER(_CXSourceRangeList)], None)):
        f = getattr(own, name)
        f.argtypes = args
        f.restype = res
    return own


def _place(loc) -> tuple:
    raw().clang_getInstantiationLocation(loc, *_OUT)
    return _FILE.value or 0, _LINE.value, _COLUMN.value, _OFFSET.value


def place(c) -> tuple:
    """(CXFile as an int, 0 for none; line; column; offset) of a cursor's location where a user
    reads it, as `instantiation(c.location)` gives them (with the file as `file_pointer` gives it),
    in two calls and no objects."""
    return _place(raw().clang_getCursorLocation(c))


def location_file(c) -> tuple:
    """A cursor's location, as a plain struct for `in_system_location`, and its CXFile as `place`
    gives it (0 for none): a file's name and verdicts can be kept per file."""
    loc = raw().clang_getCursorLocation(c)
    return loc, _place(loc)[0]


def in_system_location(loc) -> bool:
    """`SourceLocation.is_in_system_header` of a `location_file` location."""
    return bool(raw().clang_Location_isInSystemHeader(loc))


def outside_system(cursors, system_file) -> list:
    """The cursors that have a file, where `system_file(CXFile)` (asked once per file) is false
    and clang does not place the location in a system header (`in_system_location`), in order:
    a whole-unit walk's filter of ~4,300 top-level cursors (a CPython unit's) or ~9,500 (a GLib
    unit's), where two ctypes calls per cursor were most of the vtables walk's time."""
    verdicts: dict[int, bool] = {}
    out = []
    for c in cursors:
        loc, f = location_file(c)
        if not f:
            continue
        system = verdicts.get(f)
        if system is None:
            system = verdicts[f] = bool(system_file(f))
        if not (system or in_system_location(loc)):
            out.append(c)
    return out


def extent_places(c) -> tuple:
    """`place` of a cursor's extent's start and end (`c.extent.start`, `c.extent.end`)."""
    own = raw()
    r = own.clang_getCursorExtent(c)
    return _place(own.clang_getRangeStart(r)), _place(own.clang_getRangeEnd(r))


def among(cursors, kinds) -> list:
    """The cursors whose kind id is in `kinds`, in order: a unit's top-level cursors narrowed to
    the few kinds a walk reads (a GLib unit's ~8,600, a CPython one's ~4,300) in one query."""
    return [c for c in cursors if c._kind_id in kinds]


def definitions(cursors) -> list:
    """The cursors clang says are definitions (`clang_isCursorDefinition`), in order."""
    is_definition = raw().clang_isCursorDefinition
    return [c for c in cursors if is_definition(c)]


def file_named(pointer: int):
    """The binding's `File` for a CXFile pointer from `place` (its `.name` is the binding's)."""
    return ci.File(ctypes.cast(pointer, _FILE_P))


def type_of(c):
    """The cursor's CXType as a plain struct (`bytes` of it: a key for the type)."""
    return raw().clang_getCursorType(c)


def canonical_kind_id(t) -> int:
    """The TypeKind id of a `type_of` struct's canonical type (`t.get_canonical().kind.value`)."""
    return raw().clang_getCanonicalType(t).kind


# `clangutil.canonical_kind` in one compiled call where the walk is compiled (set below); None on
# the Python path, which is clangutil's own, with its per-build cache of canonical types.
canonical_kind = None

_UNSET = object()


@lru_cache(maxsize=1)
def _null() -> bytes:
    """The null cursor's bytes, read once: compared in Python, as clang_equalCursors compares."""
    return bytes(raw().clang_getNullCursor())


def _cursor_of(c, attr: str, fn):
    """A cursor-valued property of `c` as the binding's `attr` property gives it (None or a Cursor
    that keeps the unit alive), kept where the binding keeps it so that the property agrees, but
    without the binding's check against the null cursor, which asks libclang for it and compares
    in two more calls: the null cursor's bytes, read once, are compared in Python
    (clang_equalCursors compares the same fields)."""
    res = getattr(c, attr, _UNSET)
    if res is not _UNSET:
        return res
    res = fn(c)
    if bytes(res) == _null():
        res = None
    else:
        res._tu = c._tu
    setattr(c, attr, res)
    return res


def referenced(c):
    """`c.referenced` (see `_cursor_of`)."""
    return _cursor_of(c, "_referenced", raw().clang_getCursorReferenced)


def definition(c):
    """`c.get_definition ()` (see `_cursor_of`); None for None too, so that a callee not resolved
    and a callee without a body in the unit read alike."""
    if c is None:
        return None
    return _cursor_of(c, "_definition", raw().clang_getCursorDefinition)


def semantic_parent(c):
    """`c.semantic_parent` (see `_cursor_of`)."""
    return _cursor_of(c, "_semantic_parent", raw().clang_getCursorSemanticParent)


def spelling(c):
    """`c.spelling` (None where libclang gives no string, as the binding does), kept where the
    binding keeps it, through plain structs: the binding's string result goes through two errcheck
    wrappers and an object with a finalizer."""
    res = getattr(c, "_spelling", _UNSET)
    if res is not _UNSET:
        return res
    res = c._spelling = _text(raw().clang_getCursorSpelling(c), "strict")
    return res


def binary_operator(c) -> int:
    """libclang's CXBinaryOperatorKind of a cursor (0 where it is none)."""
    return raw().clang_getCursorBinaryOperatorKind(c)


def unary_operator(c) -> int:
    """libclang's CXUnaryOperatorKind of a cursor (0 where it is none)."""
    return raw().clang_getCursorUnaryOperatorKind(c)


def children(c) -> list:
    """`list(c.get_children())`, each child keeping the unit (the listing of a cursor the build's
    walk did not reach: a declaration's, a lambda body's where that walk broke off)."""
    return list(c.get_children())


def spellings(cursors) -> list:
    """`spelling` of each cursor, not kept on them: a walk naming thousands of declarations
    (`handles.counted_types`) asks the compiled twin once instead of three ctypes calls each."""
    own = raw()
    return [_text(own.clang_getCursorSpelling(c), "strict") for c in cursors]


def _text(s, errors: str = "replace") -> str | None:
    """A CXString's text (None for libclang's NULL), the string disposed of."""
    own = raw()
    try:
        text = own.clang_getCString(s)
    finally:
        own.clang_disposeString(s)
    return None if text is None else text.decode("utf8", errors)


def folded(c, as_typed: bool) -> int | float | None:
    """What clang folds `c` to: an integer, read as a signed long long, or, `as_typed`, as the
    unsigned value it is when clang says so, or a floating value; None otherwise."""
    clang = lib()
    res = clang.clang_Cursor_Evaluate(c)
    if not res:
        return None
    try:
        kind = clang.clang_EvalResult_getKind(res)
        if kind == 1:  # CXEval_Int
            if as_typed and clang.clang_EvalResult_isUnsignedInt(res):
                return clang.clang_EvalResult_getAsUnsigned(res)
            return clang.clang_EvalResult_getAsLongLong(res)
        if kind == 2 and as_typed:  # CXEval_Float
            return clang.clang_EvalResult_getAsDouble(res)
        return None
    finally:
        clang.clang_EvalResult_dispose(res)


def pretty_printed(c) -> str:
    """A declaration as clang prints it after preprocessing (clang_getCursorPrettyPrinted with the
    unit's default policy): macros expanded, a definition with its body, a struct with its fields,
    an enum with its values. The binding does not wrap it."""
    own = raw()
    policy = own.clang_getCursorPrintingPolicy(c)
    try:
        return _text(own.clang_getCursorPrettyPrinted(c, policy)) or ""
    finally:
        own.clang_PrintingPolicy_dispose(policy)


def extent_raw(c) -> tuple[int, int]:
    """The raw encodings of a cursor's extent (begin, end) as libclang's CXSourceRange holds them,
    with no location query: for file locations, one inclusion of a file occupies one interval of
    clang's location space (its base plus the offset), so containment between the extents of
    one unit's cursors can be decided on these numbers alone. Macro locations have bit 31 set;
    extents are expansion ranges, whose ends are file locations."""
    r = raw().clang_getCursorExtent(c)
    return r.begin_int_data, r.end_int_data


def extents_raw(cursors) -> list[tuple[int, int]]:
    """`extent_raw` of each cursor, in one query (a unit's macro expansions: 33,000 on THTensor.c)."""
    return [extent_raw(c) for c in cursors]


MACRO_ID_BIT = 1 << 31


def skipped_raw(tu) -> list[tuple[int, int]]:
    """The raw encodings (begin, end) of every range the preprocessor skipped in the unit (the
    inactive side of each `#if`, with its directives), as clang_getAllSkippedRanges gives them:
    one entry per inclusion, so a file included twice has its ranges twice, each within the
    interval of its own inclusion. Needs the detailed preprocessing record."""
    own = raw()
    got = own.clang_getAllSkippedRanges(tu._as_parameter_)
    if not got:
        return []
    try:
        lst = got.contents
        return [(lst.ranges[i].begin_int_data, lst.ranges[i].end_int_data) for i in range(lst.count)]
    finally:
        own.clang_disposeSourceRangeList(got)


def arguments(c) -> list:
    """`list(c.get_arguments())`, each argument checked against the null cursor in Python (see
    `_cursor_of`) and keeping the unit alive as the binding's do."""
    own = raw()
    null = _null()
    tu = c._tu
    out = []
    for i in range(own.clang_Cursor_getNumArguments(c)):
        res = own.clang_Cursor_getArgument(c, i)
        if bytes(res) == null:
            res = None
        else:
            res._tu = tu
        out.append(res)
    return out


# The compiled twins of `place`, `extent_places`, `children_by_key` and the rest (refcheck/frontend/_cwalk.c,
# _cquery.c),
# where native.py chose them: the same values without a ctypes call (or a Python callback) per
# cursor. The Python definitions above stay the fallback and the tests' oracle.
PURE = {"place": place, "extent_places": extent_places, "children_by_key": children_by_key, "of_kinds": of_kinds,
        "spellings": spellings, "top_level": top_level, "outside_system": outside_system,
        "referenced": referenced, "semantic_parent": semantic_parent, "folded": folded,
        "spelling": spelling, "children": children, "binary_operator": binary_operator,
        "unary_operator": unary_operator,
        "among": among, "definitions": definitions, "extents_raw": extents_raw}

# The libclang functions _cwalk calls, in the order of its `lib` struct.
_NATIVE_FUNCTIONS = ("clang_visitChildren", "clang_getCursorLocation", "clang_getCursorExtent",
                     "clang_getRangeStart", "clang_getRangeEnd", "clang_getInstantiationLocation",
                     "clang_getCursorReferenced", "clang_getCursorSemanticParent", "clang_getNullCursor",
                     "clang_Cursor_Evaluate", "clang_EvalResult_getKind", "clang_EvalResult_isUnsignedInt",
                     "clang_EvalResult_getAsUnsigned", "clang_EvalResult_getAsLongLong",
                     "clang_EvalResult_getAsDouble", "clang_EvalResult_dispose", "clang_getCursorType",
                     "clang_getCanonicalType", "clang_getCursorSpelling", "clang_getCString",
                     "clang_disposeString", "clang_Location_isInSystemHeader",
                     "clang_getCursorBinaryOperatorKind", "clang_getCursorUnaryOperatorKind",
                     "clang_isCursorDefinition")


def _native_functions() -> tuple:
    """(addresses of _NATIVE_FUNCTIONS in the loaded libclang, the Cursor class): _cwalk asks once,
    on its first query, so that loading libclang stays as late as the binding makes it."""
    own = raw()
    return tuple(ctypes.cast(getattr(own, n), ctypes.c_void_p).value for n in _NATIVE_FUNCTIONS), ci.Cursor


if native.CHOICE.module is not None:
    _c = native.CHOICE.module
    _c.set_loader(_native_functions)
    place, extent_places, children_by_key, of_kinds = _c.place, _c.extent_places, _c.children_by_key, _c.of_kinds
    referenced, semantic_parent, folded = _c.referenced, _c.semantic_parent, _c.folded
    # clangutil.canonical_kind's twin: both libclang calls in one, which needs no per-build cache.
    canonical_kind = _c.canonical_kind
    spellings, top_level, outside_system = _c.spellings, _c.top_level, _c.outside_system
    spelling, children = _c.spelling, _c.children
    binary_operator, unary_operator = _c.binary_operator, _c.unary_operator
    among, definitions, extents_raw = _c.among, _c.definitions, _c.extents_raw


def clang_version() -> str:
    """clang_getClangVersion(), which the binding does not wrap: "clang version 18.1.1 ..."."""
    return _text(raw().clang_getClangVersion()) or ""
