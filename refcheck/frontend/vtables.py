"""Records for calls through a function pointer that the unit fills itself: a struct's
function-pointer field (`r->visit (kind, o, r)`, `alloc->free (ctx, p)`) or a file-scope
function-pointer variable, joined from the functions the unit stores there.

C writes interfaces as tables of function pointers (TH's THAllocator, CPython's visitors, libuv's
callbacks); a call through one has no record of its own (`argtypes.indirect_unknown`). Where the
set of functions stored into the slot is closed (`Stores`), the call does what every one of them
does: `joined`. A slot is closed in a unit where its record type (or the variable) is declared
outside system and library headers and every store the unit makes into it, in a function body
(`x->f = g`, `x.f = g`, `fp = g`) or an initializer (positional or designated, `static` tables),
is a function (casts and `&` looked through), NULL, or the same slot's value; any other store (a
parameter, a variable, a call's result) or its address taken opens it. A unit that stores nothing
into a slot gets the join the other units export (`exports`, the run's table in phase 2);
docs/semantics.md says what is not seen.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import clang.cindex as ci

from refcheck.conventions.summary import DEFAULT, Effect, Returns, Source, Summary, agreed
from refcheck.frontend.binding import of_kinds
from refcheck.frontend.clangutil import K, binop, kind_of, referenced, unop
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.slots import record_elements
from refcheck.frontend.perunit import PerUnit, user_tops
from refcheck.frontend.unit import in_system_header

# The prefix of the name a check notes for each slot whose record it used (`noted`): the cache
# takes a check's outcome again only where the unit still stores the same functions there.
NOTE = "(stored) "


@dataclass(frozen=True)
class Stores:
    """The functions a unit stores into one slot (by name, sorted) and whether anything else is."""

    functions: tuple = ()
    open: bool = False

    @property
    def closed(self) -> bool:
        return bool(self.functions) and not self.open


def slot_of(callee):
    """The slot a call's callee expression names (a FIELD_DECL, or a file-scope VAR_DECL of
    function-pointer type), or None."""
    x = callee
    while x is not None and kind_of(x) in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR) or (
            x is not None and kind_of(x) == K.UNARY_OPERATOR):
        kids = list(x.get_children())
        x = kids[-1] if kids else None
    if x is None or kind_of(x) not in (K.MEMBER_REF_EXPR, K.DECL_REF_EXPR):
        return None
    ref = referenced(x)
    return ref if ref is not None and _is_slot(ref) else None


def _is_slot(decl) -> bool:
    k = kind_of(decl)
    if k == K.VAR_DECL and kind_of(decl.semantic_parent) != K.TRANSLATION_UNIT:
        return False
    if k not in (K.FIELD_DECL, K.VAR_DECL):
        return False
    t = decl.type.get_canonical()
    return t.kind == ci.TypeKind.POINTER and t.get_pointee().get_canonical().kind in (
        ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO)


def foreign(slot, library_header: str) -> bool:
    """Whether the slot is declared in a system header or the library's (a GObjectClass's
    finalize, PyTypeObject's tp_free: functions the unit never stores run there too)."""
    loc = slot.location
    if loc.file is None or in_system_header(loc):
        return True
    if library_header:
        from refcheck.frontend.graph import in_library

        return in_library(loc.file.name, library_header)
    return False


# The stores of the unit parsed last, by slot USR: walked once, at the first call through a slot;
# then by common initial sequence (`sequences_of`), at the first call through a field it never
# stores into.
_STORES: PerUnit[dict] = PerUnit()
_SEQUENCES: PerUnit[dict] = PerUnit()


def stores_of(tu) -> dict:
    """USR of each slot -> Stores, for the unit `tu` (cached while it lives)."""
    return _STORES.of(tu, lambda: _walk(tu))


def sequences_of(tu) -> dict:
    """`sequence_key` -> the union of the stores of the unit's fields at that place."""
    return _SEQUENCES.of(tu, lambda: _sequences(tu, stores_of(tu)))


def _walk(tu) -> dict:
    found: dict[str, set] = {}
    opened: set[str] = set()
    for top in user_tops(tu):
        for c in of_kinds(top, _KINDS):
            k = kind_of(c)
            if k == K.BINARY_OPERATOR:
                _assignment(c, found, opened)
            elif k == K.INIT_LIST_EXPR:
                _initializer(c, found, opened)
            elif k == K.VAR_DECL and _is_slot(c):
                kids = [x for x in c.get_children() if kind_of(x) != K.TYPE_REF]
                if kids:
                    _store(c, kids[-1], found, opened)
            elif k == K.UNARY_OPERATOR and _address_of_slot(c):
                opened.add(referenced(list(c.get_children())[0]).get_usr())
    return {usr: Stores(tuple(sorted(found.get(usr, ()))), usr in opened) for usr in found.keys() | opened}


# The prefix of the key under which `_walk` files the stores of a field by its place in its
# record's common initial sequence (`sequence_key`).
SEQUENCE = "(sequence) "


def sequence_key(field) -> str | None:
    """The field's place in a common initial sequence: the names and types of its record's
    fields up to it, or None. C lets code read the fields of such a sequence through any of the
    records that share it (C11 6.5.2.3p6): a base struct's `r->delete (r)` where each derived
    struct (cbor's `READER_FUNCTIONS` leading `BufferReader`, `ObjectReader`) stores its own."""
    record = field.semantic_parent
    if record is None or kind_of(record) not in (K.STRUCT_DECL, K.UNION_DECL):
        return None
    parts = []
    for f in record.get_children():
        if kind_of(f) != K.FIELD_DECL:
            continue
        parts.append(f"{f.spelling}:{f.type.get_canonical().spelling}")
        if f == field:
            return SEQUENCE + ";".join(parts)
    return None


def _sequences(tu, stores: dict) -> dict:
    """Each common-initial-sequence key (`sequence_key`) of the fields stored into -> the union
    of those fields' stores: for a call through a field of the same place that the unit stores
    nothing into itself (`stored_in`)."""
    fields = {}
    for top in user_tops(tu):
        for c in of_kinds(top, _FIELDS):
            if c.get_usr() in stores:
                fields.setdefault(c.get_usr(), c)
    grouped: dict[str, list] = {}
    for usr, field in fields.items():
        key = sequence_key(field)
        if key is not None:
            grouped.setdefault(key, []).append(stores[usr])
    return {key: Stores(tuple(sorted({f for s in group for f in s.functions})), any(s.open for s in group))
            for key, group in grouped.items()}


def stored_in(tu, slot) -> tuple[str, Stores | None]:
    """The key a slot's stores are under in the unit and those stores: its own (by USR), else,
    for a field the unit stores nothing into, those of the fields at its place in a common
    initial sequence (`sequence_key`), else (its USR, None)."""
    usr = slot.get_usr()
    table = stores_of(tu)
    if usr in table or kind_of(slot) != K.FIELD_DECL:
        return usr, table.get(usr)
    key = sequence_key(slot)
    sequences = sequences_of(tu) if key is not None else {}
    return (key, sequences[key]) if key in sequences else (usr, None)


# The kind ids `_walk` reads; every other cursor of the unit (most of them) is skipped inside the
# walk (binding.of_kinds: compiled where built). Listing them all, through `Cursor.walk_preorder`'s
# callback per cursor and then `children_by_key`, was a quarter and then a tenth of regex's _regex.c.
_KINDS = frozenset(k.value for k in (K.BINARY_OPERATOR, K.INIT_LIST_EXPR, K.VAR_DECL, K.UNARY_OPERATOR))
_FIELDS = frozenset((K.FIELD_DECL.value,))


def _assignment(c, found: dict, opened: set) -> None:
    if binop(c) != "=":  # first: one libclang call, where listing the children is a visit
        return
    kids = list(c.get_children())
    if len(kids) != 2:
        return
    slot = slot_of(kids[0])
    if slot is not None and kind_of(_bare(kids[0])) in (K.MEMBER_REF_EXPR, K.DECL_REF_EXPR):
        _store(slot, kids[1], found, opened)


def _initializer(c, found: dict, opened: set) -> None:
    """A brace initializer of a record: designated (`.visit = f`) or positional elements."""
    for field, value in record_elements(c):
        if field is not None and _is_slot(field):
            _store(field, value, found, opened)


def _store(slot, value, found: dict, opened: set) -> None:
    usr = slot.get_usr()
    v = _bare(value)
    k = kind_of(v)
    if k == K.INTEGER_LITERAL or (k == K.DECL_REF_EXPR and v.spelling == "NULL"):
        return  # NULL: nothing runs
    ref = referenced(v) if k in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR) else None
    if ref is not None and kind_of(ref) == K.FUNCTION_DECL:
        found.setdefault(usr, set()).add(ref.spelling)
    elif ref is not None and ref.get_usr() == usr:
        return  # the slot's own value copied (`a->visit = b->visit`): one of the same set
    else:
        opened.add(usr)


def _bare(c):
    """Looks through parentheses, casts and `&` (`(visitproc) &f`)."""
    while c is not None and (kind_of(c) in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR)
                             or (kind_of(c) == K.UNARY_OPERATOR and unop(c) == "&")):
        kids = list(c.get_children())
        if not kids:
            return c
        c = kids[-1]
    return c


def _address_of_slot(c) -> bool:
    if unop(c) != "&":
        return False
    kids = list(c.get_children())
    if len(kids) != 1 or kind_of(kids[0]) not in (K.MEMBER_REF_EXPR, K.DECL_REF_EXPR):
        return False
    ref = referenced(kids[0])
    return ref is not None and _is_slot(ref)


def joined(records: list[Summary]) -> Summary:
    """The record of a call that runs one of these functions: an argument effect where every one
    has it, a result owned where every one returns the same owned result; any other result
    UNKNOWN (untracked, as a call through a pointer nothing describes). DEFAULT where none of
    them says anything."""
    if not records or not any(r.says_something for r in records):
        return DEFAULT
    records = _given_up(records)
    out = records[0]
    for r in records[1:]:
        out = agreed(out, r)
    if out.returns is not Returns.OWNED or any(r.returns is not Returns.OWNED for r in records):
        out = replace(out, returns=Returns.UNKNOWN, returned=None, owned_if_null=None, unless_singleton=None,
                      members=(), floating=False, may_fail=False)
    return replace(out, source=Source.INFERRED, assumed=any(r.assumed for r in records))


def _given_up(records: list[Summary]) -> list[Summary]:
    """The records with a position that every one gives up, some by a release and some by a
    take-over (guppy3's `hv_relate_visit` hands its relator to a list and releases it, the
    other visitor releases it), saying CONSUME there: the caller's reference is gone either way,
    and a later use of the object is no use after a release where one only took it over."""
    effects = [dict(r.arguments) for r in records]
    mixed = {p for p in effects[0] if all(e.get(p) in (Effect.RELEASE, Effect.CONSUME) for e in effects)
             and len({e[p] for e in effects}) > 1}
    if not mixed:
        return records
    return [replace(r, arguments=tuple((p, Effect.CONSUME if p in mixed else e) for p, e in r.arguments))
            for r in records]


def noted(key: str, stores: Stores) -> str:
    """The name a check notes for the slot's record (`NOTE`): the key its stores are under
    (`stored_in`: its USR, or its common initial sequence's) and the functions stored."""
    return f"{NOTE}{key}={','.join(stores.functions)}{'+open' if stores.open else ''}"


def still_stored(tu, used) -> bool:
    """Whether every slot a cached check noted (`noted`) holds the same functions in `tu` now."""
    notes = [n for n, _ in used if n.startswith(NOTE)]
    if not notes:
        return True
    now = stores_of(tu)
    for n in notes:
        usr, _, rest = n[len(NOTE):].rpartition("=")
        s = (sequences_of(tu) if usr.startswith(SEQUENCE) else now).get(usr, Stores())
        if rest != ",".join(s.functions) + ("+open" if s.open else ""):
            return False
    return True


def stored_record(b, call) -> Summary | None:
    """The joined record of a call through a slot the unit fills with a closed set of functions,
    else, where the unit stores nothing there, the record the other units export for the slot
    (`exports`: the run's table, phase 2), else None (today's record stands). Notes the slot's
    stores as asked (`noted`)."""
    kids = children_of(call)  # the build's listing: asked at every call no record describes
    slot = slot_of(kids[0]) if kids else None
    if slot is None or foreign(slot, b.conv.library_header):
        return None
    if b.conv.parent_classes and chains_up(b.conv, kids[0]):
        return None
    usr = slot.get_usr()
    key, stores = stored_in(call.translation_unit, slot)
    table = b.conv.inferred
    if table is not None:
        table.asked.add(noted(key, stores or Stores()))
    if stores is None:
        other = table.get(SLOT + usr) if table is not None else None
        return other if other is not None and adds(other) else None
    if not stores.closed:
        return None
    record = joined([b.conv.summary(f) for f in stores.functions])
    return record if adds(record) else None


def chains_up(conv, callee) -> bool:
    """Whether the callee `e->slot` reads the slot of a parent's class (`conv.parent_classes`):
    e mentions such a variable, or is a local initialised from one (`klass = FOO_CLASS
    (foo_parent_class); klass->add_port (...)`, gupnp-igd's idle functions, glib28). The unit's
    stores into the slot are its own class's overrides, which the chain-up does not run."""
    member = next((c for c in callee.walk_preorder() if kind_of(c) == K.MEMBER_REF_EXPR), None)
    base = next(iter(member.get_children()), None) if member is not None else None
    for _ in range(2):  # the base, then the initializer of the local it names
        if base is None:
            return False
        local = None
        for c in base.walk_preorder():
            if kind_of(c) != K.DECL_REF_EXPR:
                continue
            ref = referenced(c)
            if ref is not None and kind_of(ref) == K.VAR_DECL:
                if conv.matches("parent_classes", ref.spelling):
                    return True
                local = local or ref
        init = [k for k in local.get_children() if kind_of(k) != K.TYPE_REF] if local is not None else []
        base = init[-1] if init else None
    return False


# The name under which a unit exports a slot's record to the run's table (`exports`). A slot a
# unit leaves open, or whose join adds nothing (`adds`), is exported as DEFAULT: in the run's join
# (`summary.agreed`) no argument is then taken over and the result is unknown, whatever other
# units store, and where every unit says nothing the table has no entry (no unit is checked again).
SLOT = "(slot) "


def adds(record: Summary) -> bool:
    """Whether a joined record says more than a call through a pointer nothing describes: an
    argument effect, an owned result, an end."""
    return bool(record.arguments or record.conditional) or record.returns is Returns.OWNED \
        or record.ends is not DEFAULT.ends


def exports(tu, conv) -> dict:
    """The records of the slots the unit stores into, for the units that call through them and
    store nothing there: the join of what it stores where the set is closed and it adds something, else
    DEFAULT. Only a
    unit that called through a slot has walked its stores (`stores_of`); the others export none."""
    from refcheck.conventions.summary import exported

    stores = _STORES.held(tu)
    if stores is None:
        return {}
    out = {}
    for usr, st in stores.items():
        record = exported(joined([conv.summary(f) for f in st.functions])) if st.closed else DEFAULT
        out[SLOT + usr] = record if adds(record) else DEFAULT
    return out
