"""The summary record's tables and the precedence of its sources (issue 26)."""

from __future__ import annotations

import pytest

from refcheck.workspace.config import ConfigError, parse
from refcheck.conventions import Conventions
from refcheck.conventions.summary import Effect, Returns, Source, Summary, SummaryTable, Tracked
from refcheck.conventions.records import RecordError, parse_record, record_table


def test_parse_record_round_trips_and_explains_mistakes():
    s = parse_record({"returns": "owned", "returned": -1, "arguments": {"1": "sink", "every": "release"}}, "x")
    assert s.returns is Returns.OWNED and s.returned == -1 and s.source is Source.CONFIGURED
    assert s.effects(3) == {1: Effect.SINK, Tracked.EVERY: Effect.RELEASE}
    assert parse_record(record_table(s), "x") == s
    with pytest.raises(RecordError, match="did you mean 'returns'"):
        parse_record({"return": "owned"}, "x")
    with pytest.raises(RecordError, match="did you mean 'sink'"):
        parse_record({"arguments": {"0": "snk"}}, "x")


def test_precedence_configured_then_names_then_inferred():
    inferred = SummaryTable({"helper": Summary(returns=Returns.OWNED, source=Source.INFERRED),
                             "THFloatTensor_free": Summary(source=Source.INFERRED)})
    conv = Conventions(inferred=inferred)
    assert conv.summary("helper").source is Source.INFERRED and conv.classify("helper") == "acquire"
    assert conv.summary("THFloatTensor_free").source is Source.CONVENTIONS  # the name wins
    assert conv.summary("other").source is Source.DEFAULT
    # Where the names say nothing; a releaser by name asks its body only where the preset refines
    # the patterns (glib's: refine_patterns), not in TH, whose names say all.
    assert inferred.asked == {"helper", "other"}
    Conventions(inferred=inferred, refine_patterns=True).summary("THFloatTensor_free")
    assert inferred.asked == {"helper", "other", "THFloatTensor_free"}
    cfg = parse({"summaries": {"helper": {"returns": "borrowed"}}}, "t", ".")
    configured = Conventions(summaries=cfg.conventions.summaries, inferred=inferred)
    assert configured.summary("helper").source is Source.CONFIGURED
    assert configured.classify("helper") is None


def test_bad_summaries_table_is_a_config_error():
    with pytest.raises(ConfigError, match="summaries': f: key 'ends'"):
        parse({"summaries": {"f": {"ends": "never"}}}, "t", ".")


def test_a_releaser_by_name_releases_the_parameters_its_body_releases():
    # verify_and_free (sources, n, expected_names, k) frees `sources` only: its record says so.
    body = Summary(arguments=((0, Effect.RELEASE),), source=Source.INFERRED)
    conv = Conventions(inferred=SummaryTable({"verify_and_free": body}), refine_patterns=True)
    s = conv.summary("verify_and_free")
    assert s.effects(4) == {0: Effect.RELEASE} and conv.classify("verify_and_free") is None
    # A body naming no parameter (it frees through locals): the name's record, every argument.
    conv = Conventions(inferred=SummaryTable({"verify_and_free": Summary(source=Source.INFERRED)}),
                       refine_patterns=True)
    assert conv.classify("verify_and_free") == "release"
    # Without refine_patterns (TH, CPython) the name says all: every argument.
    assert Conventions(inferred=SummaryTable({"verify_and_free": body})).summary("verify_and_free") \
        .effect_of(Tracked.EVERY) is Effect.RELEASE


def test_a_record_refines_an_answer_only_where_it_changes_it():
    """Phase 2 checks a unit again for a record new to the run's table only where it changes
    what the unit's calls do (runner._agrees)."""
    glib = Conventions(refine_patterns=True)
    plain = Summary(returns=Returns.OWNED, source=Source.INFERRED)  # THFloatTensor_new's body
    keeps = Summary(returns=Returns.OWNED, arguments=((1, Effect.KEEP),), source=Source.INFERRED)
    assert not glib.refines("thing_new", plain)  # the pattern said it: owned, arguments read
    assert glib.refines("thing_new", keeps)  # dconf_engine_new keeping its user data
    assert not Conventions().refines("thing_new", keeps)  # TH: the name says all
    assert Conventions().refines("helper", plain)  # no pattern: the body is the answer


def test_argument_when_round_trips_and_needs_an_owned_result():
    # cvxopt's create_indexlist (dim, A): A itself where Matrix_Check (A), a new matrix elsewhere.
    key = "call:PyObject_TypeCheck( 3 fn:PyObject_TypeCheck @ &global:matrix_tp"
    s = Summary(returns=Returns.OWNED, argument_when=(1, key), source=Source.INFERRED)
    assert parse_record(record_table(s), "x", Source.INFERRED) == s
    with pytest.raises(RecordError, match="needs returns"):
        parse_record({"argument-when": [1, key]}, "x")
    with pytest.raises(RecordError, match="argument-when"):
        parse_record({"returns": "owned", "argument-when": [1, "call:f( 2 fn:f x"]}, "x")
