"""Steals that depend on more than the callee's name: the `N` units of a Py_BuildValue-style
format string, and effects that happen on one result of the call only (PyModule_AddObject's
steal when it returns 0, a helper's release when it returns FALSE).

A steal hands the reference over, like a store into the container that took it: the caller
must not release it after (RC006), but may still use it while the container lives.
"""

from __future__ import annotations

from refcheck import ir
from refcheck.frontend.clangutil import K, kind_of, strip
from refcheck.frontend.binding import arguments, cursor_key
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.gerrors import error_edge
from refcheck.frontend.holders import lasting_holder
from refcheck.frontend.graph import GraphBuilder
from refcheck.frontend.owning import emit_fill
from refcheck.frontend.vaformats import forwarded_format
from refcheck.conventions.summary import Effect, When

# Format units of Py_BuildValue (Python/modsupport.c) and the C arguments each takes; `#` after a
# string unit adds a length, `&` after O a converter. N is O that steals its object.
_ONE = set("ibhlBHIkLKncCdfD")
_STRINGS = set("szUyu")
_OBJECTS = set("OSN")
_NO_ARGUMENT = set("()[]{}:, \t\n")


def build_value_steals(fmt: str) -> tuple[int, ...] | None:
    """The positions, among the arguments after the format, of the objects an `N` unit steals;
    None when the format is not one Py_BuildValue reads (then nothing is assumed stolen)."""
    steals, arg, i = [], 0, 0
    while i < len(fmt):
        c = fmt[i]
        nxt = fmt[i + 1] if i + 1 < len(fmt) else ""
        if c in _NO_ARGUMENT:
            pass
        elif c in _STRINGS:
            arg += 1
            if nxt == "#":
                arg, i = arg + 1, i + 1
        elif c in _OBJECTS:
            if nxt == "&" and c == "O":
                arg, i = arg + 1, i + 1  # O& passes a converter and what it converts
            elif c == "N":
                steals.append(arg)
            arg += 1
        elif c in _ONE:
            arg += 1
        else:
            return None
        i += 1
    return tuple(steals)


def build_value_container(fmt: str) -> bool:
    """Whether Py_BuildValue's value for `fmt` is a container it makes anew (Python/modsupport.c):
    two or more top-level units (a tuple), or one `[...]`, `{...}` or non-empty `(...)` unit. A
    single plain unit is that object (`O` of Py_None is Py_None, small ints are cached) and `()`
    the empty tuple, which is shared: neither is new."""
    units, depth, first, i = 0, 0, "", 0
    while i < len(fmt):
        c = fmt[i]
        if c in "([{":
            if depth == 0:
                units += 1
                first = first or (c + (fmt[i + 1] if i + 1 < len(fmt) else ""))
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and c not in _NO_ARGUMENT and c not in "#&!":
            units += 1
            first = first or c
        i += 1
    return units >= 2 or (units == 1 and first[:1] in "[{") or (units == 1 and first[:1] == "(" and first != "()")


# PyArg_ParseTuple's units (Python/getargs.c) and the outputs each fills: S, U, Y, O and O!'s
# second store a borrowed object; O& hands its output to a converter, which may store anything.
_PARSE_SCALARS = PARSE_SCALARS = frozenset("bBhHiIlkLKncCfdDp")
_PARSE_BUFFERS = PARSE_BUFFERS = frozenset("szyuZw")


def parse_borrowed_outputs(fmt: str) -> tuple[int, ...] | None:
    """The positions, among the outputs after the format, that a PyArg_ParseTuple format fills
    with a borrowed object; None when the format is not one getargs.c reads."""
    kinds = parse_output_kinds(fmt)
    return None if kinds is None else kinds[0]


def parse_allocated_outputs(fmt: str) -> tuple[int, ...] | None:
    """The positions of the `char **buffer` outputs of `es`/`et` units (`es#`/`et#` too): the C
    API reference's "Strings and buffers" has getargs.c allocate the buffer with PyMem_NEW on
    success, and the caller PyMem_Free it. None when the format is not one getargs.c reads."""
    kinds = parse_output_kinds(fmt)
    return None if kinds is None else kinds[1]


def parse_output_kinds(fmt: str) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(borrowed object outputs, allocated buffer outputs) of a PyArg_ParseTuple format, as
    positions among the outputs after it; None when getargs.c would not read the format."""
    out, allocated, arg, i = [], [], 0, 0
    while i < len(fmt) and fmt[i] not in ":;":
        c, nxt = fmt[i], fmt[i + 1] if i + 1 < len(fmt) else ""
        if c in "()|$":
            pass
        elif c in _PARSE_SCALARS:
            arg += 1
        elif c == "e" and nxt in ("s", "t"):  # encoding, buffer[, length]
            allocated.append(arg + 1)
            i += 1
            arg += 2
            if i + 1 < len(fmt) and fmt[i + 1] == "#":
                arg, i = arg + 1, i + 1
        elif c in _PARSE_BUFFERS:
            arg += 1
            if nxt in ("*", "#"):
                arg, i = arg + (nxt == "#"), i + 1
        elif c in "SUY":
            out.append(arg)
            arg += 1
        elif c == "O":
            if nxt in ("!", "&"):
                if nxt == "!":
                    out.append(arg + 1)
                arg, i = arg + 1, i + 1
            else:
                out.append(arg)
            arg += 1
        else:
            return None
        i += 1
    return tuple(out), tuple(allocated)


def parse_outputs(b: GraphBuilder, name: str, args: list) -> frozenset[int]:
    """The argument indices of a PyArg_Parse-style call that receive a borrowed object."""
    return parse_positions(b, name, args)[0]


def parse_positions(b: GraphBuilder, name: str, args: list) -> tuple[frozenset[int], frozenset[int]]:
    """The argument indices of a PyArg_Parse-style call that receive a borrowed object, and those
    whose `es`/`et` buffer it allocates on success, from one reading of its format
    (`parse_output_kinds`; PyArg_UnpackTuple has none: every output an object of the tuple)."""
    found = b.conv.parse_format(name, len(args))
    if found is None:
        return frozenset(), frozenset()
    index, first = found
    if index is None:
        return frozenset(range(first, len(args))), frozenset()
    fmt = string_literal(args[index]) if index < len(args) else None
    kinds = parse_output_kinds(fmt) if fmt is not None else None
    if kinds is None:
        return frozenset(), frozenset()
    return tuple(frozenset(first + i for i in outs if first + i < len(args)) for outs in kinds)


def string_literal(c) -> str | None:
    """The text of a string literal argument ("(" "NN" ")" concatenated), None if not one."""
    c = strip(c)
    if kind_of(c) != K.STRING_LITERAL:
        kids = list(children_of(c))
        if len(kids) != 1:
            return None
        return string_literal(kids[0])
    # libclang spells a literal as the compiler reads it: concatenated, macros expanded (scipy's
    # `("dd{s:" F_INT_PYFMT ",s:N}")`), which its tokens are not.
    text = c.spelling
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        return None if "\\" in text else text[1:-1]
    parts = []
    for tok in c.get_tokens():
        s = tok.spelling
        if not (len(s) >= 2 and s[0] == '"' and s[-1] == '"') or "\\" in s:
            return None  # a prefixed or escaped literal: not a format worth decoding
        parts.append(s[1:-1])
    return "".join(parts) if parts else None


def format_steals(b: GraphBuilder, name: str, args: list, decl=None) -> frozenset[int]:
    """The argument indices a Py_BuildValue-family call steals by its format's `N` units (also a
    call to the unit's variadic function that forwards its format: `vaformats`)."""
    index = b.conv.format_argument(name, len(args))
    if index is None:
        index = forwarded_format(b.conv, decl)
    if index is None:
        return frozenset()
    fmt = string_literal(args[index])
    steals = build_value_steals(fmt) if fmt is not None else None
    return frozenset(index + 1 + i for i in steals or () if index + 1 + i < len(args))


def builds_container(b: GraphBuilder, name: str, args: list) -> bool:
    """A Py_BuildValue call whose format makes a new container: a fresh object, never Py_None nor
    an argument (`r = Py_BuildValue ("iiii", ...); ... if (r != Py_None) Py_DECREF (r);`, BTrees'
    merge_error). Only where the format is the first argument: PyObject_CallFunction's result is
    whatever its callable returns, not the format's value."""
    if b.conv.format_argument(name, len(args)) != 0:
        return False
    fmt = string_literal(args[0])
    return fmt is not None and build_value_container(fmt)


def result_split(b: GraphBuilder, loc, name: str, call, effects: dict, status: str | None,
                 nonzero: int = -1, fills: dict | None = None, error: str | None = None,
                 sunk: frozenset = frozenset(), maybe: frozenset = frozenset()) -> str:
    """A call whose record gives arguments up on one result only (`effects`: variable ->
    (Effect, When)): PyModule_AddObject(m, "x", o) hands `o` over when it returns 0 and leaves it
    the caller's when it returns -1; a gboolean helper that frees `buf` and returns FALSE releases
    it on 0 only. `fills` (variable v of `&v`, or a forwarded parameter -> (When, points to
    scalars, kept)): v receives a new reference on that result and NULL on the others (kept:
    maybe NULL there, left as it was on the others) (PyMapping_GetOptionalItem's 1; its 0 and -1
    are then two edges). The result is an integer variable holding 0, `nonzero` (or 1) on each
    edge, so that `if (f(...) < 0)`, `if (!f(...))` (or `rc = ...; if (rc)`) takes the edge its
    split did. `status`: the local the call's result is assigned to, if any. `error`: the local
    `e` of a gboolean GLib call's `&e`, set on FALSE and NULL on TRUE (`gerrors.error_edge`).
    `sunk`: variables a sink keeps on its result (a data/destroy pair's data): handed over as by
    the sink itself (a borrowed one is RC009). `maybe`: variables the other result may have given
    up as well (`Summary.maybe_given`): no longer tracked there (`ir.Escape`), so that neither
    the caller's release nor its leaving them is reported."""
    fills = fills or {}
    # A keeper holds what it keeps in its first argument (`frontend.holders`).
    first = arguments(call)[:1] if any(e is Effect.KEEP for e, _ in effects.values()) else []
    lasting = bool(first) and lasting_holder(first[0])
    if error in fills or error in effects:  # the record says what the call does with it (a fill)
        error = None
    r = status or b.temp(f"{name}(...)")
    # A third edge where a fill or an effect tells 1 from -1 (PyIter_NextItem's 1, a helper's -1).
    signed = any(f[0] is When.POSITIVE for f in fills.values()) or any(w in (When.NEGATIVE, When.NONNEGATIVE) for _, w in effects.values())
    results = [0, nonzero] + ([1] if nonzero != 1 and signed else [])
    join = b.node("block")
    for pos, k in enumerate(results):
        if pos < len(results) - 1:  # a branch to this result's edge, the rest on its other edge
            n = b.node("branch", loc, cond=ir.Opaque(f"{name} returned {k}"), text=f"{name} returned {k}")
            block, rest = b.node("block"), b.node("block")
            b.start(n)
            # Each edge says what the call returned on it: the false one is the call's other
            # result(s), not "returned 0" (a failure edge read as success beside `< 0`).
            others = results[pos + 1:]
            b.edge(n, block, True, label=f"{name} returned {k}")
            b.edge(n, rest, False, label=f"{name} returned {others[0]}" if len(others) == 1
                   else f"{name} did not return {k}")
        else:
            block = rest = None
        if block is not None:
            b.cur = block
        for v, (effect, w) in effects.items():
            if not w.holds(k):
                if v in maybe:
                    b.emit(ir.Escape(loc, v, given=name))
                continue
            if effect is Effect.RELEASE:
                b.emit(ir.Release(loc, (v,), name))
            elif effect is Effect.KEEP:  # a reference of the callee's own: the caller's stays its own
                b.emit(ir.Retain(loc, v, name, kept=True, lasting=lasting))
            elif effect is Effect.RETAIN:  # the caller's: a Py_buffer view's exporter (frontend.bufferviews)
                b.emit(ir.Retain(loc, v, name))
            else:  # consume, sink, store: handed over, as an unconditional steal is (RC006 after)
                b.emit(ir.Store(loc, v, "", frozenset(), sink=name if v in sunk else ""))
        for v, (w, scalars, kept) in fills.items():
            if w.holds(k):
                emit_fill(b, loc, name, v, scalars)
            elif not kept and isinstance(v, str):  # `fills_kept`: left as it was
                b.emit(ir.Assign(loc, v, None, null=True))
            elif not kept:
                b.emit(ir.Store(loc, None, v.key, frozenset((v.var,)), through=v.var, null=True))
        if error is not None:
            error_edge(b, loc, error, failed=k == 0)
        b.emit(ir.Const(loc, r, k, nonzero=k != 0 and cursor_key(call) in b.switched))
        if b.returning is not None and b.returning[0] == cursor_key(call):
            b.returned_constant(b.returning[1], None, k)  # `return f (...)`: this result is returned
        else:
            b.goto(join)
        if rest is not None:
            b.cur = rest
    b.cur = join
    b.status_vars[cursor_key(call)] = r
    return r


def null_split(b: GraphBuilder, loc, name: str, call, status: str | None, var: str) -> None:
    """A tested call whose record says its argument `var` is NULL wherever it returns non-zero
    (`Summary.null_when_nonzero`): on var's non-NULL edge its result is 0; on the NULL edge it
    is unknown (pylibmc's `if (_PylibMC_cache_miss_simulated (val)) continue;` then leaves
    nothing of val's on the true edge)."""
    r = status or b.temp(f"{name}(...)")
    test = b.node("branch", loc, cond=ir.NullTest(var), text=f"{name} returns 0 where {b.names.get(var, var)} is not NULL")
    b.start(test)
    zero, unknown, join = b.node("block"), b.node("block"), b.node("block")
    b.edge(test, zero, True)
    b.edge(test, unknown, False)
    b.cur = zero
    b.emit(ir.Const(loc, r, 0))
    b.goto(join)
    b.cur = unknown
    b.emit(ir.Touch(loc, r))
    b.goto(join)
    b.cur = join
    b.status_vars[cursor_key(call)] = r


def status_condition(b: GraphBuilder, c, op_const) -> tuple[str, str, int] | None:
    """For a condition over a success-split call (`f(...)`, `f(...) < 0`, `f(...) == -1`, lowered
    already), the (variable, op, constant) test the split's constants decide."""
    if not b.status_vars:  # no success split in this function (nearly all): asked at every branch
        return None
    c = strip(c)
    if kind_of(c) == K.CALL_EXPR:
        r = b.status_vars.get(cursor_key(c))
        return (r, "!=", 0) if r is not None else None
    found = op_const(c)
    if found is None:
        return None
    call, op, k = found
    r = b.status_vars.get(cursor_key(call))
    return (r, op, k) if r is not None else None
