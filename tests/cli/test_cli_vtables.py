"""Calls through a function-pointer field across units (frontend.vtables.exports): a unit that
stores nothing into the field gets the record the storing units export (phase 2)."""

from __future__ import annotations

import json

HEADER = """
typedef struct Obj { int refs; } Obj;
Obj *obj_new(void);
void obj_free(Obj *o);
typedef struct Ops { void (*dispose)(Obj *o); } Ops;
void use_ops(const Ops *ops);
"""

LIB = """#include "ops.h"
#include <stdlib.h>
Obj *obj_new(void) { Obj *o = malloc(sizeof *o); if (o) o->refs = 1; return o; }
void obj_free(Obj *o) { free(o); }
void %s(Obj *o) { %s }
static const Ops ops = { %s };
void run(void) { use_ops(&ops); Obj *o = obj_new(); ops.dispose(o); }
"""

USER = """#include "ops.h"
void use_ops(const Ops *ops)
{
  Obj *o = obj_new();
  ops->dispose(o);
}
"""


def _found(project, lib: str, *more: str) -> list:
    project.write("ops.h", HEADER)
    project.write("lib.c", lib)
    project.write("user.c", USER)
    r = project.run("check", "-j", "1", "--no-cache", "--format", "json", "lib.c", "user.c", *more)
    return sorted((f["file"], f["rule"], f["line"]) for f in json.loads(r.out)["findings"]), r.out + r.err


def test_a_field_another_unit_fills_with_releasers_takes_the_argument_over(project):
    found, out = _found(project, LIB % ("quiet_obj_free", "free(o);", "quiet_obj_free"))
    assert found == [], out


def test_a_field_another_unit_fills_with_a_reader_leaves_the_leak(project):
    found, out = _found(project, LIB % ("obj_peek", "(void)o;", "obj_peek"))
    assert found == [("lib.c", "RC001", 7), ("user.c", "RC001", 6)], out


OPENED = """#include "ops.h"
void set_ops(Ops *ops, void (*given)(Obj *o)) { ops->dispose = given; Obj *o = obj_new(); ops->dispose(o); }
"""


def test_a_unit_that_stores_another_value_opens_the_field_for_every_unit(project):
    # other.c calls through the field too, in a function with something to check: a unit exports
    # the slots it stores into where it walked its stores, at the first call through a slot that
    # a check lowers (vtables.exports; docs/semantics.md).
    project.write("other.c", OPENED)
    found, out = _found(project, LIB % ("quiet_obj_free", "free(o);", "quiet_obj_free"), "other.c")
    assert found == [("other.c", "RC001", 2), ("user.c", "RC001", 6)], out


def test_a_split_unit_exports_its_slots_as_a_whole_one_does(project, sharding):
    # lib.c split between shards at -j2: a shard that walked the stores (at run's call) sends
    # the slots' records with its part, and the parent's merge keeps them (shards.merged).
    project.write("ops.h", HEADER)
    project.write("lib.c", LIB % ("quiet_obj_free", "free(o);", "quiet_obj_free"))
    project.write("user.c", USER)
    r = project.run("check", "-j", "2", "--no-cache", "--format", "json", "lib.c", "user.c")
    assert json.loads(r.out)["findings"] == [], r.out + r.err
    assert any(j.get("shard") for j in map(json.loads, sharding.read_text().splitlines())), "lib.c was not split"
