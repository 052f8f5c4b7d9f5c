"""Summaries inferred from bodies across units and through the caches (issue 26): a caller in
another unit sees its callee's summary; an edit that changes a summary re-checks its callers,
one that keeps it re-checks nothing else."""

from __future__ import annotations

import json

LIB = "#include <stdlib.h>\nchar *pkg_buffer(size_t n)\n{\n  char *p = malloc(n);\n  %s\n}\n"
OWNED = "return p;"
OWNED_TOO = "n += 1; return p;"  # another body (same lines), the same summary
BORROWED = "static char keep[16];\n  free(p);\n  return keep;"  # no longer hands its block over
USER = ("#include <stdlib.h>\nextern char *pkg_buffer(size_t n);\n"
        "int user(size_t n)\n{\n  char *b = pkg_buffer(n);\n  if (n > 10)\n    return -1;\n  free(b);\n  return 0;\n}\n")


def _leaks(project, *args) -> tuple[list, str]:
    r = project.run("check", "-j", "1", "--statistics", *args, "--format", "json", "lib.c", "user.c")
    data = json.loads(r.out)
    return sorted((f["file"], f["rule"]) for f in data["findings"]), r.err


def _check_pair(project, lib: str, user: str, config: str | None = None):
    """lib.c and user.c (and refcheck.toml where given) checked in one run: (JSON output, run)."""
    if config is not None:
        project.write("refcheck.toml", config)
    project.write("lib.c", lib)
    project.write("user.c", user)
    r = project.run("check", "-j", "1", "--no-cache", "--format", "json", "lib.c", "user.c")
    return json.loads(r.out), r


def test_a_callee_in_another_unit_gives_its_summary_in_either_order(project):
    project.write("lib.c", LIB % OWNED)
    project.write("user.c", USER)
    for order in (("lib.c", "user.c"), ("user.c", "lib.c")):
        r = project.run("check", "-j", "1", "--no-cache", "--format", "json", *order)
        found = sorted((f["file"], f["rule"], f["line"]) for f in json.loads(r.out)["findings"])
        assert found == [("lib.c", "RC004", 5), ("user.c", "RC001", 7)], r.out + r.err


def test_summary_changes_recheck_callers_and_only_they(project):
    project.write("lib.c", LIB % OWNED)
    project.write("user.c", USER)
    found, err = _leaks(project)
    assert found == [("lib.c", "RC004"), ("user.c", "RC001")]
    assert "(2 analyzed, 0 from cache)" in err, err
    # Another body with the same summary: the caller's unit comes from the cache.
    project.write("lib.c", LIB % OWNED_TOO)
    found, err = _leaks(project)
    assert found == [("lib.c", "RC004"), ("user.c", "RC001")]
    assert "(1 analyzed, 1 from cache)" in err, err
    # The summary changes: the caller is checked again; its leak is gone, and freeing what is now
    # a borrowed result (a static buffer) is RC010.
    project.write("lib.c", LIB % BORROWED)
    found, err = _leaks(project)
    assert found == [("user.c", "RC010")], err


def test_per_function_cache_keys_on_the_summaries_a_function_used(project):
    # One unit: the helper and its caller. An edit to the helper's body that keeps its summary
    # takes the caller from the per-function cache; one that changes it checks the caller again.
    project.write("one.c", (LIB % OWNED) + USER.split("\n", 2)[2])
    project.run("check", "-j", "1", "one.c")
    project.write("one.c", (LIB % OWNED_TOO) + USER.split("\n", 2)[2])
    r = project.run("check", "-j", "1", "--statistics", "--format", "json", "one.c")
    assert sorted(f["rule"] for f in json.loads(r.out)["findings"]) == ["RC001", "RC004"]
    assert "1 from the per-function cache" in r.err, r.err
    project.write("one.c", (LIB % BORROWED) + USER.split("\n", 2)[2])
    r = project.run("check", "-j", "1", "--statistics", "--format", "json", "one.c")
    assert [f["rule"] for f in json.loads(r.out)["findings"]] == [], r.out  # a callee with a body: no RC010
    assert "0 from the per-function cache" in r.err, r.err



def test_a_chain_of_helpers_across_units_settles(project):
    # Units run in name order: a_mid.c's helper is checked before the allocator it wraps (c_lib.c),
    # b_user.c after a_mid.c, taking its first (borrowing) summary. Phase 2's first round checks
    # a_mid.c again (its import disagreed) and learns that mid1 hands its block over; b_user.c's
    # import agreed with the first table, so only a second round sees the change: one round gave
    # a false RC010 at the free and missed the leak.
    project.write("c_lib.c", LIB % OWNED)
    project.write("a_mid.c", "#include <stddef.h>\nextern char *pkg_buffer(size_t n);\n"
                             "char *mid1(size_t n)\n{\n  return pkg_buffer(n);\n}\n")
    project.write("b_user.c", USER.replace("pkg_buffer", "mid1"))
    r = project.run("check", "-j", "1", "--no-cache", "--format", "json", "a_mid.c", "b_user.c", "c_lib.c")
    found = sorted((f["file"], f["rule"], f["line"]) for f in json.loads(r.out)["findings"])
    assert found == [("a_mid.c", "RC004", 5), ("b_user.c", "RC001", 7), ("c_lib.c", "RC004", 5)], r.out + r.err


TWICE_LIB = "#include <stdlib.h>\nchar *pkg_take(char *p)\n{\n  free(p);\n  return malloc(4);\n}\n"
# The same name defined again, as a test's mock is (linked into another program): it gives its
# argument up too, but returns what a bodiless getter lends.
TWICE_MOCK = ("#include <stdlib.h>\nextern char *pool(void);\nchar *pkg_take(char *p)\n{\n  free(p);\n"
              "  return pool();\n}\n")
TWICE_USER = ("#include <stdlib.h>\nextern char *pkg_take(char *p);\nint user(void)\n{\n  char *b = malloc(4);\n"
              "  char *r = pkg_take(b);\n  %s\n  free(r);\n  return 0;\n}\n")


def test_a_name_defined_twice_gives_what_its_bodies_agree_on(project):
    # Both bodies release the argument: the caller's block is given up (no leak), and freeing it
    # again is a double release. They differ on the result: neither owned nor borrowed, so
    # freeing it is no RC010 (a name summarised two ways used to fall back to the default).
    project.write("lib.c", TWICE_LIB)
    project.write("mock.c", TWICE_MOCK)
    for extra, expected in (("", []), ("free(b);", [("user.c", "RC002", 7)])):
        project.write("user.c", TWICE_USER % extra)
        r = project.run("check", "-j", "1", "--no-cache", "--format", "json", "lib.c", "mock.c", "user.c")
        found = sorted((f["file"], f["rule"], f["line"]) for f in json.loads(r.out)["findings"]
                       if f["file"] == "user.c")
        assert found == expected, r.out + r.err


FORWARDERS = """typedef struct T T;
typedef struct Box { T *first; } Box;
void *table_lookup(void *table, int key);
void T_retain(T *t);
T *find_sorted(void *table, int key)
{
  T *t = table_lookup(table, key);
  if (t)
    T_retain(t);
  return t;
}
T *find(void *table)
{
  return find_sorted(table, 1);
}
T *box_first(Box *b)
{
  return b->first;
}
T *first(Box *b)
{
  return box_first(b);
}
"""
FORWARDED = """typedef struct T T;
typedef struct Box Box;
T *find(void *table);
T *first(Box *b);
void T_free(T *t);
void use(void *table)
{
  T *t = find(table);
  T_free(t);
}
void use_first(Box *b)
{
  T *t = first(b);
  T_free(t);
}
"""


def test_a_forwarded_unknown_result_stays_unknown_in_another_unit(project):
    # gom's `find_sync` returns `find_sorted_sync (...)`, whose body returns a pointer nobody
    # counts (taken from a container, then referenced): the forwarder's record says "unknown"
    # too, so the caller in another unit does not take it as borrowed (no RC010). A forwarder of
    # a borrowed getter stays borrowed: releasing its result is RC010.
    data, r = _check_pair(project, FORWARDERS, FORWARDED)
    found = sorted((f["file"], f["rule"], f["line"]) for f in data["findings"])
    assert found == [("user.c", "RC010", 14)], r.out + r.err


LENDER = """typedef struct { void *data1; void *data2; } Iter;
typedef struct { void *items; } Playlist;
void *g_malloc(unsigned long n);
void g_free(void *p);
int iter_first(Playlist *playlist, Iter *iter)
{
  void *scratch = g_malloc(4);
  g_free(scratch);
  if (!playlist->items)
    return 0;
  iter->data1 = playlist;
  iter->data2 = playlist->items;
  return 1;
}
"""
LENT_TO = """typedef struct { void *data1; void *data2; } Iter;
typedef struct Playlist Playlist;
int iter_first(Playlist *playlist, Iter *iter);
int has_items(Playlist *p)
{
  Iter it;
  return iter_first(p, &it);
}
"""


def test_a_parameter_lent_on_one_result_only_makes_no_conditional_record(project):
    # totem-pl-parser's `totem_pl_playlist_iter_first (playlist, iter)` stores `playlist` into
    # `*iter` on its TRUE result only: GLib lends such a store (no effect), and the conditional
    # record once came out with no effect on that result (`(0, None, NONZERO)`), an internal
    # error when another unit's check compared the record's digest.
    data, r = _check_pair(project, LENDER, LENT_TO, "preset = 'glib'\n")
    assert r.code == 0 and data["findings"] == [] and not data["errors"], r.out + r.err


WRAPPER = """#include <stddef.h>
typedef struct Variant Variant;
typedef struct { Variant *(*finish)(void *self, void *result); } ServiceClass;
Variant *service_finish(void *self, ServiceClass *klass, void *result)
{
  if (klass->finish == NULL)
    return NULL;
  return (klass->finish)(self, result);
}
"""
WRAPPED = """#include <stddef.h>
typedef struct Variant Variant;
typedef struct ServiceClass ServiceClass;
Variant *service_finish(void *self, ServiceClass *klass, void *result);
void g_variant_unref(Variant *v);
void on_done(void *self, ServiceClass *klass, void *result)
{
  Variant *v = service_finish(self, klass, result);
  if (v != NULL)
    g_variant_unref(v);
}
"""


def test_a_virtual_method_wrapper_forwards_an_unknown_result_to_another_unit(project):
    # libsecret's `secret_service_prompt_finish` returns `(klass->prompt_finish) (self, result,
    # error)`: a call through a function pointer, whose result no record describes. Its record
    # says "unknown", so the caller in another unit does not take the result as borrowed (no
    # RC010 at its unref).
    data, r = _check_pair(project, WRAPPER, WRAPPED, "preset = 'glib'\n")
    assert data["findings"] == [] and not data["errors"], r.out + r.err


SYNC_LIB = """#include <stddef.h>
typedef struct { void *result; int done; } Sync;
void *g_object_ref(void *o);
void sync_on_result(void *source, void *result, void *user_data)
{
  Sync *s = user_data;
  s->result = g_object_ref(result);
  s->done = 1;
}
"""
SYNC_USER = """#include <stdlib.h>
typedef struct { void *result; int done; } Sync;
typedef void (*ReadyCallback)(void *source, void *result, void *user_data);
void sync_on_result(void *source, void *result, void *user_data);
void g_object_unref(void *o);
void queue_keep(ReadyCallback callback, void *data);
void thing_delete(void *self, ReadyCallback callback, void *user_data)
{
  if (self == NULL)
    return;
  queue_keep(callback, user_data);
}
int thing_delete_sync(void *self)
{
  Sync *sync = calloc(1, sizeof *sync);
  int done;
  thing_delete(self, sync_on_result, sync);
  done = sync->done;
  free(sync);
  return done;
}
"""


def test_a_callback_in_another_unit_lends_the_closure_it_only_reads(project):
    # libsecret's `*_sync` functions: `secret_collection_delete (self, NULL,
    # _secret_sync_on_result, sync)`, the callback in secret-util.c; its record (from that unit)
    # neither frees nor keeps its user data, so the closure is only lent: freeing it after is
    # clean (no RC006). `queue_keep` keeps its data, as g_task_new does (GIR).
    data, r = _check_pair(project, SYNC_LIB, SYNC_USER,
                          "preset = 'glib'\n[summaries.queue_keep]\narguments = { 1 = 'sink' }\n")
    assert data["findings"] == [] and not data["errors"], r.out + r.err


STACK_HELPER = """#include <stddef.h>
#include <string.h>
typedef struct Loop Loop;
typedef struct Sample Sample;
typedef void (*Ready)(void *source, void *res, void *user_data);
typedef struct { Loop *loop; Sample *sample; } Helper;
Loop *g_main_loop_new(void *ctx, int running);
void g_main_loop_run(Loop *loop);
void g_main_loop_unref(Loop *loop);
void sensor_get_sample(void *sensor, Ready callback, void *user_data);
Sample *sensor_get_sample_finish(void *sensor, void *res);
static void finish_sync(void *sensor, void *res, void *user_data)
{
  Helper *helper = user_data;
  helper->sample = sensor_get_sample_finish(sensor, res);
}
Sample *sensor_get_sample_sync(void *sensor)
{
  Helper helper;
  memset(&helper, 0, sizeof(Helper));
  helper.loop = g_main_loop_new(NULL, 0);
  sensor_get_sample(sensor, finish_sync, &helper);
  g_main_loop_run(helper.loop);
  g_main_loop_unref(helper.loop);
  return helper.sample;
}
"""
STACK_HELPER_USER = """#include <stddef.h>
typedef struct Sample Sample;
Sample *sensor_get_sample_sync(void *sensor);
void sample_free(Sample *s);
int measure(void *sensor)
{
  Sample *s = sensor_get_sample_sync(sensor);
  if (s == NULL)
    return -1;
  sample_free(s);
  return 0;
}
"""
FILLER = """void g_free(void *p);
int remote_call(void *obj, const char *method, const char *type, ...);
char *lookup_name(void *obj, int i);
char *get_name(void *obj, int i)
{
  char *retval = 0;
  if (!obj)
    return 0;
  remote_call(obj, "GetName", "i=>s", i, &retval);
  return retval;
}
char *get_label(void *obj, int i)
{
  char *label = lookup_name(obj, i);
  return label;
}
"""
FILLED = """void g_free(void *p);
char *get_name(void *obj, int i);
char *get_label(void *obj, int i);
void show(void *obj)
{
  char *name = get_name(obj, 0);
  char *label = get_label(obj, 0);
  g_free(name);
  g_free(label);
}
"""


def test_a_sync_wrapper_returning_its_stack_helper_member_is_unknown_in_another_unit(project):
    # colord's `cd_sensor_get_sample_sync` returns `helper.sample`, which the async call's callback
    # filled through `&helper`: not a load of memory the wrapper borrows, so the caller's free in
    # another unit is no RC010 (fixtures/glib_sync_stack_helper.c: the wrapper's own members).
    data, r = _check_pair(project, STACK_HELPER, STACK_HELPER_USER, "preset = 'glib'\n")
    assert data["findings"] == [] and not data["errors"], r.out + r.err


def test_a_local_filled_through_its_address_and_returned_is_unknown_in_another_unit(project):
    # at-spi2-core's getters: `_atspi_dbus_call (obj, iface, "GetName", error, "i=>s", i,
    # &retval); return retval;`, with `_atspi_dbus_call` in another unit. What the call stored
    # nobody knows: the getter's record says "unknown" (as its own unit's callers already read
    # a body that is not analysed), so the caller in another unit does not take it as the
    # bodiless default's borrowed result (no RC010 at its g_free). A local assigned a call's
    # result and returned keeps that reading: releasing the bodiless lookup's result is RC010.
    data, r = _check_pair(project, FILLER, FILLED, "preset = 'glib'\n")
    found = sorted((f["file"], f["rule"], f["line"]) for f in data["findings"])
    assert found == [("user.c", "RC010", 9)], r.out + r.err


ALLOCATING = """#include <string.h>
typedef void *(*Allocator)(void *p, unsigned long n);
void *g_realloc(void *p, unsigned long n);
char *lookup_name(void *obj, int i);
char *get_string(const char *src, Allocator allocator)
{
  unsigned long n = strlen(src);
  char *string;
  if (!allocator)
    allocator = g_realloc;
  string = (allocator)(NULL, n + 1);
  if (string == NULL)
    return NULL;
  memcpy(string, src, n + 1);
  return string;
}
char *get_text(const char *src, Allocator allocator)
{
  char *text = get_string(src, allocator);
  if (text != NULL && text[0] == '\\0')
    return NULL;
  return text;
}
char *get_label(void *obj, int i)
{
  char *label = lookup_name(obj, i);
  return label;
}
"""
ALLOCATED = """void g_free(void *p);
typedef void *(*Allocator)(void *p, unsigned long n);
char *get_string(const char *src, Allocator allocator);
char *get_text(const char *src, Allocator allocator);
char *get_label(void *obj, int i);
void show(void *obj, const char *src)
{
  char *copy = get_string(src, 0);
  char *text = get_text(src, 0);
  char *label = get_label(obj, 0);
  g_free(copy);
  g_free(text);
  g_free(label);
}
"""


def test_a_local_assigned_through_a_function_pointer_and_returned_is_unknown_in_another_unit(project):
    # gcr's egg_asn1x_get_string_as_raw (node, allocator, &n): `string = (allocator) (NULL, n + 1)`
    # with the caller's EggAllocator (g_realloc where NULL), then `return string;`. Its body calls
    # nothing with an ownership role, so it was never analysed, and callers in other units took
    # the bodiless default's borrowed result: RC010 at every g_free (13 in gcr). The result of a
    # call through a function pointer is unknown (argtypes.indirect_unknown), and so is the
    # record of a body returning it, and of one returning that (egg_asn1x_get_string_as_utf8).
    # The bodiless lookup's result stays borrowed: RC010.
    data, r = _check_pair(project, ALLOCATING, ALLOCATED, "preset = 'glib'\n")
    found = sorted((f["file"], f["rule"], f["line"]) for f in data["findings"])
    assert found == [("user.c", "RC010", 13)], r.out + r.err
