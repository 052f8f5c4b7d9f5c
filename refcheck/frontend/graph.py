"""The graph under construction for one function, shared by the statement builder and the
expression and condition lowerers: nodes, edges, the current block, temporaries and names.

It knows nothing about how statements or expressions are lowered, so the lowerers can depend
on it without depending on each other (the builder wires them together).
"""

from __future__ import annotations

import functools
import os

from dataclasses import replace

import clang.cindex as ci
from refcheck.ir.digraph import DiGraph

from refcheck import ir
from refcheck.ir.cfg import FunctionRole, Node
from refcheck.conventions import Conventions
from refcheck.conventions.summary import Returns, Source
from refcheck.frontend.binding import arguments, in_system_location, location_file, semantic_parent, spelling, type_of
from refcheck.frontend.clangutil import (FUNCTION_KINDS, K, cursor_key, declared_by_macro, is_noreturn, kind_of,
                                        name_of_file, qualified_name, referenced, strip)
from refcheck.frontend.clangutil import kids as children_of
from refcheck.findings import Location
from refcheck.conventions.installed import gir_of, records
from refcheck.conventions.glibpreset import gir_records
from refcheck.frontend.inlines import identity_position
from refcheck.frontend.overloads import keyed
from refcheck.frontend.overloadsets import by_arity
from refcheck.frontend.perunit import PerUnit
from refcheck.frontend.unit import in_system_dir
from refcheck.frontend.slots import role_of
from refcheck.frontend.api_tables import api_call_name

REFERENCE_IDS = (ci.TypeKind.LVALUEREFERENCE.value, ci.TypeKind.RVALUEREFERENCE.value)


class GraphBuilder:
    def __init__(self, fn, conv: Conventions):
        self.fn = fn
        self.conv = conv
        self.g = DiGraph()
        # Each node's Node, as the graph holds it under "data" (emit's lookup, 331k on THTensor.c,
        # without a NodeView and attribute dict in between).
        self.data: dict[int, Node] = {}
        self.names: dict[str, str] = {}
        self.hidden: set[str] = set()  # locals a macro declares for itself (`FunctionCFG.hidden`)
        self.temps = 0
        # (block, flag key) where the body may set a flag field, and per return node the flag keys
        # its `return f (...)` sets only with a NULL result (frontend.flagfail).
        self.flag_sets: list = []
        self.flag_returns: dict[int, frozenset] = {}
        self.indicator: str | None = None  # the error indicator's fact key, "" if untested (frontend.indicator)
        self.state_tests: dict | None = None  # error-state tests of objects (frontend.taskerrors)
        self.error_slots: dict | None = None  # reads of forwarded `GError **` parameters (frontend.errorslots)
        self.indicator_calls: frozenset = frozenset()  # calls whose result a local receives (same)
        self.opaque_helpers: dict = {}  # helper -> the positions it hands to an opaque setter (frontend.opaque)
        self.indicator_guards: dict = {}  # callee -> whether it answers only with an error set (frontend.indicatorguard)
        # Members of local structs holding a local's reference (`out.dst = buf`): struct variable
        # -> member name -> the variable standing for that member (`Expressions.member_holder`).
        self.members: dict[str, dict[str, str]] = {}
        # Local arrays a for loop releases every element of (`frontend.arrays`): array -> whether
        # one does, and array -> the variables standing for its elements stored into so far.
        self.array_loops: dict[str, bool] = {}
        self.array_holders: dict[str, list[str]] = {}
        self.writes_items: bool | None = None  # the body writes a container's element in place (same)
        self.breaks: list[int] = []
        self.continues: list[int] = []
        self.switches: list[list] = []  # [dispatch node, has default]
        self.labels: dict[str, int] = {}
        self.handlers: list[list[int]] = []  # entry nodes of the catch blocks of enclosing trys
        self.longjmp_target: int | None = None  # the last setjmp's second return (frontend.longjmps)
        # Its buffer's pointer variable and the block of its `if` (frontend.longjmps.context_ends).
        self.longjmp_context: tuple[str, object] | None = None
        self.lambdas: list = []  # lambda expressions met in the body: checked as functions
        self.pending_temps: list[str] = []
        # By cursor_key, not by `Cursor.hash`: a 32-bit hash that distinct declarations can share.
        self.noreturn_cache: dict[bytes, bool] = _unit_noreturns(getattr(fn, "_tu", None))
        self.var_cache: dict[bytes, str | None] = {}  # the binding's calls are slow
        self.retained_statics: frozenset[str] | None = None  # frontend.statictypes, once asked
        self.callee_cache: dict[bytes, tuple] = {}  # call -> (declaration, name) (`callee_of`)
        self.record_cache: dict[tuple, object] = {}  # (callee, name) -> its record (`summary_of`)
        self.owners: dict[str, tuple] = {}  # value name -> the declaration it names
        self.keys: dict = {}  # fact_key per cursor
        self.subkeys: dict = {}  # conditions._subkey per (stripped) cursor
        self.cur: int | None = None
        # A function implementing retain/free (torch's Lua `retain` method): what it is handed,
        # as a parameter or a borrowed call result, is the count it manipulates, not tracked.
        # A destructor slot's function (CPython's tp_dealloc, by the unit's tables) frees the object
        # it is handed: a primitive whatever its name.
        self.role = role_of(fn, conv)
        self.primitive = conv.is_primitive(fn.spelling or "") or self.role is FunctionRole.DESTROYS
        # A borrow accessor (CPython's `*Borrowed`): the new references its calls return are
        # dropped to hand back a borrowed pointer, not acquisitions of its own.
        self.borrows = conv.matches("borrow_accessors", fn.spelling or "")
        # The integer variable holding each success-split call's result (frontend.steals), by call.
        self.status_vars: dict[bytes, str] = {}
        # The calls a condition tests (`if (!f (x))`, `f (x) < 0`), by call.
        self.tested: set[bytes] = set()
        self.switched: set[bytes] = set()  # calls a switch reads the result of (`Const.nonzero`)
        # (call key, return statement) while lowering `return f (...)`: a split of f returns
        # each of its results there (`Builder.returned_constant`).
        self.returning: tuple | None = None
        # The expression statement being lowered (by cursor_key): its value is discarded.
        self.discarded: bytes | None = None

    # -- graph plumbing -------------------------------------------------------------------------
    def node(self, kind: str, loc: Location | None = None, **kw) -> int:
        n = self.g.number_of_nodes()
        data = self.data[n] = Node(kind, loc, **kw)
        self.g.add_node(n, data=data)
        return n

    def edge(self, a: int | None, b: int, branch: bool | None = None, label: str = "") -> None:
        if a is not None:
            self.g.add_edge(a, b, branch=branch, label=label)

    def emit(self, op) -> None:
        if self.cur is None:  # dead code after return/goto: build it, unreachable
            self.cur = self.node("block")
        self.data[self.cur].ops.append(op)

    def goto(self, target: int) -> None:
        self.edge(self.cur, target)
        self.cur = None

    def start(self, n: int) -> None:
        self.edge(self.cur, n)
        self.cur = n

    def call_split(self, loc: Location, what: str, text: str) -> tuple[int, int, int]:
        """A branch from the current block on what a call did (`ir.Opaque(what)`): its true arm,
        its false arm and a node for them to join at. Neither arm is current yet."""
        n = self.node("branch", loc, cond=ir.Opaque(what), text=text)
        yes, no, join = self.node("block"), self.node("block"), self.node("block")
        self.start(n)
        self.edge(n, yes, True)
        self.edge(n, no, False)
        return yes, no, join

    def non_null_arm(self, loc: Location, value: str, text: str) -> int:
        """A test of `value` against NULL from the current block, its non-NULL arm made current;
        returns the node the arm and the NULL edge join at (the caller's `goto` ends the arm)."""
        test = self.node("branch", loc, cond=ir.NullTest(value), text=text)
        self.start(test)
        ok, join = self.node("block"), self.node("block")
        self.edge(test, ok, True)
        self.edge(test, join, False)
        self.cur = ok
        return join

    def error_node(self, loc: Location, name: str) -> int:
        return self.node("error", loc, text=name)

    def temp(self, display: str) -> str:
        self.temps += 1
        name = f"${self.temps}"
        self.names[name] = display
        self.pending_temps.append(name)
        return name

    def full_expression_end(self, loc: Location) -> None:
        """The temporaries of a full expression die at its end."""
        for t in self.pending_temps:
            self.emit(ir.Kill(loc, t))
        self.pending_temps = []

    # -- names ----------------------------------------------------------------------------------
    def var(self, decl) -> str | None:
        """The value name of a local variable or parameter, None for globals and functions."""
        if decl is None:
            return None
        key = cursor_key(decl)
        if key in self.var_cache:
            return self.var_cache[key]
        name = self._var(decl)
        self.var_cache[key] = name
        return name

    def vars_of(self, decls) -> frozenset:
        """The variables of those declarations this function has (`var`), the others left out."""
        return frozenset(v for d in decls if (v := self.var(d)) is not None)

    def _var(self, decl) -> str | None:
        if type_of(decl).kind in REFERENCE_IDS:
            return None  # `T *&out = ...; out = t;` writes through to the caller
        if kind_of(decl) == K.PARM_DECL:
            pass
        elif kind_of(decl) == K.VAR_DECL:
            parent = semantic_parent(decl)
            if parent is None or kind_of(parent) not in FUNCTION_KINDS or \
                    decl.storage_class in (ci.StorageClass.STATIC, ci.StorageClass.EXTERN):
                return None
        else:
            return None
        # The hash keeps names stable for `refcheck.reuse.renaming`; two declarations of one spelling
        # whose hashes collide get distinct names all the same. (By the declaration itself,
        # data[0]: the same local reached from two places can differ in the rest of its key.)
        base = name = f"{spelling(decl)}#{decl.hash}"
        owner = (decl._kind_id, decl.data[0])
        extra = 0
        while self.owners.setdefault(name, owner) != owner:
            extra += 1
            name = f"{base}{extra}"
        self.names.setdefault(name, spelling(decl))
        if kind_of(decl) == K.VAR_DECL and declared_by_macro(decl):
            self.hidden.add(name)
        return name

    def callee_of(self, call):
        # Asked about four times per call lowered (the call, its hand-overs, the indicator's and
        # the keys' tests): kept per build by cursor, like `var_cache`.
        key = cursor_key(call)
        found = self.callee_cache.get(key)
        if found is None:
            found = self.callee_cache[key] = resolved_callee(call, self.conv)
        return found

    def summary_of(self, decl, name: str):
        """The callee's record; a library table (the cpython preset's) only for a callee declared
        in the library's own headers, not for a project function that shares a name with it.
        With nothing known of it, a function whose body returns a parameter returns that argument
        (`inlines`: a system header's inline cast, which the analysis does not read)."""
        # Kept per build: the records a build reads do not change while it runs (the unit learns
        # a definition's summary between builds), and a body calls the same few callees often.
        key = (cursor_key(decl) if decl is not None else None, name)
        found = self.record_cache.get(key)
        if found is None:
            found = self.record_cache[key] = self._summary_of(decl, name)
        return found

    def _summary_of(self, decl, name: str):
        conv = self.conv
        lib = _library_record(conv, decl, name) if conv.libraries and decl is not None else None
        if lib is not None:
            s = lib
        else:
            # An overload of the unit answers with its own body's record, not its namesake's.
            body = keyed(name, decl) if name in conv.unit_overloads and decl is not None else None
            if not conv.library_header or decl is None or name not in conv.library_summaries:
                s = conv.summary(name, body=body)
            else:
                f = decl.location.file
                s = conv.summary(name, library=f is None or in_library(f.name, conv.library_header), body=body)
        if decl is not None and not s.says_something and s.role is None:
            i = identity_position(decl, self.passes)
            if i is not None:
                return replace(s, returns=Returns.ARGUMENT, returned=i, pure=True, source=Source.CONVENTIONS)
        return s

    def passes(self, name: str) -> int | None:
        """The argument position the callee `name` hands back by its record (the checked
        casts' g_type_check_instance_cast), or None."""
        s = self.conv.summary(name)
        return s.returned if s.returns is Returns.ARGUMENT and s.returned is not None and s.returned >= 0 else None

    def noreturn(self, decl) -> bool:
        if decl is None:
            return False
        key = cursor_key(decl)
        if key not in self.noreturn_cache:
            self.noreturn_cache[key] = is_noreturn(decl)
        return self.noreturn_cache[key]


# Whether each callee declaration of the unit parsed last is noreturn, shared by its functions'
# builds: they ask of the same few hundred declarations (the six heavy CPython units' 7,000 asks
# per check), and each answer reads the declaration's type and attributes through the binding.
# Keyed by cursor_key, which holds the unit's pointer: valid while that unit lives (weakref).
_NORETURNS: PerUnit[dict] = PerUnit()


def _unit_noreturns(tu) -> dict:
    return {} if tu is None else _NORETURNS.of(tu, dict)


def _library_record(conv, decl, name: str):
    """The record of a library (conventions/libraries.py) whose headers declare the callee and
    whose naming says what it does; a configured record wins."""
    if not name or name in conv.summaries:
        return None
    f = None
    for lib in conv.libraries:
        s = lib.record(name)
        if s is None:
            continue
        if f is None:
            f = _file_of(decl)
            if not f:
                return None
        if declares(lib, f):
            return s
    return installed_record(conv, decl, name) if conv.installed_gir else None


def installed_record(conv, decl, name: str):
    """The record an installed .gir (conventions/installed.py) gives a callee declared in a system
    header of that library; None elsewhere or where it says nothing."""
    # Asked at every call to a declared function: the location as a plain struct, the file's
    # name kept per build (name_of_file), clang's verdict only where the name does not decide.
    loc, pointer = location_file(decl)
    f = name_of_file(pointer)
    if not f or not (in_system_dir(f) or in_system_location(loc)):
        return None
    gir = gir_of(conv.installed_gir, f)
    return records(conv, gir, gir_records).get(name) if gir is not None else None


def library_declares(conv, decl) -> bool:
    """Whether one of the conventions' libraries (conventions/libraries.py: OpenSSL) declares the
    callee in its own headers: its naming table describes it, whatever name it has (not one that
    lists some records only, `Library.names_all`)."""
    f = _file_of(decl) if decl is not None else ""
    return bool(f) and any(declares(lib, f) for lib in conv.libraries if lib.names_all)


def declares(lib, path: str) -> bool:
    """Whether `path` is one of the library's headers: its main header's folder and below, or
    that one file where the library has no folder of its own (`Library.single`: sqlite3.h)."""
    return os.path.basename(path) == lib.header if lib.single else in_library(path, lib.header)


def _file_of(decl) -> str:
    """The name of the file a declaration is in ("" for none), kept per build (name_of_file)."""
    return name_of_file(location_file(decl)[1])


@functools.lru_cache(maxsize=4096)
def in_library(path: str, header: str) -> bool:
    """A header in the folder of the library's main header (Python.h) or in a folder below it."""
    d = os.path.dirname(os.path.abspath(path))
    for _ in range(3):
        if os.path.isfile(os.path.join(d, header)):
            return True
        d = os.path.dirname(d)
    return False


def resolved_callee(call, conv: Conventions):
    """`callee_of`, with a call through a library's API table named by the header's macro."""
    decl, name = callee_of(call)
    if conv.api_tables and (decl is None or kind_of(decl) == K.VAR_DECL):
        # `(*(cast) PyArray_API[69])(...)`: the function the library's macro names.
        api = api_call_name(call, conv)
        if api is not None:
            return None, api
    return decl, name


def callee_of(call):
    """(declaration or None, the name the conventions classify) of a call expression."""
    ref = referenced(call)
    if ref is None:
        ref = _parenthesized_function(call)
    if ref is not None and kind_of(ref) in FUNCTION_KINDS | {K.FUNCTION_DECL}:
        return ref, qualified_name(ref)
    if spelling(call):
        return ref, spelling(call)
    # A call in a template that depends on its parameters names an overload set, or a member
    # of a dependent object (`new_items.push_back(a)`): the member is the callee, never the object
    # (a variable named `new_items` is no acquisition).
    kids = list(children_of(call))
    stack = kids[:1]
    while stack:
        x = stack.pop()
        k = kind_of(x)
        if k == K.MEMBER_REF_EXPR:
            return ref, x.spelling or _member_token(x)
        if k == K.OVERLOADED_DECL_REF and (one := by_arity(x, len(arguments(call)))) is not None:
            return one, qualified_name(one)  # the set's one function of that arity (frontend.overloadsets)
        if k in (K.OVERLOADED_DECL_REF, K.DECL_REF_EXPR) and x.spelling:
            return ref, x.spelling
        stack.extend(children_of(x))
    return ref, ""


def _parenthesized_function(call):
    """The function a parenthesized callee names, `(destroy) (_ptr)` in GLib's g_clear_pointer
    with `destroy` a function's name (`g_clear_pointer (&bio, BIO_free_all)`), where libclang
    gives the call no referenced declaration; None otherwise (a pointer variable, `(*fp)`)."""
    kids = list(children_of(call))
    e = strip(kids[0]) if kids else None
    if e is None or kind_of(e) != K.DECL_REF_EXPR:
        return None
    target = referenced(e)
    return target if target is not None and kind_of(target) == K.FUNCTION_DECL else None


def _member_token(member) -> str:
    """The member a dependent `obj.name` / `p->name` names: its last token, after `.` or `->`."""
    tokens = [t.spelling for t in member.get_tokens()]
    if len(tokens) >= 2 and tokens[-2] in (".", "->") and tokens[-1].isidentifier():
        return tokens[-1]
    return ""
