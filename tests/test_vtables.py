"""frontend.vtables: the functions a unit stores into a function-pointer slot, and the record a
call through the slot gets from theirs."""

from __future__ import annotations

import clang.cindex as ci

from refcheck.conventions.summary import DEFAULT, Effect, Returns, Source, Summary
from refcheck.frontend import vtables

SOURCE = """
typedef struct R { int k; int (*visit)(int, void *); void (*done)(void *); } R;
static int v1(int k, void *o) { return k; }
static int v2(int k, void *o) { return 0; }
static void d1(void *o) { }
static R tab = { .visit = v1, .k = 2 };
static R tab2 = { 1, (int (*)(int, void *))&v2, 0 };
static void (*hook)(void *) = d1;
typedef struct Ops { int n; void (*open)(void *); void (*close)(void *); } Ops;
static void o1(void *o) { }
static void c1(void *o) { }
static Ops ops = { .open = o1, c1 };
void set(R *r, void (*given)(void *)) { r->done = given; r->visit = tab.visit; hook = 0; }
void *addr(R *r) { return &r->k; }
"""


def _stores(tmp_path) -> dict:
    p = tmp_path / "t.c"
    p.write_text(SOURCE)
    tu = ci.Index.create().parse(str(p))
    return {usr.rsplit("@", 1)[-1]: s for usr, s in vtables.stores_of(tu).items()}, tu


def test_stores_closed_open_and_variables(tmp_path):
    stores, tu = _stores(tmp_path)
    assert stores["visit"] == vtables.Stores(("v1", "v2"), False)  # designated, positional, casts, own copy
    assert stores["done"].open  # a parameter stored: open
    assert stores["hook"] == vtables.Stores(("d1",), False)  # initializer; NULL stored is nothing
    assert "k" not in stores  # not a function pointer


def test_positions_go_on_after_a_designator(tmp_path):
    stores, tu = _stores(tmp_path)
    # `{ .open = o1, c1 }`: c1 is `close`'s, the field after the designated one, not the second's
    assert stores["open"] == vtables.Stores(("o1",), False)
    assert stores["close"] == vtables.Stores(("c1",), False)


def test_still_stored_compares_the_noted_set(tmp_path):
    stores, tu = _stores(tmp_path)
    usr = next(u for u in vtables.stores_of(tu) if u.endswith("@visit"))
    assert vtables.still_stored(tu, ((f"{vtables.NOTE}{usr}=v1,v2", "-"),))
    assert not vtables.still_stored(tu, ((f"{vtables.NOTE}{usr}=v1", "-"),))


def test_stores_in_system_headers_are_not_the_units(tmp_path, monkeypatch):
    """A header reached through -isystem, or lying under SYSTEM_DIRS through -I, stores nothing;
    a project header (-I) stores as the unit does. The verdicts are kept per file (`_user_tops`):
    two headers of each kind, each storing into the same slots."""
    from refcheck.frontend import unit

    for d in ("sys", "under", "proj"):
        (tmp_path / d).mkdir()
    body = "static void {f}(void *o) {{ }}\nstatic R {f}_tab = {{ .done = {f} }};\nstatic void (*{f}_hook)(void *) = {f};\n"
    for d in ("sys", "under", "proj"):
        for i in (1, 2):
            (tmp_path / d / f"h{i}.h").write_text(body.format(f=f"{d}{i}"))
    (tmp_path / "t.c").write_text(
        "typedef struct R { void (*done)(void *); } R;\n"
        + "".join(f'#include "{d}/h{i}.h"\n' for d in ("sys", "under", "proj") for i in (1, 2))
        + "static void own(void *o) { }\nstatic R tab = { .done = own };\n")
    (tmp_path / "sys").rename(tmp_path / "isys")
    (tmp_path / "isys" / "sys").mkdir()
    for i in (1, 2):
        (tmp_path / "isys" / f"h{i}.h").rename(tmp_path / "isys" / "sys" / f"h{i}.h")
    monkeypatch.setattr(unit, "SYSTEM_DIRS", (str(tmp_path / "under") + "/",))
    tu = ci.Index.create().parse(str(tmp_path / "t.c"), args=["-isystem", str(tmp_path / "isys"), "-I", str(tmp_path)])
    stores = {usr.rsplit("@", 1)[-1]: s for usr, s in vtables.stores_of(tu).items()}
    assert stores["done"] == vtables.Stores(("own", "proj1", "proj2"), False)
    assert set(stores) == {"done", "proj1_hook", "proj2_hook"}


def _record(*arguments, returns=Returns.BORROWED, returned=None):
    return Summary(returns=returns, arguments=arguments, returned=returned, source=Source.INFERRED)


def test_joined_takes_over_only_where_every_function_does():
    release, consume = _record((1, Effect.RELEASE)), _record((1, Effect.CONSUME))
    assert vtables.joined([release, release]).arguments == ((1, Effect.RELEASE),)
    assert vtables.joined([release, consume]).arguments == ((1, Effect.CONSUME),)
    assert vtables.joined([release, _record()]).arguments == ()
    assert vtables.joined([DEFAULT, DEFAULT]) is DEFAULT


def test_joined_result_owned_only_where_every_function_returns_owned():
    owned = _record(returns=Returns.OWNED)
    assert vtables.joined([owned, owned]).returns is Returns.OWNED
    assert vtables.joined([owned, _record((0, Effect.RELEASE))]).returns is Returns.UNKNOWN
    assert vtables.joined([_record((0, Effect.RELEASE))]).returns is Returns.UNKNOWN


SEQUENCE_SOURCE = """
#define HEAD void (*del)(void *); int (*get)(void *);
typedef struct Base { HEAD } Base;
typedef struct A { HEAD int a; } A;
typedef struct B { HEAD char *b; } B;
typedef struct Other { int k; void (*del)(void *); } Other;
static void a_del(void *p) { }
static void b_del(void *p) { }
static int a_get(void *p) { return 0; }
void make(A *a, B *b, Other *o) { a->del = a_del; a->get = a_get; b->del = b_del; }
"""


def test_a_field_unstored_takes_its_common_initial_sequence(tmp_path):
    """A call through Base.del, which the unit never stores into, runs what A and B store at the
    same place of the same leading fields (C11 6.5.2.3p6); Other.del is at another place."""
    p = tmp_path / "s.c"
    p.write_text(SEQUENCE_SOURCE)
    tu = ci.Index.create().parse(str(p))
    fields = {f"{c.semantic_parent.spelling}.{c.spelling}": c for c in tu.cursor.walk_preorder()
              if c.kind == ci.CursorKind.FIELD_DECL}
    key, stores = vtables.stored_in(tu, fields["Base.del"])
    assert key.startswith(vtables.SEQUENCE) and stores == vtables.Stores(("a_del", "b_del"), False)
    assert vtables.stored_in(tu, fields["Base.get"])[1] == vtables.Stores(("a_get",), False)
    # A field with stores of its own keeps them; one at another place gets nothing.
    assert vtables.stored_in(tu, fields["A.del"])[1] == vtables.Stores(("a_del",), False)
    assert vtables.stored_in(tu, fields["Other.del"])[1] is None
    # The note names the key it was found under, and the unit still stores the same there.
    assert vtables.still_stored(tu, ((vtables.noted(key, stores), "-"),))
