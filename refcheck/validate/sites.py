"""Mutation sites: the ownership-relevant statements of the runtime, found in its ASTs.

Each unit is parsed with refcheck's own frontend and callees are classified with the same
`Conventions` the analyzer uses, so a site is exactly a statement the analyzer gives a role.
A generic/*.c body is seen once per type; it is one source site (one mutant), and the function
names of all its instantiations are kept so that a finding in any of them counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from refcheck.conventions import TH_NEW, Conventions
from refcheck.validate.layout import Runtime

KINDS = ("delete-release", "delete-retain", "duplicate-release", "use-after-release", "early-return",
         "rename-new")
# The rules a mutant of each kind must make refcheck report in the mutated function. A leak in a
# loop that re-acquires into the same variable is RC007 by contract ("reported instead of RC001").
EXPECTED = {
    "delete-release": ("RC001", "RC007"),
    "duplicate-release": ("RC002",),
    "use-after-release": ("RC003",),
    "early-return": ("RC001",),
    "rename-new": ("RC004",),
}

# How a call is written in the source: `THTensor_(free)` in generic code, else a plain name.
_WRITTEN = re.compile(rb"\s*(?:(\w+_)\(\s*(\w+)\s*\)|(\w+))")


@dataclass(frozen=True)
class Span:
    file: str  # relative to the runtime tree's root, e.g. runtime/TH/generic/THTensor.c
    start: int  # byte offsets
    end: int


@dataclass
class Function:
    file: str
    offset: int
    name: str  # as written: THTensor_(newNarrow)
    line: int
    instantiations: set[str] = field(default_factory=set)


@dataclass
class Site:
    kind: str
    function: Function
    line: int
    column: int
    span: Span  # the call (release, retain), the statement (early return) or the name (rename)
    expected: tuple[str, ...]
    variable: str = ""
    # use-after-release: the use statement to move; rename-new: every written reference to rename.
    others: list[Span] = field(default_factory=list)
    return_text: str = ""

    @property
    def id(self) -> str:
        return f"{self.kind}@{self.span.file}:{self.line}:{self.column}"


@dataclass
class Discovery:
    sites: list[Site]
    # Statements with an ownership role that no mutant kind covers: why -> how many.
    skipped: dict[str, int] = field(default_factory=dict)
    units: int = 0
    # Each file of the runtime -> a unit that reads it (a top-level source is its own unit).
    unit_of: dict[str, str] = field(default_factory=dict)


def written_name(src: bytes, offset: int, spelling: str) -> tuple[int, int] | None:
    """Offsets of the name token of `spelling` as written at offset, or None (a macro's work)."""
    m = _WRITTEN.match(src, offset)
    if m is None:
        return None
    if m.group(3) is not None:
        return (m.start(3), m.end(3)) if m.group(3).decode() == spelling else None
    inner = m.group(2).decode()
    if "_" in spelling and spelling.split("_", 1)[1] == inner:
        return m.start(2), m.end(2)
    return None


def discover(runtime: Runtime, conventions: Conventions | None = None) -> Discovery:
    from refcheck.frontend.unit import parse

    conv = conventions or Conventions()
    sources = _Sources(runtime)
    functions: dict[tuple[str, int], Function] = {}
    found: dict[str, Site] = {}
    skipped: dict[str, set] = {}
    refs: dict[str, set[Span]] = {}
    usr_of: dict[tuple[str, int], set[str]] = {}
    names: set[str] = set()
    units = runtime.units()
    unit_of = {runtime.relative(u): runtime.relative(u) for u in units}
    for unit in units:
        parsed = parse(unit, runtime.clang_args())
        for inc in parsed.includes:
            name = runtime.relative(inc)
            if name.startswith("runtime/"):
                unit_of.setdefault(name, runtime.relative(unit))
        _collect_refs(parsed.tu.cursor, runtime, sources, refs, names)
        for fn in parsed.functions:
            rel = _rel(fn, runtime)
            if rel is None:
                continue
            key = (rel, fn.extent.start.offset)
            info = functions.get(key)
            if info is None:
                info = functions[key] = Function(rel, key[1], _display_name(sources.get(rel), fn),
                                                 fn.extent.start.line)
            info.instantiations.add(fn.spelling)
            usr_of.setdefault(key, set()).add(fn.get_usr())
            body = _FunctionWalk(fn, conv, sources, runtime, info)
            for site in body.sites(skipped):
                found.setdefault(site.id, site)
            if body.returns_owned() and re.search(TH_NEW, fn.spelling):
                rename = body.rename_site()
                if rename is not None:
                    found.setdefault(rename.id, rename)
    for site in found.values():
        if site.kind == "rename-new":
            key = (site.function.file, site.function.offset)
            site.others = sorted({s for usr in usr_of.get(key, ()) for s in refs.get(usr, ())} - {site.span},
                                 key=lambda s: (s.file, s.start))
    sites = sorted(found.values(), key=lambda s: (s.span.file, s.span.start, s.kind))
    return Discovery(sites, {why: len(places) for why, places in sorted(skipped.items())}, len(units), unit_of)


class _Sources:
    """File bytes by relative path, read once."""

    def __init__(self, runtime: Runtime):
        self.runtime = runtime
        self.cache: dict[str, bytes] = {}

    def get(self, rel: str) -> bytes:
        if rel not in self.cache:
            with open(self.runtime.path(rel), "rb") as f:
                self.cache[rel] = f.read()
        return self.cache[rel]


def _rel(cursor, runtime: Runtime) -> str | None:
    f = cursor.extent.start.file
    if f is None:
        return None
    rel = runtime.relative(f.name)
    return rel if rel.startswith("runtime/") else None


def _display_name(src: bytes, fn) -> str:
    """THTensor_(newNarrow) for generic code, else the plain name."""
    m = _WRITTEN.match(src, fn.location.offset)
    if m and m.group(2) and written_name(src, fn.location.offset, fn.spelling):
        return f"{m.group(1).decode()}({m.group(2).decode()})"
    return fn.spelling


def _collect_refs(root, runtime: Runtime, sources: _Sources, refs: dict, names: set) -> None:
    """Every written reference to a function (declarations, definitions, calls), by USR."""
    import clang.cindex as ci

    K = ci.CursorKind
    for top in root.get_children():
        if top.location.file is None or _rel(top, runtime) is None:
            continue
        for c in top.walk_preorder():
            if c.kind == K.FUNCTION_DECL:
                target = c
                names.add(c.spelling)
            elif c.kind == K.DECL_REF_EXPR and c.referenced is not None and c.referenced.kind == K.FUNCTION_DECL:
                target = c.referenced
            else:
                continue
            loc = c.location
            if loc.file is None:
                continue
            rel = runtime.relative(loc.file.name)
            if not rel.startswith("runtime/"):
                continue
            span = written_name(sources.get(rel), loc.offset, target.spelling)
            if span is not None:
                refs.setdefault(target.get_usr(), set()).add(Span(rel, *span))


def _strip(c):
    import clang.cindex as ci

    K = ci.CursorKind
    while c is not None and c.kind in (K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR, K.PAREN_EXPR):
        kids = list(c.get_children())
        c = kids[-1] if kids else None
    return c


class _FunctionWalk:
    """One function definition: its variables' origins and the sites its statements offer."""

    def __init__(self, fn, conv: Conventions, sources: _Sources, runtime: Runtime, info: Function):
        import clang.cindex as ci

        self.K = ci.CursorKind
        self.fn, self.conv, self.sources, self.runtime, self.info = fn, conv, sources, runtime, info
        self.nodes: list[tuple[object, object]] = []  # (node, parent), preorder
        stack = [(c, fn) for c in reversed(list(fn.get_children()))]
        while stack:
            node, parent = stack.pop()
            self.nodes.append((node, parent))
            stack.extend((c, node) for c in reversed(list(node.get_children())))
        # The analyzer does not track the parameters of the functions that implement the count
        # (their ownership depends on the count itself), so no mutant there can be expected to show.
        self.primitive = conv.classify(fn.spelling) in ("release", "consume", "retain")
        self.origins: dict[tuple, set[str]] = {}  # variable -> where its values come from
        self.copied_from: dict[tuple, set[tuple]] = {}  # variable -> variables assigned to it
        for node, _ in self.nodes:
            self._note_origin(node)

    # --- variables ---------------------------------------------------------------------------

    def _var(self, expr):
        """The local variable or parameter an expression names, as a hashable key, else None."""
        e = _strip(expr)
        if e is None or e.kind != self.K.DECL_REF_EXPR or e.referenced is None:
            return None
        ref = e.referenced
        if ref.kind == self.K.PARM_DECL:
            return ("param", ref.spelling, ref.extent.start.offset)
        if ref.kind == self.K.VAR_DECL and ref.semantic_parent is not None and \
                ref.semantic_parent.kind == self.K.FUNCTION_DECL:
            return ("local", ref.spelling, ref.extent.start.offset)
        return None

    def _source_kind(self, expr) -> str:
        e = _strip(expr)
        if e is None:
            return "other"
        if e.kind == self.K.CALL_EXPR:
            role = self.conv.classify(e.spelling)
            return "acquire" if role in ("acquire", "reallocate") else "other"
        v = self._var(e)
        if v is not None:
            return "param" if v[0] == "param" else "alias"
        return "other"

    def _note_origin(self, node) -> None:
        K = self.K
        if node.kind == K.VAR_DECL and node.semantic_parent is not None and \
                node.semantic_parent.kind == K.FUNCTION_DECL:
            kids = [c for c in node.get_children() if c.kind not in (K.TYPE_REF, K.TEMPLATE_REF)]
            if kids:
                self._assigned(("local", node.spelling, node.extent.start.offset), kids[-1])
        elif node.kind == K.CALL_EXPR and self.conv.classify(node.spelling) == "retain":
            for a in node.get_arguments():
                v = self._var(a)
                if v is not None:
                    self.origins.setdefault(v, set()).add("retain")
        elif node.kind == K.BINARY_OPERATOR and self._is_assignment(node):
            lhs, rhs = list(node.get_children())
            v = self._var(lhs)
            if v is not None:
                self._assigned(v, rhs)

    def _assigned(self, v, expr) -> None:
        self.origins.setdefault(v, set()).add(self._source_kind(expr))
        source = self._var(expr)
        if source is not None:
            self.copied_from.setdefault(v, set()).add(source)

    def _aliases(self, v) -> set:
        """v and every local that copies it (`a = m1` after `retain(m1)` releases m1 as a)."""
        out, todo = {v}, [v]
        while todo:
            x = todo.pop()
            for target, sources in self.copied_from.items():
                if x in sources and target not in out:
                    out.add(target)
                    todo.append(target)
        return out

    def _is_assignment(self, node) -> bool:
        kids = list(node.get_children())
        if len(kids) != 2:
            return False
        src = self.sources.get(self.info.file)
        a, b = kids[0].extent.end.offset, kids[1].extent.start.offset
        return kids[0].extent.start.file is not None and src[a:b].strip() == b"="

    def _owned(self, v) -> bool:
        """Can this variable hold a reference the function owns (so that its release matters)?"""
        origins = self.origins.get(v, set())
        return "acquire" in origins or "retain" in origins

    def _param_like(self, v) -> bool:
        """A parameter, or a local only ever set from parameters (what RC006 can see)."""
        if v[0] == "param":
            return True
        origins = self.origins.get(v, set()) - {"retain"}
        return bool(origins) and origins <= {"param", "alias"}

    # --- sites -------------------------------------------------------------------------------

    def _written(self, call) -> bool:
        """The call is written here (not produced by a macro such as TH_TENSOR_APPLY)."""
        rel = _rel(call, self.runtime)
        return rel == self.info.file and written_name(
            self.sources.get(rel), call.extent.start.offset, call.spelling) is not None

    def _statement_call(self, node, parent) -> bool:
        K = self.K
        return node.kind == K.CALL_EXPR and node.type.kind.name == "VOID" and parent.kind in (
            K.COMPOUND_STMT, K.IF_STMT, K.WHILE_STMT, K.FOR_STMT, K.DO_STMT, K.CASE_STMT,
            K.DEFAULT_STMT, K.LABEL_STMT)

    def _site(self, kind, node, span: Span, expected, **extra) -> Site:
        return Site(kind, self.info, node.extent.start.line, node.extent.start.column, span, expected, **extra)

    def _call_span(self, node) -> Span:
        return Span(self.info.file, node.extent.start.offset, node.extent.end.offset)

    def _statement_end(self, offset: int) -> int | None:
        """Offset just past the `;` that ends the expression statement ending at offset."""
        src = self.sources.get(self.info.file)
        i = offset
        while i < len(src) and src[i:i + 1] in b" \t\r\n":
            i += 1
        return i + 1 if src[i:i + 1] == b";" else None

    def _tracked_arg(self, call):
        for a in call.get_arguments():
            v = self._var(a)
            if v is not None and not self._is_context(a):
                return v
        return None

    def _is_context(self, expr) -> bool:
        """THC's `state` is a handle passed along, never a counted reference."""
        pointee = expr.type.get_canonical().get_pointee()
        name = pointee.spelling.replace("const ", "").replace("struct ", "").strip()
        return self.conv.matches("context", name)

    def _skip(self, skipped: dict, reason: str, node) -> None:
        # Keyed by place: a generic body seen once per type is one skipped statement.
        skipped.setdefault(reason, set()).add((_rel(node, self.runtime), node.extent.start.offset))

    def sites(self, skipped: dict):
        K = self.K
        for node, parent in self.nodes:
            if node.kind != K.CALL_EXPR:
                continue
            role = self.conv.classify(node.spelling)
            if role not in ("release", "retain"):
                continue
            if not self._statement_call(node, parent) or not self._written(node):
                self._skip(skipped, f"{role} not written as a statement of its own (macro or expression)", node)
                continue
            v = self._tracked_arg(node)
            if v is None:
                self._skip(skipped, f"{role} of a value loaded from memory (fields are the object's own)", node)
                continue
            if v[0] == "param" and self.primitive:
                self._skip(skipped, f"{role} of a parameter inside a release/retain function "
                                    "(the analyzer does not track those parameters)", node)
                continue
            if role == "release":
                if not self._owned(v):
                    self._skip(skipped, "release of a local that holds no owned reference", node)
                    continue
                span = self._call_span(node)
                yield self._site("delete-release", node, span, EXPECTED["delete-release"], variable=v[1])
                yield self._site("duplicate-release", node, span, EXPECTED["duplicate-release"], variable=v[1])
                moved = self._use_before(node, parent, v)
                if moved is not None:
                    yield self._site("use-after-release", node, span, EXPECTED["use-after-release"],
                                     variable=v[1], others=[moved])
                elif parent.kind == K.COMPOUND_STMT:
                    self._skip(skipped, "release with no use before it in its block to move", node)
            else:
                expected = self._retain_expectation(node, v)
                if expected is None:
                    self._skip(skipped, "retain whose reference is stored, not released or returned", node)
                    continue
                yield self._site("delete-retain", node, self._call_span(node), expected, variable=v[1])
        yield from self._early_returns(skipped)

    def _after(self, offset: int):
        return [(n, p) for n, p in self.nodes if n.extent.start.offset > offset
                and n.extent.start.file is not None and _rel(n, self.runtime) == self.info.file]

    def _retain_expectation(self, call, v) -> tuple[str, ...] | None:
        later = self._after(call.extent.end.offset)
        names = self._aliases(v)
        released = any(n.kind == self.K.CALL_EXPR and self.conv.classify(n.spelling) == "release"
                       and any(self._var(a) in names for a in n.get_arguments()) for n, _ in later)
        if released and self._param_like(v):
            return ("RC006",)
        returned = any(n.kind == self.K.RETURN_STMT and any(self._var(c) in names for c in n.get_children())
                       for n, _ in later)
        if returned and self.conv.matches("acquire", self.fn.spelling):
            return ("RC005",)
        return None

    def _uses(self, stmt, v) -> bool:
        """Does the statement dereference v or pass it to a call, with no ownership call in it?"""
        K = self.K
        uses = False
        for n in stmt.walk_preorder():
            if n.kind == K.CALL_EXPR:
                if self.conv.classify(n.spelling) is not None:
                    return False
                if any(self._var(a) == v for a in n.get_arguments()):
                    uses = True
            elif n.kind in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR):
                kids = list(n.get_children())
                if kids and self._var(kids[0]) == v:
                    uses = True
            elif n.kind == K.BINARY_OPERATOR and self._is_assignment(n):
                if self._var(list(n.get_children())[0]) == v:
                    return False
        return uses

    def _use_before(self, release, parent, v) -> Span | None:
        """The nearest expression statement before the release in its block that uses v."""
        K = self.K
        if parent.kind != K.COMPOUND_STMT:
            return None
        before = []
        for s in parent.get_children():
            if s.extent.start.offset >= release.extent.start.offset:
                break
            before.append(s)
        for s in reversed(before):
            if s.kind in (K.CALL_EXPR, K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and \
                    _rel(s, self.runtime) == self.info.file and self._uses(s, v):
                end = self._statement_end(s.extent.end.offset)
                if end is not None:
                    return Span(self.info.file, s.extent.start.offset, end)
            if any(self._var(n) == v for n in s.walk_preorder() if n.kind == K.DECL_REF_EXPR):
                return None  # v is touched in a way we do not move: stop looking further back
        return None

    def _return_text(self) -> str | None:
        kind = self.fn.result_type.get_canonical().kind.name
        if kind == "VOID":
            return "return;"
        if kind in ("RECORD", "ELABORATED", "CONSTANTARRAY"):
            return None
        return "return 0;"

    def _early_returns(self, skipped: dict):
        K = self.K
        ret = self._return_text()
        for node, _ in self.nodes:
            if node.kind != K.COMPOUND_STMT:
                continue
            stmts = list(node.get_children())
            for i, s in enumerate(stmts):
                v, call = self._acquisition(s)
                if v is None:
                    continue
                later = [n for t in stmts[i + 1:] for n in t.walk_preorder()]
                if not any(n.kind == K.CALL_EXPR and self.conv.classify(n.spelling) == "release"
                           and any(self._var(a) == v for a in n.get_arguments()) for n in later):
                    self._skip(skipped, "acquisition released outside its block (or handed over)", s)
                    continue
                if ret is None:
                    self._skip(skipped, "acquisition in a function returning a struct", s)
                    continue
                end = s.extent.end.offset if s.kind == K.DECL_STMT else self._statement_end(s.extent.end.offset)
                src = self.sources.get(self.info.file)
                if end is None or src[end - 1:end] != b";" or not self._written(call):
                    self._skip(skipped, "acquisition not written as a statement of its own", s)
                    continue
                yield Site("early-return", self.info, s.extent.start.line, s.extent.start.column,
                           Span(self.info.file, s.extent.start.offset, end), EXPECTED["early-return"],
                           variable=v[1], return_text=ret)

    def _acquisition(self, stmt):
        """(variable, call) when the statement stores an acquisition's result in a local."""
        K = self.K
        if _rel(stmt, self.runtime) != self.info.file:
            return None, None
        if stmt.kind == K.DECL_STMT:
            decls = list(stmt.get_children())
            if len(decls) != 1 or decls[0].kind != K.VAR_DECL:
                return None, None
            kids = [c for c in decls[0].get_children() if c.kind != K.TYPE_REF]
            init = _strip(kids[-1]) if kids else None
            var = ("local", decls[0].spelling, decls[0].extent.start.offset)
        elif stmt.kind == K.BINARY_OPERATOR and self._is_assignment(stmt):
            lhs, rhs = list(stmt.get_children())
            init, var = _strip(rhs), self._var(lhs)
        else:
            return None, None
        if var is None or init is None or init.kind != K.CALL_EXPR or \
                self.conv.classify(init.spelling) not in ("acquire", "reallocate"):
            return None, None
        return var, init

    # --- rename ------------------------------------------------------------------------------

    def returns_owned(self) -> bool:
        K = self.K
        for node, _ in self.nodes:
            if node.kind != K.RETURN_STMT:
                continue
            for c in node.get_children():
                e = _strip(c)
                if e is None:
                    continue
                if e.kind == K.CALL_EXPR and self.conv.classify(e.spelling) in ("acquire", "reallocate"):
                    return True
                v = self._var(e)
                if v is not None and self._owned(v) and v[0] == "local":
                    return True
        return False

    def rename_site(self) -> Site | None:
        src = self.sources.get(self.info.file)
        span = written_name(src, self.fn.location.offset, self.fn.spelling)
        if span is None or _rel(self.fn, self.runtime) != self.info.file:
            return None
        return Site("rename-new", self.info, self.fn.location.line, self.fn.location.column,
                    Span(self.info.file, *span), EXPECTED["rename-new"])
