"""GLib's GError rule at a call (issue 32, dconf): a function that sets the error its caller
passed as `&error` returns no value (NULL; "a function must not both return a value and set
an error", GLib's "Error Reporting"), and one that succeeds leaves it as it was (NULL, which
every caller must pass in).

After an acquisition `r = f (..., &e)` whose `e` is a local of an error type (the conventions'
`error_out`, GLib's `GError *`), the graph splits: on one edge `e` holds the error (a value
read from memory: freeing or handing it on is the caller's business, not counted here) and `r`
is NULL; on the other `e` is NULL. A later `if (e != NULL) return FALSE;` then takes the edge
the split took, and does not leak `r` (dconf's read_directory: `locks_table = read_locks_directory
(dir, &local_error); if (local_error != NULL) { ...; return FALSE; }`)."""

from __future__ import annotations

from refcheck import ir
from refcheck.findings import Location
from refcheck.frontend.clangutil import K, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.graph import GraphBuilder


def error_out_local(b: GraphBuilder, args: list) -> str | None:
    """The local `e` of the one argument `&e` whose type is an error out-parameter, else None."""
    if not b.conv.error_out:
        return None
    found = None
    for a in args:
        inner = strip(a)
        if kind_of(inner) != K.UNARY_OPERATOR or unop(inner) != "&":
            continue
        target = strip(next(iter(children_of(inner)), None) or inner)
        if kind_of(target) != K.DECL_REF_EXPR:
            continue
        pointee = target.type.get_canonical().get_pointee().get_canonical()
        if b.conv.matches("error_out", pointee.spelling):
            if found is not None:
                return None  # two error locals: which one the callee sets is not said
            found = b.var(referenced(target))
    return found


def error_edge(b: GraphBuilder, loc: Location, var: str, failed: bool) -> None:
    """`var` on one edge of a gboolean throwing call's result split: GLib's "Error Reporting"
    has such a function return FALSE exactly when it sets the error (the error a value read from
    memory then) and leave it NULL when it returns TRUE. Where the result is discarded and only
    `if (e != NULL)` is tested (json-glib's conformance.c: `g_file_get_contents (path,
    &contents, NULL, &error); if (error != NULL) return ...;`), that test then takes the edge
    the result split took: no contents were filled on the error edge."""
    if failed:
        t = b.temp(f"*&{b.names.get(var, var)}")
        b.emit(ir.Load(loc, t, f"*&{b.names.get(var, var)}", frozenset()))
        b.emit(ir.Assign(loc, var, t))
    else:
        b.emit(ir.Assign(loc, var, None, null=True))


def error_split(b: GraphBuilder, loc: Location, name: str, result: str, var: str) -> None:
    """Split after `result = name (..., &var)`: the error edge (var set, result NULL) and the
    success edge (var NULL). The error edge's paths on which `result` is not NULL end at a stop:
    they cannot happen."""
    err, ok, join = b.call_split(loc, f"{name} sets {b.names.get(var, var)}", f"{name} sets its error")
    b.cur = err
    error_edge(b, loc, var, failed=True)
    test = b.node("branch", loc, cond=ir.NullTest(result), text=f"{name} returned a value with its error")
    b.start(test)
    b.edge(test, b.node("stop", loc, text=f"{name} cannot return a value and set its error"), True)
    b.edge(test, join, False)
    b.cur = ok
    error_edge(b, loc, var, failed=False)
    b.goto(join)
    b.cur = join
