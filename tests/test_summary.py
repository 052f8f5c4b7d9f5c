"""The summary record: what the conventions say of a callee, configured records, the cache key."""

from dataclasses import fields, replace

import pytest

from refcheck.workspace.config import ConfigError, parse
from refcheck.conventions import Conventions
from refcheck.conventions.summary import DEFAULT, Effect, Ends, ErrorCondition, Returns, Source, Summary, Tracked, When, agreed, exported, with_maybe_given
from refcheck.conventions.records import RecordError, parse_record, record_table

TH = Conventions()


@pytest.mark.parametrize("name, role", [
    ("THFloatTensor_free", "release"), ("THFree", "release"), ("THFloatTensor_freeCopyTo", "consume"),
    ("THFloatTensor_retain", "retain"), ("THRealloc", "reallocate"), ("realloc", "reallocate"),
    ("THError", "error"), ("abort", "exit"), ("THFloatTensor_newClone", "acquire"), ("malloc", "acquire"),
    ("THFloatTensor_add", None), ("_THArgCheck", None), ("", None),
])
def test_the_record_names_the_role_the_patterns_give(name, role):
    assert TH.summary(name).role == role == TH.classify(name)


def test_the_tables_become_positions_of_the_record():
    s = TH.summary("THFloatStorage_newWithDataAndAllocator")
    assert s.returns is Returns.OWNED and s.source is Source.CONVENTIONS
    assert s.positions(Effect.SINK, 4) == {0, 3}
    assert TH.summary("THFloatTensor_newContiguous").returned == -1
    assert TH.summary("THFloatTensor_retain").returned is Tracked.FIRST
    assert TH.summary("_THArgCheck").error_condition == ErrorCondition(2, raises_when=False)
    assert TH.summary("realloc").may_fail and not TH.summary("THRealloc").may_fail
    assert TH.summary("THFloatTensor_isContiguous").pure
    assert TH.summary("THFloatTensor_add") == DEFAULT and DEFAULT.source is Source.DEFAULT


def test_a_configured_record_wins_over_the_patterns():
    conv = parse({"summaries": {"THFloatTensor_free": {"arguments": {"0": "borrow"}},
                                "luaT_pushudata": {"arguments": {"1": "sink"}},
                                "THCudaMalloc": {"arguments": {"1": "acquire-out"}},
                                "luaL_error": {"ends": "error"}}}, "t", "/p").conventions
    assert conv.classify("THFloatTensor_free") is None and conv.classify("THDoubleTensor_free") == "release"
    assert conv.sink_arguments("luaT_pushudata", 3) == {1}
    assert conv.summary("THCudaMalloc").effect_of(1) is Effect.ACQUIRE_OUT
    assert conv.classify("luaL_error") == "error"
    assert conv.summary("luaL_error").source is Source.CONFIGURED
    assert conv.fingerprint() != TH.fingerprint()


@pytest.mark.parametrize("record", [
    DEFAULT,
    Summary(returns=Returns.OWNED, returned=-1, family="THFloatTensor", source=Source.CONFIGURED),
    Summary(arguments=((Tracked.EVERY, Effect.RELEASE), (2, Effect.SINK)), source=Source.CONFIGURED),
    Summary(ends=Ends.ERROR, error_condition=ErrorCondition(1, True), may_raise=True, pure=True,
            source=Source.CONFIGURED),
    Summary(returns=Returns.REALLOCATED, may_fail=True, conditional=((-1, Effect.CONSUME, When.ZERO),),
            source=Source.CONFIGURED),
    Summary(arguments=((0, Effect.BORROW),), conditional=((1, Effect.RELEASE, When.NONZERO),),
            source=Source.CONFIGURED),
    Summary(returns=Returns.OWNED, owned_if_null=1, family="malloc", source=Source.CONFIGURED),
    Summary(returns=Returns.OWNED, unless_singleton="_Py_NoneStruct", source=Source.CONFIGURED),
    Summary(members=(("chunk", Returns.OWNED), ("view", Returns.BORROWED)), source=Source.CONFIGURED),
    Summary(arguments=((0, Effect.RELEASE),), unkept=(1, 2), source=Source.CONFIGURED),
    Summary(conditional=((2, Effect.ACQUIRE_OUT, When.ZERO),), fills_kept=(2,), source=Source.CONFIGURED),
    Summary(conditional=((3, Effect.RELEASE, When.ZERO),), maybe_given=(3,), source=Source.CONFIGURED),
    Summary(arguments=((0, Effect.CLEAR),), source=Source.CONFIGURED),
    Summary(arguments=((4, Effect.RELEASE),), given_some=(4,), source=Source.CONFIGURED),
    Summary(arguments=tuple((i, Effect.ACQUIRE_OUT) for i in range(3)), fills_with=((1, 0), (2, 0)),
            source=Source.CONFIGURED),
    Summary(returns=Returns.OWNED, null_when_flags=((0, "route_state"),), source=Source.CONFIGURED),
    Summary(returns=Returns.OWNED, result_held=True, source=Source.CONFIGURED),
    Summary(result_constant=0, source=Source.CONFIGURED),
    Summary(constant_if_null=((1, -1), (2, 0)), source=Source.CONFIGURED),
])
def test_a_record_table_reads_back_as_the_record(record):
    table = record_table(record)
    assert parse_record(table, "t", record.source) == record


def test_conditional_effects_read_in_either_spelling():
    old = parse_record({"arguments": {"2": "consume-on-success"}}, "t")
    new = parse_record({"arguments": {"2": {"effect": "consume", "when": "zero"}}}, "t")
    assert old == new and old.conditional == ((2, Effect.CONSUME, When.ZERO),) and old.arguments == ()
    assert record_table(new) == {"arguments": {"2": "consume-on-success"}}  # its readable name
    rel = parse_record({"arguments": {"0": "borrow", "-1": {"effect": "release", "when": "nonzero"}}}, "t")
    assert rel.conditional_effects(3) == {2: (Effect.RELEASE, When.NONZERO)} and rel.effects(3) == {0: Effect.BORROW}
    assert rel.digest() != parse_record({"arguments": {"0": "borrow", "-1": "release"}}, "t").digest()


def test_a_kept_fill_differs_from_a_fill_with_null_elsewhere():
    table = {"arguments": {"2": {"effect": "acquire-out", "when": "zero"}}}
    null, kept = parse_record(table, "t"), parse_record({**table, "fills-kept": [2]}, "t")
    assert null != kept and null.digest() != kept.digest()
    assert kept.kept_fills(3) == frozenset({2}) and null.kept_fills(3) == frozenset()
    assert agreed(kept, kept) == kept and agreed(kept, null).conditional == () == agreed(null, kept).conditional


def test_a_release_maybe_given_on_the_other_result_differs_and_survives_the_second_exploration():
    table = {"arguments": {"3": {"effect": "release", "when": "zero"}}}
    plain, maybe = parse_record(table, "t"), parse_record({**table, "maybe-given": [3]}, "t")
    assert plain != maybe and plain.digest() != maybe.digest()
    assert maybe.maybe_positions(4) == frozenset({3}) and plain.maybe_positions(4) == frozenset()
    assert agreed(maybe, maybe) == maybe and agreed(maybe, plain).maybe_given == ()
    # The exploration owning the parameter from entry reads a steal on every result: the first's wins.
    stolen = Summary(arguments=((0, Effect.BORROW), (3, Effect.CONSUME)), source=Source.INFERRED)
    merged = with_maybe_given(replace(maybe, source=Source.INFERRED), stolen)
    assert merged.arguments == ((0, Effect.BORROW),) and merged.conditional == maybe.conditional
    assert merged.maybe_given == (3,) and with_maybe_given(plain, stolen) == stolen


def test_unkept_arguments_agree_by_index_and_stay_in_their_unit():
    a = Summary(arguments=((5, Effect.SINK_FLOATING),), unkept=(1, 2, 7), source=Source.INFERRED)
    b = Summary(arguments=((5, Effect.SINK_FLOATING),), unkept=(2, 7), source=Source.INFERRED)
    assert agreed(a, b).unkept == (2, 7) and agreed(b, a).unkept == (2, 7)
    assert a.unkept_positions(8) == frozenset({1, 2, 7}) and a.unkept_positions(3) == frozenset({1, 2})
    assert exported(a) == replace(a, unkept=()) and exported(a).says_something
    only = Summary(unkept=(0,), source=Source.INFERRED)
    assert only.says_something and not exported(only).says_something  # nothing else to hand on


def test_a_result_owned_only_without_a_buffer_resolves_at_the_call():
    realpath = TH.summary("realpath")
    assert realpath.owned_if_null == 1 and realpath.source is Source.CONFIGURED
    owned = realpath.at_call(2, lambda i: i == 1)  # realpath (p, NULL)
    assert owned.returns is Returns.OWNED and owned.role == "acquire" and owned.owned_if_null is None
    given = realpath.at_call(2, lambda i: False)  # realpath (p, buf): buf itself comes back
    assert given.returns is Returns.ARGUMENT and given.returned == 1 and given.role is None
    assert realpath.at_call(1, lambda i: True).returns is Returns.BORROWED  # too few arguments
    assert TH.summary("getcwd").owned_if_null == 0 and TH.summary("canonicalize_file_name").role == "acquire"
    assert TH.summary("THFloatTensor_newClone").at_call(1, lambda i: True) == TH.summary("THFloatTensor_newClone")


def test_a_result_owned_only_where_a_flag_is_set_resolves_at_the_call():
    # libsoup's `parse_value (&p, copy)` (analysis.flagresults): FALSE owns nothing.
    record = parse_record({"returns": "owned", "owned-if-flag": 1}, "t")
    assert record.owned_if_flag == 1 and record_table(record)["owned-if-flag"] == 1
    skipped = record.at_call(2, lambda i: i == 1)  # parse_value (&p, FALSE)
    assert skipped.returns is Returns.UNKNOWN and skipped.owned_if_flag is None
    copied = record.at_call(2, lambda i: False)  # TRUE, or a variable
    assert copied.returns is Returns.OWNED and copied.owned_if_flag is None


@pytest.mark.parametrize("table, message", [
    ({"retruns": "owned"}, "did you mean 'returns'"),
    ({"owned-if-flag": 1}, 'needs returns = "owned"'),
    ({"returns": "mine"}, "expected one of"),
    ({"arguments": {"x": "sink"}}, "a position is an argument index"),
    ({"arguments": {"0": "kept"}}, "expected one of"),
    ({"arguments": [0]}, "position = effect"),
    ({"may-fail": 1}, "expected true or false"),
    ({"error-condition": {"index": 0}}, "raises-when"),
    ("owned", "expected a table"),
    ({"arguments": {"1": {"effect": "release", "wen": "zero"}}}, "did you mean 'when'"),
    ({"arguments": {"1": {"effect": "release", "when": "zeros"}}}, "did you mean 'zero'"),
    ({"arguments": {"1": {"effect": "release"}}}, "when = "),
    ({"arguments": {"1": {"effect": "retain", "when": "zero"}}}, "a conditional effect is one of"),
    ({"arguments": {"1": "consume-on-sucess"}}, "did you mean 'consume-on-success'"),
    ({"arguments": {"every": {"effect": "release", "when": "zero"}}}, "position is an argument index"),
    ({"owned-if-null": 1}, 'needs returns = "owned"'),
    ({"returns": "owned", "owned-if-null": "first"}, "expected an argument index"),
    ({"unless-singleton": "_Py_NoneStruct"}, 'needs returns = "owned"'),
    ({"returns": "owned", "unless-singleton": ""}, "expected a non-empty string"),
    ({"members": {"chunk": "mine"}}, "expected one of"),
    ({"members": ["chunk"]}, "field = "),
    ({"unkept": 1}, "a list of argument indices"),
    ({"unkept": [True]}, "a list of argument indices"),
    ({"fills-kept": [2]}, 'without a conditional "acquire-out"'),
    ({"arguments": {"2": "acquire-out"}, "fills-kept": [2]}, 'without a conditional "acquire-out"'),
    ({"maybe-given": [3]}, 'without a conditional "release" or "consume"'),
    ({"arguments": {"0": "acquire-out"}, "fills-with": [[1, 0]]}, 'without a plain "acquire-out"'),
    ({"arguments": {"0": "acquire-out", "1": "acquire-out"}, "fills-with": [1, 0]}, "leader index"),
    ({"arguments": {"3": {"effect": "keep", "when": "zero"}}, "maybe-given": [3]}, 'without a conditional "release"'),
])
def test_bad_records_say_which_key(table, message):
    with pytest.raises(RecordError, match=message):
        parse_record(table, "f")


def test_bad_summaries_in_configuration_are_configuration_errors():
    with pytest.raises(ConfigError, match="key 'summaries': f: unknown key 'x'"):
        parse({"summaries": {"f": {"x": 1}}}, "t", "/p")
    with pytest.raises(ConfigError, match="not a function name"):
        parse({"summaries": {"^f$": {}}}, "t", "/p")


def test_the_cache_key_follows_every_field_of_the_conventions():
    # A field the fingerprint forgot would let a changed configuration reuse stale results.
    changed = {"errors": "unwind", "may_raise_summaries": True, "summaries": {"f": DEFAULT}}
    for f in fields(Conventions):
        if f.metadata.get("derived"):
            continue
        value = getattr(TH, f.name)
        other = changed.get(f.name)
        if other is None:
            other = {"x": [0]} if isinstance(value, dict) else ["^x$"]
        assert replace(TH, **{f.name: other}).fingerprint() != TH.fingerprint(), f.name


def test_says_something_is_any_field_but_source_and_mark():
    """`says_something` compares field by field: a record differing from DEFAULT in any field
    but `source` and the cycle's marks (`assumed`, `leans`) says something, one differing only
    there does not (`leans` only qualifies give-ups `arguments` already says)."""
    assert not DEFAULT.says_something
    assert not replace(DEFAULT, source=Source.INFERRED, assumed=True).says_something
    samples = {"returns": Returns.OWNED, "arguments": ((0, Effect.RELEASE),), "returned": 0,
               "ends": Ends.EXIT, "may_fail": True, "may_raise": True, "pure": True, "family": "f",
               "owned_if_null": 1, "unless_singleton": "Py_None", "floating": True}
    for f in fields(Summary):
        if f.name in ("source", "assumed", "leans"):
            continue
        value = samples.get(f.name, ("x",) if f.type == "tuple" else None)
        if value is None or value == getattr(DEFAULT, f.name):
            continue
        s = replace(DEFAULT, **{f.name: value}, source=Source.INFERRED)
        assert s.says_something, f.name
        assert s.says_something == (replace(s, source=Source.DEFAULT, assumed=False) != DEFAULT)
    assert not replace(DEFAULT, source=Source.INFERRED, leans=((0, ("f",)),)).says_something


def test_variadic_arguments_take_every_argument_from_an_index():
    # glib27: libdex's `dex_future_first (first, ...)` takes every future it is given.
    table = {"returns": "owned", "arguments": {"0": "consume"}, "variadic": {"from": 1, "effect": "consume"}}
    r = parse_record(table, "t")
    assert r.variadic == (1, Effect.CONSUME) and record_table(r) == table
    assert r.effects(4) == {0: Effect.CONSUME, 1: Effect.CONSUME, 2: Effect.CONSUME, 3: Effect.CONSUME}
    assert r.effects(1) == {0: Effect.CONSUME} and r.positions(Effect.CONSUME, 3) == frozenset({0, 1, 2})
    assert r.digest() != parse_record({"returns": "owned", "arguments": {"0": "consume"}}, "t").digest()
    # A named position's own effect stays its own.
    mixed = parse_record({"arguments": {"1": "borrow"}, "variadic": {"from": 1, "effect": "sink"}}, "t")
    assert mixed.effects(3) == {1: Effect.BORROW, 2: Effect.SINK}
    assert mixed.positions(Effect.SINK, 3) == frozenset({2}) and mixed.positions(Effect.BORROW, 3) == frozenset({1})
    assert agreed(r, r).variadic == r.variadic and agreed(r, mixed).variadic == ()
    for bad in ({"from": 1}, {"from": -1, "effect": "consume"}, {"from": 1, "effect": "consume-on-success"},
                {"from": 1, "effect": "take"}):
        with pytest.raises(RecordError, match="variadic"):
            parse_record({"variadic": bad}, "t")


def test_data_given_on_some_paths_differs_and_is_agreed_only_where_both_say_it():
    some = Summary(given_some=(0,), source=Source.INFERRED)
    assert some.says_something and some.digest() != DEFAULT.digest()
    assert agreed(some, some) == some and agreed(some, Summary(source=Source.INFERRED)).given_some == ()


def test_a_flag_set_beside_a_null_result_differs_and_is_agreed_only_where_both_say_it():
    flagged = Summary(returns=Returns.OWNED, null_when_flags=((0, "route_state"),), source=Source.INFERRED)
    plain = Summary(returns=Returns.OWNED, source=Source.INFERRED)
    assert flagged.digest() != plain.digest()
    assert agreed(flagged, flagged) == flagged and agreed(flagged, plain).null_when_flags == ()
    assert parse_record({"null-when-flags": [[1, "err"], [0, "bad"]]}, "t").null_when_flags == ((0, "bad"), (1, "err"))
    for bad in ([[0]], [["0", "f"]], [[0, "not a field"]], [[-1, "f"]]):
        with pytest.raises(RecordError, match="null-when-flags"):
            parse_record({"null-when-flags": bad}, "t")


def test_a_held_result_differs_and_is_agreed_only_where_both_say_it():
    """`result_held` (owned, and a lasting holder keeps the object too) is its own record: two
    definitions agree on it only where both say it of the same result."""
    held = Summary(returns=Returns.OWNED, result_held=True, source=Source.INFERRED)
    plain = Summary(returns=Returns.OWNED, source=Source.INFERRED)
    assert held.digest() != plain.digest()
    assert agreed(held, held) == held and not agreed(held, plain).result_held
    assert not agreed(held, Summary(returns=Returns.BORROWED, result_held=True, source=Source.INFERRED)).result_held
