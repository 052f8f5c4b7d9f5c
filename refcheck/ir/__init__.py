"""The operations a CFG node performs, reduced to what matters for ownership.

Values are named by strings: local variables and parameters (`t#1234`, unique per declaration),
temporaries (`$3`) for intermediate results such as call results. A value that refcheck does not
track (an int, the result of a borrowing call) is simply `None` where an operand is expected.
"""

from __future__ import annotations

from dataclasses import dataclass

from refcheck.findings import Location


@dataclass(frozen=True)
class Op:
    loc: Location


# The load key of a singleton's address (`&_Py_NoneStruct`, which Py_None is) is this and its name.
SINGLETON_KEY = "&global:"


@dataclass(frozen=True)
class Acquire(Op):
    dst: str
    callee: str
    # For an acquirer that may return its argument (newContiguous): the value passed there, the
    # only existing object the result may be. None: the result is fresh, or the argument untracked.
    source: str | None = None
    # The type the result points to when it is a named record (`THLongTensor` for
    # THSFloatTensor_newIndices): the object's family, whatever the acquirer's name says.
    family: str = ""
    # A block of scalars, returned (THNN's `real *generateIntervals(...)`) or filled through an
    # out-parameter (cutorch's static
    # `THFloatTensor_computesz(t, &long_sz, ...)`): no tensor, so the name's prefix says nothing
    # of its family.
    scalars: bool = False
    # The singleton's load key (`&global:_Py_NoneStruct`) the acquirer may return bare, borrowed
    # (Summary.unless_singleton): where the result equals it, nothing is owned.
    unless: str = ""
    # The acquirer never returns NULL (the conventions' `never_null`): its result's null test
    # has one feasible edge.
    nonnull: bool = False
    # The result is a new object whatever the callee's name says (a Py_BuildValue format that
    # makes a container): distinct from every parameter, earlier result and singleton.
    fresh: bool = False
    # A holder outliving the call holds the object too (`Summary.result_held`, a fill the
    # conventions' `held_fills` names): our last release leaves it alive, borrowed.
    held: bool = False


@dataclass(frozen=True)
class Realloc(Op):
    """dst = realloc(src, n). When it may fail, the old block is released only once dst is known
    to be non-NULL (the CFG follows it with a test of dst)."""

    dst: str
    src: str | None
    callee: str
    may_fail: bool = False


@dataclass(frozen=True)
class Retain(Op):
    var: str
    callee: str
    # The callee takes its own reference and keeps it (Effect.KEEP): ours is unchanged, and the
    # object outlives our last release.
    kept: bool = False
    # The keeper is a holder that outlives the function (a global or static, or memory a
    # parameter reaches: `PyContextVar_Set (var, ctx)`): a result it keeps is held (`Summary.result_held`).
    lasting: bool = False


@dataclass(frozen=True)
class Release(Op):
    vars: tuple[str, ...]
    callee: str
    consume: bool = False
    cleanup: bool = False  # a cleanup attribute's release at an exit of its variable's scope
    # The one struct the releaser's pointer parameters point to (`OPENSSL_sk_free (OPENSSL_STACK
    # *)`: stack_st), its family where the name's prefix would say another; "" when not one.
    record: str = ""


@dataclass(frozen=True)
class Call(Op):
    """A call that borrows its arguments (kept so the graph shows every call, kernel launches too)."""

    callee: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Use(Op):
    """A dereference (`deref`: `x->f`, `*x`, `x[i]`), or the value passed to a function that
    borrows it. After a dereference x is not NULL: a path on which it was ends there (a crash is
    no exit that needs cleanup, and no real run of a working program takes it)."""

    var: str
    deref: bool = False
    # Passed to a call whose record says it keeps that argument nowhere (Summary.unkept): the
    # pointer does not leave the caller's frame (analysis: Obj.escaped).
    unkept: bool = False


@dataclass(frozen=True)
class Assign(Op):
    """dst = src: dst now aliases src's object (src None: an untracked value; null: NULL)."""

    dst: str
    src: str | None
    null: bool = False
    # The address of a member or of an array's element (`&p->f[0]`, `&local[i]`): untracked,
    # but never NULL, so a later null test of dst is decided.
    nonnull: bool = False


@dataclass(frozen=True)
class Load(Op):
    """dst = a pointer read from memory (a field, a global, *p): a borrowed reference.

    Loads of the same expression text (`self->storage`) are the same object until one of the
    local variables it mentions (deps) is assigned or the location is stored to."""

    dst: str
    what: str
    deps: frozenset = frozenset()
    key: str = ""  # structural identity of the expression; empty when it cannot be shared
    # The borrowing call whose pointer result this is (`luaT_checkudata`, `THFloatTensor_storage`):
    # the caller holds no reference to it. Empty: a load from memory.
    call: str = ""
    # `*p` or `p[0]`: the variable p (a parameter's slot, `PyObject **op`, holds it), else None.
    through: str | None = None


@dataclass(frozen=True)
class Store(Op):
    """var's reference is written to memory (a field, a global, *out): handed over."""

    var: str | None
    target: str = ""  # the structural key of the location written: earlier loads of it are forgotten
    deps: frozenset = frozenset()  # the local variables the target's address depends on
    sink: str = ""  # the sink call that keeps the reference (luaT_pushudata); empty: a store
    through: str | None = None  # `*p = v` or `p[0] = v`: the variable p (an out-parameter's fill)
    floating: bool = False  # takes over only a floating reference (Effect.SINK_FLOATING); reads any other
    member: str = ""  # `return s;` of a local struct: the field of s whose value goes to the caller
    # var is a cleanup-attribute variable (`g_autoptr`): it keeps its reference until its scope
    # ends (handing it over is spelled g_steal_pointer), so a plain store of it is an alias.
    alias: bool = False
    # The truth of the integer written, where the lowering knows it on this path (a flag field set
    # from a null test: `c->f = (p == NULL)`); None: unknown, a later test of the location opaque.
    truth: bool | None = None
    # The sink's record is a cycle's assumption (`Summary.assumed`): no evidence of a steal.
    assumed: bool = False
    # The keeping call keeps var only because the callback it is handed to (a cycle member whose
    # record is assumed) gives it up: the cycle member the hand-over leans on, not the sink's name
    # (libsoup's `g_source_set_callback (src, on_input, self, NULL)`, whose callback only hands
    # `self` back round the cycle; refcheck.driver.cycles confirms it or refutes it).
    leans_on: str = ""
    # `*p = NULL;` or `s->f = NULL;`: the location holds NULL (an out-parameter's slot on this
    # path, `Summarizer.slot_state`; a field a later load reads, `assume.nulled_loads`), not an
    # untracked value.
    null: bool = False
    # A pointer no variable names was written (`s->type = &Foo_Type`, a cast of one): not NULL,
    # not tracked; where stores hold references, a retain through the location pays for it.
    untracked: bool = False
    # A parameter handed to the sink beside its own destroy-notify parameter (GLib's data/notify
    # pair forwarded: libgdata's `progress_user_data, destroy_progress_user_data`): the duty to
    # call that notify goes with it, so no reference of the function's own is needed (no RC009).
    paired: bool = False
    # A container's element (Effect.STORE) put into a container reached from a parameter or a
    # local (`stream->conncheck_list`), not a global registry: a body that returns var returns
    # the container's reference (`Summary.result_kept`).
    element: bool = False
    # The location may hold a reference from an earlier call that this function never read
    # (`self->f = v` in a setter the runtime calls again and again, frontend.overwrites): an owned
    # value stored over it loses that reference (RC007).
    overwrites: bool = False
    # The target's source text, for messages, where stores hold references (the cpython preset).
    place: str = ""
    # The target is a field some function of the unit releases (frontend.releasedfields): what is
    # stored there is released by its record's destructor.
    owning: bool = False


@dataclass(frozen=True)
class Escape(Op):
    """&var was given away: whatever var held is no longer ours to track."""

    var: str
    # A call's result that may have given var's reference up or not (`Summary.maybe_given`):
    # that callee; var's value is as unknown as after `&var` escaped.
    given: str = ""
    # `&s` of a local struct handed to a call that keeps it nowhere and writes none of these
    # members: the facts of constant stores into them (`s.done = TRUE;`) survive the call
    # (frontend.constfields).
    spared: frozenset = frozenset()


@dataclass(frozen=True)
class Kill(Op):
    """A temporary dies at the end of its full expression."""

    var: str


@dataclass(frozen=True)
class Const(Op):
    """var = an integer constant (ownership flags: `own = 1;`)."""

    var: str
    value: int
    # Some non-zero value, not `value` itself: a split call's other edge where a switch reads
    # the result (`switch (f (self, &out))`: its cases 1, 2... all stay possible there).
    nonzero: bool = False


@dataclass(frozen=True)
class Shift(Op):
    """dst = src + delta, integers (`state = STATE_NEW + state - STATE_CURRENT`, a state machine's
    step computed from its current state): where src's constant is known, dst holds that plus
    delta, if that is a value dst is compared with; otherwise dst is unknown, as after any
    assignment."""

    dst: str
    src: str
    delta: int


@dataclass(frozen=True)
class Touch(Op):
    """var changed in place (++, +=): conditions over it no longer hold."""

    var: str


@dataclass(frozen=True)
class SameSize(Op):
    """After a size-establishing call (`resizeAs(a, b)`): a was resized and has the same number of
    elements as b. None: not a local variable (the fact cannot be kept)."""

    a: str | None
    b: str | None


@dataclass(frozen=True)
class Count(Op):
    """The integer variable var now holds the number of elements of the tensor variable `tensor`
    (TH_TENSOR_APPLY's preamble loop, or `n = nElement(t)`)."""

    var: str
    tensor: str


# Branch conditions: the true edge is taken when the condition holds.
@dataclass(frozen=True)
class NullTest:
    """True edge: var is not NULL."""

    var: str


@dataclass(frozen=True)
class SameObject:
    """True edge: a and b are the same pointer. Decided only when both hold the same object."""

    a: str
    b: str
    # The sides (of a, b) that are the address of a named variable (a local array, `&x`): no
    # fresh allocation is ever one of them.
    storage: frozenset = frozenset()


@dataclass(frozen=True)
class Fact:
    """A side-effect-free condition that, retested with its variables unchanged, gives the same answer."""

    key: str
    vars: frozenset
    # (var, op, k) when the condition is `var OP k` for an integer constant k (`own` is `own != 0`).
    simple: tuple | None = None
    # (var, load key, edge) when the condition compares a local pointer with a singleton
    # (`result == Py_False`): on the edge `edge` (True: the condition holds) they are one object.
    same: tuple | None = None
    # (var, load key, family, exact) when the condition is a CPython type check of a local pointer
    # var (load key None) or of a loaded location (var None): `PyBytes_Check (v)`, decided where
    # the object tested is of known type (`analysis.typefacts`).
    pytype: tuple | None = None


@dataclass(frozen=True)
class SizeTest:
    """A comparison of two element counts (`nElement(a) != nElement(b)`, APPLY's `a_n != b_n`) or a
    same-size test (`isSameSizeAs(a, b)`). `counts`: a and b are integer variables holding counts
    (see `Count`), else tensor variables. `equal`: the true edge is the one where the counts are
    equal (False for `!=`). Size facts decide it; otherwise `fallback` (the same condition as a
    plain `Fact`, or None) does, as any other condition."""

    a: str
    b: str
    counts: bool
    equal: bool
    fallback: Fact | None = None


@dataclass(frozen=True)
class Opaque:
    text: str = ""


def describe(op: Op, names: dict[str, str]) -> str:
    """One line for `refcheck cfg`."""
    n = lambda v: names.get(v, v) if v is not None else "?"  # noqa: E731
    if isinstance(op, Acquire):
        return f"{n(op.dst)} = {op.callee}(...)  [acquire]"
    if isinstance(op, Realloc):
        return f"{n(op.dst)} = {op.callee}({n(op.src)}, ...)  [reallocate]"
    if isinstance(op, Retain):
        return f"{op.callee}({n(op.var)})  [retain]"
    if isinstance(op, Release):
        return f"{op.callee}({', '.join(n(v) for v in op.vars)})  [{'consume' if op.consume else 'release'}]"
    if isinstance(op, Call):
        return f"call {op.callee}({', '.join(n(v) for v in op.args)})"
    if isinstance(op, Use):
        return f"{'deref' if op.deref else 'use'} {n(op.var)}"
    if isinstance(op, Assign):
        return f"{n(op.dst)} = {'NULL' if op.null else 'an address' if op.nonnull else n(op.src)}"
    if isinstance(op, Load):
        return f"{n(op.dst)} = {op.what}  [borrowed result]" if op.call else f"{n(op.dst)} = load {op.what}"
    if isinstance(op, Store):
        return f"store {n(op.var)}  [hand over]"
    if isinstance(op, Escape):
        return f"{n(op.var)} maybe given up by {op.given}" if op.given else f"&{n(op.var)} escapes"
    if isinstance(op, Kill):
        return f"end of {n(op.var)}"
    if isinstance(op, Touch):
        return f"modify {n(op.var)}"
    if isinstance(op, Const):
        return f"{n(op.var)} = {op.value}"
    if isinstance(op, Shift):
        return f"{n(op.dst)} = {n(op.src)} {'-' if op.delta < 0 else '+'} {abs(op.delta)}"
    if isinstance(op, SameSize):
        return f"same size: {n(op.a)} {n(op.b)}"
    if isinstance(op, Count):
        return f"{n(op.var)} = nElement({n(op.tensor)})"
    return repr(op)
