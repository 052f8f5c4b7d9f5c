"""A tiny model of TH-style C functions, and its C text with one statement per line.

The generator builds these, the oracle executes them, and refcheck reads the C text; keeping one
statement per line makes "the primary line of a finding" mean the same thing to both sides.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

# Local pointers are "t0".."t3"; "p" is the borrowed THFloatTensor* parameter.
NVARS = 4
NCONDS = 3
# The enumerators of `enum th_kind`, the type of the parameter `k` that switches read.
NKINDS = 3
ACQUIRE = "THFloatTensor_newClone"
CONTIGUOUS = "THFloatTensor_newContiguous"
HEADER = "th_mini.h"


@dataclass(frozen=True)
class Acquire:
    var: str  # tK = THFloatTensor_newClone(arg);
    arg: str = "p"
    # if ((tK = THFloatTensor_newClone(arg)) == NULL) return ...;
    checked: Return | None = None
    # tK = THFloatTensor_newContiguous(arg);  an acquirer that may return its argument (+1), so
    # its result is not known to differ from arg's object (semantics.md, may-return-argument).
    contiguous: bool = False

    @property
    def callee(self) -> str:
        return CONTIGUOUS if self.contiguous else ACQUIRE


@dataclass(frozen=True)
class Discard:
    # THFloatTensor_newClone(p);  the result is dropped on the floor, or with `into_call`
    # sinkp(THFloatTensor_newClone(p));  passed straight into a call that does not release.
    into_call: bool = False
    # if (THFloatTensor_newClone(p) != NULL) abort();  (or THError(...)): the result tested straight
    # in a condition dies on the test's edges; on the non-NULL one the path ends at `tested`, where
    # an abort (and, with errors="abort", THError) checks nothing (semantics.md, Conditions).
    tested: Error | None = None


@dataclass(frozen=True)
class Release:
    target: str  # THFloatTensor_free(x);  x is "tK" or "p"


@dataclass(frozen=True)
class Store:
    target: str  # g_keep = x;  hands one owned reference over to memory
    # "sink": THCThreadLocal_set(g_local, x);  a callee that keeps the reference (a convention
    # sink, semantics.md), the same hand-over as a store.
    via: str = "global"


@dataclass(frozen=True)
class Move:
    target: str  # THFloatTensor_move(x);  consumes the reference


@dataclass(frozen=True)
class Retain:
    pass  # THFloatTensor_retain(p);


@dataclass(frozen=True)
class Resize:
    # THFloatTensor_resizeAs(target, source);  target now has source's size (semantics.md, same size)
    target: str
    source: str


@dataclass(frozen=True)
class SizeCheck:
    # if (THFloatTensor_nElement(target) != THFloatTensor_nElement(source)) THError(...);
    # TH_TENSOR_APPLY2's "inconsistent tensor size" check, on one line.
    target: str
    source: str


@dataclass(frozen=True)
class Assign:
    var: str
    source: str  # "p", "tJ" or "NULL"


@dataclass(frozen=True)
class Use:
    target: str
    deref: bool  # sink(x->nDimension);  or  sinkp(x);


@dataclass(frozen=True)
class Return:
    value: str | None  # "tK", "p", "NULL", "0"; None in a void function


@dataclass(frozen=True)
class NullCheck:
    target: str
    ret: Return  # if (!x) return ...;


@dataclass(frozen=True)
class If:
    # An int N: if (cN) { ... } else { ... }.  A pointer name x: the null test if (!x) { ... },
    # or if (x) { ... } when `positive`.  A pair of pointer names (x, y): if (x != y) { ... }.
    cond: int | str | tuple
    then: tuple
    orelse: tuple | None = None
    positive: bool = False

    def text(self) -> str:
        if isinstance(self.cond, int):
            return f"if (c{self.cond}) {{"
        if isinstance(self.cond, tuple):
            return f"if ({self.cond[0]} != {self.cond[1]}) {{"
        return f"if ({'' if self.positive else '!'}{self.cond}) {{"


@dataclass(frozen=True)
class Switch:
    # switch (k) { case KN: ... break; ... }  over the enum parameter k, without a default: one
    # (enumerator, body) pair per case. Cases naming every enumerator make it exhaustive, with
    # no edge past it (semantics.md, precision 6); else the missing enumerators fall past it.
    cases: tuple

    @property
    def exhaustive(self) -> bool:
        return {n for n, _ in self.cases} == set(range(NKINDS))


@dataclass(frozen=True)
class Flag:
    # cN = !x;  (or cN = x != NULL;  when `positive`): an int flag recording a null test, which a
    # later if (cN) reads although x may have changed since (semantics.md, flags).
    cond: int
    target: str
    positive: bool = False


@dataclass(frozen=True)
class Goto:
    # While generating: how many top-level statements ahead (negative: backwards) the target
    # label goes; `place_labels` turns it into a label number.
    ahead: int = 1
    label: int | None = None


@dataclass(frozen=True)
class Label:
    label: int


@dataclass(frozen=True)
class Error:
    # THError("...");  never returns.  With `exit`: abort();  which leaves the process, so it
    # needs no cleanup even with errors="unwind".
    exit: bool = False
    # An int N: __THCudaCheck(cN, __FILE__, __LINE__);  real THC's THCudaCheck, an error only
    # when the status cN is nonzero (as `if (cN) THError(...)`), else it returns.
    status: int | None = None


# Loop forms: only in the programs that are checked for termination, not compared.
@dataclass(frozen=True)
class While:
    cond: int
    body: tuple


@dataclass(frozen=True)
class For:
    cond: int  # for (i = 0; i < cN; i++) { ... }
    body: tuple


@dataclass(frozen=True)
class Break:
    pass


@dataclass(frozen=True)
class Function:
    name: str  # newThingN (acquire-named) or makeThingN
    returns: str  # "ptr", "int" or "void"
    body: tuple

    @property
    def acquire_named(self) -> bool:
        return self.name.startswith("new")


RETURN_TYPE = {"ptr": "THFloatTensor *", "int": "int ", "void": "void "}


@dataclass
class Layout:
    """Where each statement of one function landed in the file."""

    # Statement path (indices into nested bodies, see `children`) -> line.
    lines: dict[tuple, int] = field(default_factory=dict)
    first: int = 0  # the function's signature line
    closing: int = 0  # its closing brace


def children(stmt) -> list[tuple[str, tuple]]:
    """The nested bodies of a statement, keyed the way statement paths name them."""
    if isinstance(stmt, If):
        out = [("then", stmt.then)]
        if stmt.orelse is not None:
            out.append(("else", stmt.orelse))
        return out
    if isinstance(stmt, (While, For)):
        return [("body", stmt.body)]
    if isinstance(stmt, Switch):
        return [(f"case{n}", body) for n, body in stmt.cases]
    return []


def variables(body: tuple) -> set[str]:
    """The local pointers a body mentions, so that only those get declared."""
    names: set[str] = set()

    def visit(stmts):
        for s in stmts:
            for attr in ("var", "target", "source", "arg"):
                v = getattr(s, attr, None)
                if isinstance(v, str) and v.startswith("t"):
                    names.add(v)
            if isinstance(s, NullCheck):
                visit((s.ret,))
            if isinstance(s, Acquire) and s.checked is not None:
                visit((s.checked,))
            if isinstance(s, If) and not isinstance(s.cond, int):
                names.update(v for v in ((s.cond,) if isinstance(s.cond, str) else s.cond)
                             if v.startswith("t"))
            if isinstance(s, Return) and s.value and s.value.startswith("t"):
                names.add(s.value)
            for _, sub in children(s):
                visit(sub)

    visit(body)
    return names


def has_loops(body: tuple) -> bool:
    for s in body:
        if isinstance(s, (While, For)) or any(has_loops(sub) for _, sub in children(s)):
            return True
    return False


def return_text(r: Return) -> str:
    return "return;" if r.value is None else f"return {r.value};"


def statement_text(s) -> str:
    if isinstance(s, Acquire):
        if s.checked is not None:
            return f"if (({s.var} = {s.callee}({s.arg})) == NULL) {return_text(s.checked)}"
        return f"{s.var} = {s.callee}({s.arg});"
    if isinstance(s, Discard):
        if s.tested is not None:
            return f"if ({ACQUIRE}(p) != NULL) {statement_text(s.tested)}"
        return f"sinkp({ACQUIRE}(p));" if s.into_call else f"{ACQUIRE}(p);"
    if isinstance(s, Release):
        return f"THFloatTensor_free({s.target});"
    if isinstance(s, Retain):
        return "THFloatTensor_retain(p);"
    if isinstance(s, Store):
        return f"THCThreadLocal_set(g_local, {s.target});" if s.via == "sink" else f"g_keep = {s.target};"
    if isinstance(s, Move):
        return f"THFloatTensor_move({s.target});"
    if isinstance(s, Assign):
        return f"{s.var} = {s.source};"
    if isinstance(s, Resize):
        return f"THFloatTensor_resizeAs({s.target}, {s.source});"
    if isinstance(s, SizeCheck):
        return (f"if (THFloatTensor_nElement({s.target}) != THFloatTensor_nElement({s.source})) "
                'THError("inconsistent tensor size");')
    if isinstance(s, Use):
        return f"sink({s.target}->nDimension);" if s.deref else f"sinkp({s.target});"
    if isinstance(s, Return):
        return return_text(s)
    if isinstance(s, NullCheck):
        return f"if (!{s.target}) {return_text(s.ret)}"
    if isinstance(s, Flag):
        return f"c{s.cond} = {s.target} != NULL;" if s.positive else f"c{s.cond} = !{s.target};"
    if isinstance(s, Goto):
        return f"goto L{s.label};"
    if isinstance(s, Label):
        return f"L{s.label}:;"
    if isinstance(s, Error):
        if s.status is not None:
            return f"__THCudaCheck(c{s.status}, __FILE__, __LINE__);"
        return "abort();" if s.exit else 'THError("differential: error path");'
    if isinstance(s, Break):
        return "break;"
    raise TypeError(f"no text for {s!r}")


def emit_function(fn: Function, first_line: int) -> tuple[list[str], Layout]:
    """C text of `fn` starting at `first_line`, and where each statement went."""
    layout = Layout(first=first_line)
    out: list[str] = []

    def line(text: str, depth: int) -> int:
        out.append("  " * depth + text)
        return first_line + len(out) - 1

    line(f"{RETURN_TYPE[fn.returns]}{fn.name}(THFloatTensor *p, int c0, int c1, int c2, enum th_kind k)", 0)
    line("{", 0)
    for v in sorted(variables(fn.body)):
        line(f"THFloatTensor *{v} = NULL;", 1)
    if has_loops(fn.body):
        line("int i = 0;", 1)

    def block(stmts: tuple, path: tuple, depth: int) -> None:
        for i, s in enumerate(stmts):
            here = path + (i,)
            if isinstance(s, If):
                layout.lines[here] = line(s.text(), depth)
                block(s.then, here + ("then",), depth + 1)
                if s.orelse is not None:
                    line("} else {", depth)
                    block(s.orelse, here + ("else",), depth + 1)
                line("}", depth)
            elif isinstance(s, While):
                layout.lines[here] = line(f"while (c{s.cond}) {{", depth)
                block(s.body, here + ("body",), depth + 1)
                line("}", depth)
            elif isinstance(s, For):
                layout.lines[here] = line(f"for (i = 0; i < c{s.cond}; i++) {{", depth)
                block(s.body, here + ("body",), depth + 1)
                line("}", depth)
            elif isinstance(s, Switch):
                layout.lines[here] = line("switch (k) {", depth)
                for n, body in s.cases:
                    line(f"case K{n}:", depth)
                    block(body, here + (f"case{n}",), depth + 1)
                    line("break;", depth + 1)
                line("}", depth)
            else:
                layout.lines[here] = line(statement_text(s), depth)

    block(fn.body, (), 1)
    layout.closing = line("}", 0)
    line("", 0)
    return out, layout


def emit_unit(functions: list[Function]) -> tuple[str, list[Layout]]:
    """One C file holding every function, plus the layout of each."""
    lines = [f'#include "{HEADER}"', ""]
    layouts = []
    for fn in functions:
        text, layout = emit_function(fn, len(lines) + 1)
        lines.extend(text)
        layouts.append(layout)
    return "\n".join(lines) + "\n", layouts


HEADER_TEXT = """\
/* Just enough of TH for the differential test's generated functions. */
#ifndef TH_MINI_H
#define TH_MINI_H
#define NULL ((void *)0)
typedef struct THFloatTensor { long nDimension; long *size; int refcount; } THFloatTensor;
enum th_kind { K0, K1, K2 };
THFloatTensor *THFloatTensor_newClone(THFloatTensor *self);
THFloatTensor *THFloatTensor_newContiguous(THFloatTensor *self);
void THFloatTensor_free(THFloatTensor *self);
void THFloatTensor_retain(THFloatTensor *self);
void THFloatTensor_move(THFloatTensor *self);
void THFloatTensor_resizeAs(THFloatTensor *self, THFloatTensor *src);
long THFloatTensor_nElement(THFloatTensor *self);
extern THFloatTensor *g_keep;
extern void *g_local;
void THCThreadLocal_set(void *local, void *value);
void __THCudaCheck(int err, const char *file, int line);
void THError(const char *fmt, ...);
void abort(void);
void sink(long value);
void sinkp(THFloatTensor *t);
#endif
"""


def place_labels(body: tuple) -> tuple:
    """Turn each Goto's `ahead` into a top-level label `ahead` statements away.

    Labels live only at the top level, so a forward goto (ahead >= 1) can never make a loop and
    the oracle can treat the body as a straight sequence with jumps forward.
    """
    n = len(body)
    targets: dict[int, int] = {}  # top-level position the label precedes -> label number

    def target(i: int, ahead: int) -> int:
        pos = min(max(i + ahead, 0), n)
        return targets.setdefault(pos, len(targets))

    def fix(stmts: tuple, top: int) -> tuple:
        out = []
        for s in stmts:
            if isinstance(s, Goto):
                s = Goto(ahead=s.ahead, label=target(top, s.ahead))
            elif isinstance(s, If):
                s = replace(s, then=fix(s.then, top),
                            orelse=None if s.orelse is None else fix(s.orelse, top))
            elif isinstance(s, While):
                s = While(s.cond, fix(s.body, top))
            elif isinstance(s, For):
                s = For(s.cond, fix(s.body, top))
            elif isinstance(s, Switch):
                s = Switch(tuple((n, fix(body, top)) for n, body in s.cases))
            out.append(s)
        return tuple(out)

    fixed = [fix((s,), i)[0] for i, s in enumerate(body)]
    result = []
    for i in range(n + 1):
        if i in targets:
            result.append(Label(targets[i]))
        if i < n:
            result.append(fixed[i])
    return tuple(result)
