"""Which local holds which in this function: the parent side of a parent/child back-pointer.

libxmlb's `xb_builder_node_add_child (self, child)` stores `self` into `child`'s private memory
(`priv_child->parent = self`) and keeps `g_object_ref (child)` in a container `self`'s private
memory holds (`g_ptr_array_add (priv->children, ...)`): the child's pointer to its parent cannot
own the parent (the cycle would never be freed), so storing `self` there is no hand-over
(docs/semantics.md, "Hand-overs"). `holds (b, x, y)` says this function makes x keep y: a store
of y (or of a retain of y) into x's own memory, or a call whose record keeps y (or a retain of y)
while another of its arguments lies in x's memory (a container x's memory holds, or `&x->f`).
"""

from __future__ import annotations

from refcheck.conventions.summary import Effect
from refcheck.frontend.aliases import inside, interior_root, plain_local
from refcheck.frontend.argtypes import named_function
from refcheck.frontend.clangutil import K, binop, kind_of, named_parameter, strip
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.binding import of_kinds

# The effects with which a callee keeps an argument: a hand-over, or its own reference (keep).
_SITE_KINDS = frozenset({K.CALL_EXPR.value, K.BINARY_OPERATOR.value})
_KEEPS = (Effect.SINK, Effect.CONSUME, Effect.STORE, Effect.SINK_FLOATING, Effect.KEEP)


def holds(b, x: str, y: str) -> bool:
    """This function makes local x keep local y (module docstring)."""
    if x == y:
        return True
    key = len(b.interiors)  # interior aliases are learnt as their declarations are lowered
    if b.held is None or b.held[0] != key:
        b.held = (key, frozenset(_pairs(b)))
    return (x, y) in b.held[1]


def back_pointer(b, stored: str, into: str) -> bool:
    """Storing local `stored` into `into`'s memory is a back-pointer (no hand-over): `stored`
    keeps `into`. Where each keeps the other by the function's own stores (pygame's
    `_proxy_get_view`: `view->consumer = proxy; ... proxy->pg_view_p = view;`), one of the two
    stores is the ownership: the parameter is the parent, so a local that is no parameter stored
    into a parameter's memory is handed over, and the parameter's store into it is the back-pointer."""
    if not holds(b, stored, into):
        return False
    if stored != into and holds(b, into, stored):
        params = parameters(b)
        if into not in params and stored not in params:
            # Two locals made here (grilo's `bs->user_data = brc; brc->spec.browse = bs;`): the
            # one handed on as a callback's data (`g_idle_add_full (p, browse_idle, bs, NULL)`)
            # carries the other; where neither is, both stay the function's own.
            return not handed_as_data(b, into)
        return not (into in params and stored not in params)
    return True


def handed_as_data(b, x: str) -> bool:
    """Local x is passed as a callback's data: right after an argument naming a function."""
    for c in body_sites(b):
        if kind_of(c) == K.CALL_EXPR:
            args = list(c.get_arguments())
            if any(named_function(f) is not None and plain_local(b, a) == x for f, a in zip(args, args[1:])):
                return True
    return False


def parameters(b) -> frozenset:
    """The variables of the function's parameters, listed once per build."""
    if b.parameter_vars is None:
        b.parameter_vars = frozenset(v for c in children_of(b.fn) if kind_of(c) == K.PARM_DECL
                                     for v in [b.var(c)] if v is not None)
    return b.parameter_vars


def body_sites(b) -> list:
    """The assignments and calls of the function being built, listed once per build."""
    if b.holding_sites is None:
        b.holding_sites = _sites(b.fn)
    return b.holding_sites


def _pairs(b):
    """Every (holder, held) pair of local variables in the function's body."""
    for c in body_sites(b):
        if kind_of(c) == K.BINARY_OPERATOR:
            kids = list(children_of(c))
            if len(kids) == 2:
                x, y = inside(b, kids[0]), _kept_value(b, kids[1])
                if x is not None and y is not None and not _plain_parameter(kids[1]):
                    yield x, y
        else:
            yield from _call_pairs(b, c)


def _plain_parameter(e) -> bool:
    """Whether `e` is a parameter stored as it is, no retain: the function holds no reference of
    its own of it to keep, so such a store is no evidence of holding (colord's `cd_state_get_child
    (state)` stores `state` into the new child's private part and the child into `state`'s: the
    child is held, its pointer back to the borrowed `state` is not)."""
    return named_parameter(e) is not None


def _sites(fn) -> list:
    """The assignments and calls under `fn`: the pairs are made again from these whenever an
    interior alias is learnt (up to a few times per body). One walk in which libclang's visit
    keeps only the two kinds (`binding.of_kinds`, compiled where `native` chose it): a walk of
    the build's listings in Python asked every cursor its kind, 7% of a TH build. Order is
    free: both users make sets."""
    return [c for c in of_kinds(fn, _SITE_KINDS) if kind_of(c) == K.CALL_EXPR or binop(c) == "="]


def _call_pairs(b, c):
    """(x, y) for a call keeping y (or a retain of y) beside an argument in x's memory."""
    args = list(c.get_arguments())
    if len(args) < 2:
        return
    decl, name = b.callee_of(c)
    effects = b.summary_of(decl, name).effects(len(args))
    roots = {i: r for i, a in enumerate(args) if (r := _in_memory_of(b, a)) is not None}
    for i, x in roots.items():
        replace = effects.get(i) is Effect.REPLACE  # g_set_object (&x->f, y) keeps y
        for j, a in enumerate(args):
            if j != i and (effects.get(j) in _KEEPS or (replace and j == i + 1)):
                y = _kept_value(b, a)
                if y is not None:
                    yield x, y


def _in_memory_of(b, a) -> str | None:
    """The local x when argument `a` lies in x's memory: an address inside x (`&x->f`), or a
    pointer loaded from it (`priv->children`, a container x's memory holds)."""
    return interior_root(b, a) or inside(b, a)


def _kept_value(b, e) -> str | None:
    """The local y an expression gives to be kept: `y` itself, or a retain of it (`g_object_ref (y)`)."""
    y = plain_local(b, e)
    if y is not None:
        return y
    c = strip(e)
    if kind_of(c) != K.CALL_EXPR:
        return None
    args = list(c.get_arguments())
    decl, name = b.callee_of(c)
    if len(args) != 1 or b.summary_of(decl, name).role != "retain":
        return None
    return plain_local(b, args[0])
