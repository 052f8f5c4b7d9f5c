"""Py_buffer views of the frame (issue 31, cpy25's and cpy37's bug-fix histories, pygame's
proxy_write): the buffer protocol's getbuffer function "must set view->obj to a new reference to
exporter" when it returns 0, and PyBuffer_Release gives that reference up. Where the view is a
local struct of the function that only these calls and member reads touch, the reference is
followed as the exporter's: `PyObject_GetBuffer (obj, &view, flags)` (or the unit's own
`bf_getbuffer` slot called directly) retains `obj` on 0, and `PyBuffer_Release (&view)` releases
it. A view never released leaks its exporter (RC001); pygame's `proxy_getbuffer (self, &view, f);
... proxy_releasebuffer (self, &view); Py_DECREF (self);` pays the view's reference.

Any other use of the view leaves it untracked, as before: `&view` handed to another function (a
helper may release it), `view.obj` read or written, `view.buf` tested (a release guarded by a
test of the view itself, which the analysis cannot pair with the fill), the view copied or its
address stored; so is a view filled from two variables, or from one the function assigns."""

from __future__ import annotations

from dataclasses import dataclass

from refcheck.conventions.summary import Effect, When
from refcheck.frontend.binding import arguments, cursor_key, referenced
from refcheck.frontend.clangutil import K, binop, kind_of, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.graph import in_library
from refcheck.frontend.perunit import PerUnit
from refcheck.frontend.slots import table_functions
from refcheck.frontend.steals import PARSE_BUFFERS, PARSE_SCALARS, string_literal

_GET, _RELEASE, _FILL_INFO = "PyObject_GetBuffer", "PyBuffer_Release", "PyBuffer_FillInfo"
# C-API functions that read a view and keep nothing of it (Doc/c-api/buffer.rst).
_READERS = frozenset(("PyBuffer_IsContiguous", "PyBuffer_GetPointer", "PyBuffer_ToContiguous",
                      "PyBuffer_FromContiguous"))
_GET_SLOTS, _RELEASE_SLOTS = frozenset(("bf_getbuffer", "Py_bf_getbuffer")), frozenset(("bf_releasebuffer",
                                                                                          "Py_bf_releasebuffer"))
_VIEW_TYPE = "Py_buffer"
_PASSED = frozenset(k.value for k in (K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR))
_ASSIGNS = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="))


@dataclass(frozen=True)
class _Tables:
    """The buffer tables `slots.table_functions` reads (it asks only `slot_tables`)."""
    slot_tables: tuple = ("PyBufferProcs", "PyType_Slot")


_SLOTS: PerUnit[dict] = PerUnit()
_VIEWS: PerUnit[dict] = PerUnit()  # function key -> {view key: exporter decl or None}


def exporter_retained(b, decl, name: str, args: list) -> dict:
    """`{0: (Effect.RETAIN, When.ZERO)}` for a fill of a followed view: the exporter gains the
    reference the view holds when the call returns 0; else empty."""
    view = _view_of(args[1]) if len(args) == 3 else None  # cheap tests first: asked at every call
    if view is None or not _fills(b, decl, name):
        return {}
    return {0: (Effect.RETAIN, When.ZERO)} if _followed(b, view) is not None else {}


def info_stored(b, decl, name: str, args: list) -> dict:
    """`{2: (Effect.STORE, When.ZERO)}` for `PyBuffer_FillInfo (view, obj, buf, len, ro, f)` into
    a view that is not a local of the function (a getbuffer slot's parameter, `&self->view`):
    on 0 the view holds `buf`, and whoever releases the view frees it (biopython's
    `Array_set_alphabet` fills `&fields->mapping`, its dealloc frees `mapping.buf`); on -1
    nothing was stored. Into a local view the buffer is still the function's."""
    if name != _FILL_INFO or len(args) != 6 or _view_of(args[0]) is not None or not _library(b, decl):
        return {}
    return {2: (Effect.STORE, When.ZERO)}


def parse_fills(b, name: str, args: list) -> dict:
    """`{view: (When.NONZERO, True, True)}` for each followed local view a PyArg_Parse-style
    call fills through a `s*`, `y*`, `w*`, `z*` unit: on success the view holds a buffer of an
    object the function does not name, the view's own to release with PyBuffer_Release (a block
    with no family of its name's, as `es` buffers are); left as it was on failure."""
    out = {}
    for i in _parse_views(b, name, args):
        view = _view_of(args[i])
        if view is not None and _self_exported(b, view):
            out[b.var(view)] = (When.NONZERO, True, True)
    return out


def view_positions(b, decl, name: str, args: list) -> set:
    """The positions of a followed view's `&view` in a call that fills, releases or reads it:
    not evaluated as an escape of the view (a view the parse filled is tracked by its variable)."""
    out = set()
    for i, a in enumerate(args):
        view = _view_of(a)
        if view is not None and _self_exported(b, view):
            out.add(i)
    return out


def _self_exported(b, view) -> bool:
    """A followed view filled by a parse unit only: its own variable holds the reference."""
    exporter = _followed(b, view)
    return exporter is not None and cursor_key(exporter) == cursor_key(view)


def exporter_released(b, decl, name: str, args: list) -> str | None:
    """The value `PyBuffer_Release (&view)` releases, the exporter of a followed view; else None."""
    if name != _RELEASE or len(args) != 1 or not _library(b, decl):
        return None
    view = _view_of(args[0])
    exporter = _followed(b, view) if view is not None else None
    return b.var(exporter) if exporter is not None else None


def _fills(b, decl, name: str) -> bool:
    if name == _GET:
        return _library(b, decl)
    return decl is not None and kind_of(decl) == K.FUNCTION_DECL and bool(_slots(decl) & _GET_SLOTS)


def _library(b, decl) -> bool:
    """The callee is declared in the preset's library headers (Python.h's folder)."""
    header = b.conv.library_header
    f = decl.location.file if decl is not None else None
    return bool(header) and f is not None and in_library(f.name, header)


def _slots(decl) -> frozenset:
    tu = decl.translation_unit
    table = _SLOTS.of(tu, lambda: table_functions(tu.cursor.get_children(), _Tables()))
    return frozenset(table.get(decl.spelling, ()))


def _view_of(arg):
    """The local `Py_buffer` variable of an argument `&view`, else None."""
    x = strip(arg)
    if kind_of(x) != K.UNARY_OPERATOR or unop(x) != "&":
        return None
    target = strip(next(iter(children_of(x)), None) or x)
    var = referenced(target) if kind_of(target) == K.DECL_REF_EXPR else None
    return _view_of_decl(var) if var is not None else None


def _followed(b, view):
    """The exporter variable of a view this function only fills, releases and reads, else None."""
    views = _VIEWS.of(b.fn.translation_unit, dict)
    key = cursor_key(b.fn)
    if key not in views:
        views[key] = _Uses(b).views()
    return views[key].get(cursor_key(view))


class _Uses:
    """One walk of the function's body: every use of every `Py_buffer` local, and the variables
    assigned or whose address is taken (an exporter must be neither)."""

    def __init__(self, b):
        self.b = b
        self.bad: set = set()  # views used another way
        self.exporters: dict = {}  # view key -> set of exporter decl keys
        self.decls: dict = {}  # decl key -> decl
        self.changed: set = set()  # variables assigned or whose address is taken
        self.viewdecls: dict = {}  # view key -> its declaration

    def views(self) -> dict:
        self._walk(self.b.fn)
        out = {}
        for v, exps in self.exporters.items():
            # A view its own exporter (a parse fill) is `&view` everywhere: not a change of it.
            ok = v not in self.bad and len(exps) == 1 and (exps == {v} or next(iter(exps)) not in self.changed)
            out[v] = self.decls[next(iter(exps))] if ok else None
        return out

    def _walk(self, top) -> None:
        stack = [(top, (), False)]
        while stack:  # iterative: a long else-if chain is deeper than Python's recursion limit
            c, up, cond = stack.pop()
            k = kind_of(c)
            if k == K.DECL_REF_EXPR:
                self._use(c, list(up), cond)
                continue
            kids = children_of(c)
            below = up[-5:] + (c,)  # a use looks a few parents up, casts and parentheses among them
            for i, kid in enumerate(kids):
                stack.append((kid, below, cond or _condition(c, k, i, len(kids))))

    def _use(self, c, up: list, cond: bool) -> None:
        ref = referenced(c)
        if ref is None or kind_of(ref) not in (K.VAR_DECL, K.PARM_DECL):
            return
        parents = [p for p in reversed(up) if p._kind_id not in _PASSED]
        parent = parents[0] if parents else None
        if parent is not None and _changes(parent, c):
            self.changed.add(cursor_key(ref))
        if _view_of_decl(ref) is None:
            return
        key = cursor_key(ref)
        self.viewdecls[key] = ref
        if parent is not None and kind_of(parent) == K.MEMBER_REF_EXPR:
            member = parent.spelling
            if member == "obj" or (cond and member == "buf") or (parents[1:2] and _changes(parents[1], parent)):
                self.bad.add(key)
            return
        call = parents[1] if len(parents) > 1 and parent is not None and kind_of(parent) == K.UNARY_OPERATOR \
            and unop(parent) == "&" else None
        if call is None or kind_of(call) != K.CALL_EXPR:
            self.bad.add(key)
            return
        self._call(call, parent, key, cond or _status(parents[2:3]))

    def _call(self, call, arg, key, tested: bool) -> None:
        args = [strip(a) for a in arguments(call)]
        decl, name = self.b.callee_of(call)
        at = next((i for i, a in enumerate(args) if a == strip(arg)), None)
        fill = (at == 1 and len(args) == 3 and _fills(self.b, decl, name)) or \
            (at is not None and at in _parse_views(self.b, name, arguments(call)))
        if fill and not tested:
            # An untested fill (hiredis's `PyObject_GetBuffer (item, &buffer, PyBUF_SIMPLE);`)
            # is not split on its result, and a release after a failed one releases nothing
            # (view->obj is NULL): not followed.
            self.bad.add(key)
            return
        if at == 1 and len(args) == 3 and _fills(self.b, decl, name):
            exp = strip(args[0])
            ref = referenced(exp) if kind_of(exp) == K.DECL_REF_EXPR else None
            if ref is None or kind_of(ref) not in (K.VAR_DECL, K.PARM_DECL) or self.b.var(ref) is None:
                self.bad.add(key)
                return
            self.decls[cursor_key(ref)] = ref
            self.exporters.setdefault(key, set()).add(cursor_key(ref))
            return
        if at is not None and at in _parse_views(self.b, name, arguments(call)):
            self.decls[key] = self.viewdecls[key]  # the view is its own exporter
            self.exporters.setdefault(key, set()).add(key)
            return
        if at == 0 and (name == _RELEASE or name in _READERS) and _library(self.b, decl):
            return
        if at == 1 and decl is not None and kind_of(decl) == K.FUNCTION_DECL and _slots(decl) & _RELEASE_SLOTS:
            return  # a releasebuffer slot frees the exporter's own state, not view->obj
        self.bad.add(key)


def _status(parent) -> bool:
    """The call's parent (a one-element list, or empty) stores its result in a local: `res =
    f (...)`, `int res = f (...)` (the lowering splits such a call on its result)."""
    if not parent:
        return False
    k = kind_of(parent[0])
    return k == K.VAR_DECL or (k == K.BINARY_OPERATOR and binop(parent[0]) == "=")


def _view_of_decl(var):
    t = var.type
    name = t.spelling.replace("const ", "").strip()
    canon = t.get_canonical().spelling.replace("struct ", "").strip()
    return var if kind_of(var) == K.VAR_DECL and (name == _VIEW_TYPE or canon in (_VIEW_TYPE, "bufferinfo")) else None


def _changes(parent, child) -> bool:
    """`parent` assigns `child` (its left operand) or takes its address or steps it."""
    k = kind_of(parent)
    if k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
        kids = children_of(parent)
        return bool(kids) and binop(parent) in _ASSIGNS and strip(kids[0]) == child
    if k == K.UNARY_OPERATOR:
        return unop(parent) in ("&", "++", "--")
    return False


def _condition(c, k, i: int, n: int) -> bool:
    """The child at `i` of `c` is a condition it branches on."""
    if k in (K.IF_STMT, K.WHILE_STMT, K.SWITCH_STMT, K.CONDITIONAL_OPERATOR):
        return i == 0
    if k == K.DO_STMT:
        return i == n - 1
    if k == K.FOR_STMT:
        return 0 < i < n - 1
    return k == K.BINARY_OPERATOR and binop(c) in ("&&", "||")


def _parse_views(b, name: str, args: list) -> frozenset:
    """The argument positions of a PyArg_Parse-style call's `X*` units (a Py_buffer output)."""
    found = b.conv.parse_format(name, len(args))
    if found is None or found[0] is None or found[0] >= len(args):
        return frozenset()
    fmt = string_literal(args[found[0]])
    outs = view_outputs(fmt) if fmt is not None else ()
    return frozenset(found[1] + i for i in outs if found[1] + i < len(args))


def view_outputs(fmt: str) -> tuple[int, ...]:
    """The positions, among a PyArg_ParseTuple format's outputs, of its `s*`, `y*`, `z*`, `w*`
    units (Python/getargs.c), read as `steals.parse_output_kinds` reads the rest; () when the
    format is not one it reads."""
    out, arg, i = [], 0, 0
    while i < len(fmt) and fmt[i] not in ":;":
        c, nxt = fmt[i], fmt[i + 1] if i + 1 < len(fmt) else ""
        if c in "()|$":
            pass
        elif c in PARSE_SCALARS or c in "SUY":
            arg += 1
        elif c == "e" and nxt in ("s", "t"):  # encoding, buffer[, length]
            i, arg = i + 1, arg + 2
            if i + 1 < len(fmt) and fmt[i + 1] == "#":
                arg, i = arg + 1, i + 1
        elif c in PARSE_BUFFERS:
            if nxt == "*":
                out.append(arg)
            arg += 2 if nxt == "#" else 1
            i += nxt in ("*", "#")
        elif c == "O":
            arg += 2 if nxt in ("!", "&") else 1
            i += nxt in ("!", "&")
        else:
            return ()
        i += 1
    return tuple(out)
