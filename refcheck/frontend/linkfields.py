"""Fields the unit never gives a value of up: links, not owners (issue 31, cpystore; the cpython
preset, where a store into memory hands the reference over).

lru-dict keeps its nodes in a dict and threads them on a list for the order of use
(`lru_add_node_at_head (self, node)`: `self->first = node; node->next = ...`). Nothing of the
unit ever releases `first`, `last`, `prev` or `next`: the dict holds the node's reference, the list
only points to it, and the caller's `Py_DECREF (node)` after linking it is its own reference's
end. coveragepy's `pcur_entry->disposition` ("a borrowed instance", datastack.h) is the same. A
field is read so where no function of the unit gives its value up: hands it (or a local copied
from it, `Py_CLEAR`'s `_py_tmp`) to a call that may give it up (`recordfrees.given_by`), returns
it, takes its address, or copies it into a field that is given up. Only in a record the unit
manages (it releases another of its fields, not only returns one: lru-dict's `node_dealloc`
releases `key` and `value`, not `prev` and `next`): a record whose destructor is in another
unit, or nowhere in this one, may free any field: only a record declared in the unit's own file
(one of a header may be another unit's too).
"""

from __future__ import annotations

from refcheck.frontend.binding import of_kinds
from refcheck.frontend.clangutil import K, binop, kind_of, referenced, strip, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.conditions import singleton_address
from refcheck.frontend.perunit import PerUnit, own_definitions
from refcheck.frontend.recordfrees import field_usr, given_by
from refcheck.ir.digraph import reaching

_CALLS = frozenset((K.CALL_EXPR.value,))
_KINDS = frozenset((K.CALL_EXPR.value, K.UNARY_OPERATOR.value, K.BINARY_OPERATOR.value,
                    K.VAR_DECL.value, K.RETURN_STMT.value))

# (the USRs of the fields some function of the unit may give up, the records those belong to,
# field USR -> link verdict)
_UNIT: PerUnit[tuple[frozenset, frozenset, dict]] = PerUnit()


def link_field(b, target) -> bool:
    """`x->f = v` into a field of pointer type declared outside the system headers that no
    function of the unit gives a value of up (module docstring)."""
    member = strip(target)
    if kind_of(member) != K.MEMBER_REF_EXPR:
        return False
    usr = field_usr(member)
    if not usr:
        return False
    given, managed, verdicts = _unit(b, member.translation_unit)
    if usr not in verdicts:
        field = referenced(member)
        verdicts[usr] = usr not in given and _record(usr) in managed and _main_file(field, member.translation_unit)
    return verdicts[usr]


def linkable(b, rhs) -> bool:
    """Whether the stored value may be a link's: a parameter (a helper's `self->first = node`), a
    singleton (`Py_None`), or a local the function itself releases (coveragepy's `disposition`,
    released at its exit). Not a new reference stored straight (`pit->name = PyObject_Repr (mo)`)
    nor a local never released here: that one is the field's or leaks, as before."""
    e = strip(rhs)
    if e is not None and singleton_address(e, b):
        return True
    var = referenced(e) if e is not None and kind_of(e) == K.DECL_REF_EXPR else None
    if var is None:
        return False
    if kind_of(var) == K.PARM_DECL:
        return True
    if kind_of(var) != K.VAR_DECL:
        return False
    for call in of_kinds(b.fn, _CALLS):
        if any(kind_of(a := strip(x)) == K.DECL_REF_EXPR and referenced(a) == var for x in call.get_arguments()) \
                and b.summary_of(*b.callee_of(call)).at_call(1, lambda _: False).role == "release":
            return True
    return False


def _unit(b, tu) -> tuple[frozenset, frozenset, dict]:
    def make():
        given, released = _given(b, own_definitions(tu))
        return given, frozenset(_record(f) for f in released), {}
    return _UNIT.of(tu, make)


def _main_file(field, tu) -> bool:
    """Whether the field is declared in the unit's own file: a record of a header may be managed
    by another unit too (psycopg2's connectionObject, whose `tpc_xid` connection_type.c clears)."""
    f = field.location.file
    return f is not None and f.name == tu.spelling


def _record(usr: str) -> str:
    """The record part of a field's USR (`c:@S@Node@FI@next` -> `c:@S@Node`)."""
    return usr.rsplit("@FI@", 1)[0]


def _given(b, tops: list) -> tuple[frozenset, frozenset]:
    """The USRs of the fields some function of `tops` gives a value of up, and of those it
    releases (hands to a call that may give it up, or its address: not only returns or copies)."""
    given: set = set()
    released: set = set()
    moves: dict = {}  # field USR -> the fields its value is copied into
    for fn in tops:
        sites = of_kinds(fn, _KINDS)
        copies = _copies(sites)
        for c in sites:
            _uses(b, c, copies, given, released, moves)
    # A field copied into one given up is given up too.
    return frozenset(reaching(given, moves)), frozenset(released)


def _copies(sites: list) -> dict:
    """Local variable -> the field USRs its values are copied from (`n = self->last`, `next =
    n->next; n = next;`), to a fixed point."""
    direct: dict = {}
    links: list = []
    for c in sites:
        pair = _assignment(c)
        if pair is None:
            continue
        var, value = pair
        if kind_of(var) not in (K.VAR_DECL, K.PARM_DECL):
            continue
        if field_usr(value):
            direct.setdefault(var, set()).add(field_usr(value))
        elif kind_of(value) == K.DECL_REF_EXPR and referenced(value) is not None:
            links.append((var, referenced(value)))
    changed = True
    while changed:
        changed = False
        for var, src in links:
            add = direct.get(src, set()) - direct.get(var, set())
            if add:
                direct.setdefault(var, set()).update(add)
                changed = True
    return direct


def _assignment(c):
    """(the variable declaration assigned, the stripped value) of `T v = e;` or `v = e`, else None;
    also (the member expression, value) of `x->f = e` for `_uses`."""
    k = kind_of(c)
    kids = children_of(c)
    if k == K.VAR_DECL:
        init = [x for x in kids if kind_of(x) != K.TYPE_REF]
        return (c, strip(init[-1])) if init and strip(init[-1]) is not None else None
    if k != K.BINARY_OPERATOR or binop(c) != "=" or len(kids) != 2:
        return None
    lhs, rhs = strip(kids[0]), strip(kids[1])
    if lhs is None or rhs is None:
        return None
    var = referenced(lhs) if kind_of(lhs) == K.DECL_REF_EXPR else None
    if var is not None and kind_of(var.semantic_parent) != K.TRANSLATION_UNIT:
        return (var, rhs)
    return (lhs, rhs)  # a field, `*p`, an element, a global


def _fields_of(e, copies: dict) -> set:
    """The field USRs whose value expression `e` is: the field itself or a local copied from one."""
    e = strip(e)
    if e is None:
        return set()
    if field_usr(e):
        return {field_usr(e)}
    if kind_of(e) == K.DECL_REF_EXPR and referenced(e) is not None:
        return set(copies.get(referenced(e), ()))
    return set()


def _uses(b, c, copies: dict, given: set, released: set, moves: dict) -> None:
    k = kind_of(c)
    if k == K.CALL_EXPR:
        for a in c.get_arguments():
            found = _fields_of(a, copies)
            if found and given_by(b, c, strip(a)):
                given.update(found)
                released.update(found)
    elif k == K.UNARY_OPERATOR:
        if unop(c) == "&":
            for a in children_of(c):
                found = _fields_of(a, copies) if field_usr(a) else set()
                given.update(found)
                released.update(found)
    elif k == K.RETURN_STMT:
        for a in children_of(c)[-1:]:
            given.update(_fields_of(a, copies))
    elif k == K.BINARY_OPERATOR:
        pair = _assignment(c)
        if pair is None or kind_of(pair[0]) in (K.VAR_DECL, K.PARM_DECL):
            return
        into, value = pair
        found = _fields_of(value, copies)
        if not found:
            return
        if field_usr(into):
            for f in found:
                moves.setdefault(f, set()).add(field_usr(into))
        else:
            given.update(found)  # `*out = self->f`, `g = self->f`, `a[i] = n->f`: handed on
