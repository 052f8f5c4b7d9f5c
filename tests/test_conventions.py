"""The convention tables of issue 14 (primitives, sinks, conditional aborts, may-return-argument,
size facts, may-raise): their TH defaults and their configuration keys."""

from __future__ import annotations

import pytest

from refcheck.workspace.config import ConfigError, parse
from refcheck.conventions import LIBC_RECORDS, Conventions
from refcheck.conventions.summary import Effect, Returns, Source, ErrorCondition
from refcheck.conventions.presets import PRESETS

TH = Conventions()


@pytest.mark.parametrize("name", ["THDefaultAllocator_alloc", "THDefaultAllocator_realloc", "THMapAllocator_alloc",
                                  "THAllocInternal", "THAlloc", "THRealloc", "THFree", "THCudaFree",
                                  "THCudaHostFree", "THCudaHostAlloc", "THFloatTensor_free", "THFloatTensor_retain"])
def test_allocator_implementations_are_primitives(name):
    assert TH.is_primitive(name)


@pytest.mark.parametrize("name", ["THMapAllocatorContext_new", "THFloatStorage_newWithAllocator",
                                  "THFloatTensor_add", "THMemoryFile_cloneString"])
def test_ordinary_functions_are_not_primitives(name):
    # THMapAllocatorContext_new's unwind leak is real: "Allocator" must not make it a primitive.
    assert not TH.is_primitive(name)


def test_allocators_may_return_owned_memory_but_naming_is_still_checked_elsewhere():
    assert TH.returns_owned("THAllocInternal") and TH.returns_owned("THFloatTensor_newClone")
    assert not TH.returns_owned("THMemoryFile_cloneString")


def test_sinks_resolve_negative_indices_for_th_and_thc_signatures():
    assert TH.sink_arguments("THFloatStorage_newWithAllocator", 3) == {2}
    assert TH.sink_arguments("THCudaStorage_newWithAllocator", 4) == {3}
    assert TH.sink_arguments("THFloatStorage_newWithDataAndAllocator", 4) == {0, 3}
    assert TH.sink_arguments("THCThreadLocal_set", 2) == {1}
    assert TH.sink_arguments("THFloatStorage_newWithAllocator", 0) == frozenset()  # out of range
    assert TH.sink_arguments("THFloatTensor_add", 3) == frozenset()


def test_conditional_errors_know_their_polarity():
    assert TH.error_condition("_THArgCheck") == ErrorCondition(2, raises_when=False)
    assert TH.error_condition("__THCudaCheck") == ErrorCondition(0, raises_when=True)
    assert TH.error_condition("THFloatTensor_add") is None
    assert TH.condition_argument("_THArgCheck") == 2  # the older API still answers


def test_only_new_contiguous_may_return_its_argument():
    assert TH.returned_argument("THFloatTensor_newContiguous", 1) == 0
    assert TH.returned_argument("THCudaTensor_newContiguous", 2) == 1
    for fresh in ("THFloatTensor_newClone", "THFloatTensor_new", "THFloatTensor_newWithSize2d"):
        assert TH.returned_argument(fresh, 3) is None


def test_size_facts():
    assert TH.same_size_arguments("THFloatTensor_resizeAs", 2) == (0, 1)
    assert TH.same_size_arguments("THCudaTensor_resizeAs", 3) == (1, 2)
    assert TH.same_size_arguments("THFloatTensor_isSameSizeAs", 2, test=True) == (0, 1)
    assert TH.same_size_arguments("THFloatTensor_isSameSizeAs", 2) is None
    assert TH.same_size_arguments("THFloatTensor_resizeAs", 1) is None


def test_other_presets_start_without_th_tables():
    for name in ("cpython", "glib"):
        conv = PRESETS[name].conventions
        # Their own tables may have entries (GLib's `_take_` setters); none of TH's.
        assert not set(conv.sinks) & set(TH.sinks) and not conv.error_if_nonzero and not conv.may_return_argument
        # libc's records (realpath, getcwd) are every preset's; TH's own (THCudaMalloc) are not.
        assert set(conv.summaries) & set(TH.summaries) == set(LIBC_RECORDS)
        assert not conv.is_primitive("THDefaultAllocator_alloc")


def test_tables_and_lists_from_configuration_and_the_cache_key_follows():
    cfg = parse({"sinks": {"^keep$": [0]}, "extend-primitive": ["^my_alloc$"], "may-raise": ["^shapeCheck$"],
                 "error-if-nonzero": {"^CHECK$": 0}, "may-return-argument": {"^dup$": 0},
                 "same-size": {"^copyShape$": [0, 1]}, "same-size-test": {"^sameShape$": [0, 1]}}, "t", "/p")
    conv = cfg.conventions
    assert conv.sink_arguments("keep", 1) == {0} and conv.sink_arguments("THFloatStorage_newWithAllocator", 3) == set()
    assert conv.is_primitive("my_alloc") and conv.is_primitive("THAllocInternal")
    assert conv.matches("may_raise", "shapeCheck")
    assert conv.error_condition("CHECK") == ErrorCondition(0, True)
    assert conv.returned_argument("dup", 1) == 0
    assert conv.same_size_arguments("copyShape", 2) == (0, 1)
    assert conv.fingerprint() != TH.fingerprint()


@pytest.mark.parametrize("table, message", [
    ({"sinks": {"^k$": 1}}, "expected a list of argument indices"),
    ({"sinks": {"(": [0]}}, "bad regular expression"),
    ({"same-size": {"^k$": [0]}}, "expected 2 argument indices"),
    ({"may-return-argument": {"^k$": [0]}}, "expected an argument index"),
    ({"error-if-nonzero": {"^k$": True}}, "expected an argument index"),
    ({"may_raise": ["x"]}, "did you mean 'may-raise'"),
    ({"extend-primitive": ["("]}, "bad regular expression"),
])
def test_bad_tables_name_the_key(table, message):
    with pytest.raises(ConfigError, match=message):
        parse(table, "t", "/p")


CONFIGURED_UNIT = """
typedef struct Thing Thing;
Thing *Thing_new(void);
Thing *Thing_newShared(Thing *t);
void Thing_free(Thing *t);
void registry_keep(void *registry, Thing *t);
void STATUS_CHECK(int status);
int poll(void);
extern void *g_registry;

void kept(void) { Thing *t = Thing_new(); registry_keep(g_registry, t); }
void compared(Thing *x) { Thing *t = Thing_newShared(x); if (t != x) Thing_free(t); }
void checked(void) {
  Thing *t = Thing_new();
  int status = poll();
  if (status) { Thing_free(t); STATUS_CHECK(status); }
  Thing_free(t);
}
"""


def _findings(tmp_path, conv):
    from cunit import CUnit

    result = CUnit(tmp_path).check_text(CONFIGURED_UNIT, "configured.c", conv)
    assert not [e for e in result.errors if e.severity == "error"]
    return {(f.function, f.rule) for f in result.findings}


def test_configured_tables_change_the_analysis(tmp_path):
    """Each table, configured for a code base's own names, removes its false positive; with
    the TH defaults (none of these names) the findings are there."""
    default = _findings(tmp_path, Conventions())
    assert {("kept", "RC001"), ("checked", "RC002")} <= default
    # Thing_newShared is a fresh acquirer by default: it cannot be x, so `t != x` always frees.
    assert ("compared", "RC001") not in default
    configured = parse({"sinks": {"^registry_keep$": [-1]}, "may-return-argument": {"^Thing_newShared$": 0},
                        "error-if-nonzero": {"^STATUS_CHECK$": 0}}, "t", str(tmp_path)).conventions
    got = _findings(tmp_path, configured)
    assert ("kept", "RC001") not in got and ("checked", "RC002") not in got
    # Declared as one that may return x, the equal edge leaks.
    assert ("compared", "RC001") in got


# --- issue 27: real spellings of acquirers, handles, the lua-torch preset ---------------------

@pytest.mark.parametrize("name", ["THClTensor_newv2", "THClStorage_newv2", "THFloatTensor_newWithSize2d",
                                  "THClTensor_newWithStorage1d", "newScratch", "THCudaTensor_new", "new_tensor"])
def test_acquirer_spellings_of_ports(name):
    assert TH.classify(name) == "acquire"


@pytest.mark.parametrize("name", ["THFile_newline", "newvalue", "renew", "THFloatTensor_news", "lua_newuserdata",
                                  "luaL_newstate", "luaT_newmetatable", "THClTensor_newvalue"])
def test_words_that_only_begin_with_new_do_not_acquire(name):
    assert TH.classify(name) is None


def test_context_is_configurable():
    extended = parse({"extend-context": ["^lua_State$"]}, "t", ".").conventions
    assert extended.matches("context", "lua_State") and extended.matches("context", "THCState")
    replaced = parse({"context": ["^MyHandle$"]}, "t", ".").conventions
    assert replaced.matches("context", "MyHandle") and not replaced.matches("context", "THCState")
    with pytest.raises(ConfigError, match="context"):
        parse({"context": ["("]}, "t", ".")


def test_lua_torch_preset_reads_the_lua_api_records():
    lua = PRESETS["lua-torch"].conventions
    assert lua.errors == "unwind"
    assert lua.sink_arguments("luaT_pushudata", 3) == {1}
    assert lua.sink_arguments("lua_pushlightuserdata", 2) == frozenset()  # no __gc: no hand-over
    for name in ("luaL_error", "luaL_argerror", "luaL_typerror", "luaT_typerror", "lua_error", "THError"):
        assert lua.classify(name) == "error", name
    for name in ("luaT_checkudata", "luaT_toudata"):
        s = lua.summary(name)
        assert s.returns is Returns.BORROWED and s.source is Source.CONFIGURED, name
    assert lua.may_raise_call("luaT_checkudata") and not lua.may_raise_call("luaT_toudata")
    assert lua.classify("luaT_alloc") == "acquire" and lua.classify("luaT_realloc") == "reallocate"
    assert lua.sink_arguments("THFloatStorage_newWithAllocator", 3) == {2}  # TH's tables underneath
    assert TH.summary("luaT_checkudata").source is Source.DEFAULT and TH.classify("luaL_error") is None


def test_preset_records_are_checked_like_configured_ones():
    from refcheck.conventions.presets import records
    from refcheck.conventions.records import RecordError
    assert records({"f": {"arguments": {"0": "consume"}}}, "p")["f"].effect_of(0) is Effect.CONSUME
    with pytest.raises(RecordError, match="p: f: unknown key 'retrns'"):
        records({"f": {"retrns": "owned"}}, "p")


def test_lua_torch_is_proposed_for_lua_units_with_findings():
    from refcheck.conventions.presets import suggestion
    lua = ["/src/Tensor.c", "/usr/include/lua5.1/lauxlib.h", "/src/lib/luaT/luaT.h"]
    note = suggestion([(lua, 3), (["/src/x.c"], 5), (lua, 0)])
    assert note is not None and "1 unit(s)" in note and "lua-torch" in note and "\n" not in note
    assert suggestion([(lua, 0), (["/src/x.c"], 5)]) is None


def test_for_unit_keeps_caches_and_answers_as_a_fresh_copy():
    """The engine's per-unit copy reuses the compiled patterns, name cache and fingerprint; it
    must answer every question as a copy built from scratch would, and refuse other fields."""
    from dataclasses import replace
    base = Conventions(acquire=[r"^mk_"], release=[r"^rm_"])
    base.fingerprint(), base.summary("mk_a"), base.classify("rm_b")
    unit = base.for_unit(unit_counted=frozenset({"T"}), unit_may_raise=frozenset({"f"}))
    fresh = replace(base, unit_counted=frozenset({"T"}), unit_may_raise=frozenset({"f"}))
    assert unit.unit_counted == frozenset({"T"}) and unit.unit_may_raise == frozenset({"f"})
    assert unit.fingerprint() == fresh.fingerprint() == base.fingerprint()
    for name in ("mk_a", "rm_b", "other", "THFloatTensor_free"):
        assert unit.summary(name) == fresh.summary(name)
        assert unit.classify(name) == fresh.classify(name)
    with pytest.raises(ValueError, match="acquire"):
        base.for_unit(acquire=[])


def test_setters_are_inferred_only_where_the_preset_says_so():
    # CPython's store-then-INCREF idiom makes a plain setter a `store` its callers settle; GLib
    # code lends such pointers (user data, back-pointers), so the glib preset infers none.
    from refcheck.conventions.presets import PRESETS

    assert PRESETS["cpython"].conventions.infer_setters
    assert not PRESETS["glib"].conventions.infer_setters
    assert not PRESETS["th"].conventions.infer_setters
