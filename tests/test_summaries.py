"""The summary record's tables and the precedence of its sources (issue 26)."""

from __future__ import annotations

import pytest

from refcheck.workspace.config import ConfigError, parse
from refcheck.conventions import Conventions
from refcheck.conventions.summary import (Effect, Returns, Source, Summary, RecordError, SummaryTable, Tracked, parse_record,
                              record_table)


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
    # Where the names say nothing, and for a releaser of every argument by name (its body may
    # name the parameters it releases; this one names none, so the name stands).
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
    conv = Conventions(inferred=SummaryTable({"verify_and_free": body}))
    s = conv.summary("verify_and_free")
    assert s.effects(4) == {0: Effect.RELEASE} and conv.classify("verify_and_free") is None
    # A body naming no parameter (it frees through locals): the name's record, every argument.
    conv = Conventions(inferred=SummaryTable({"verify_and_free": Summary(source=Source.INFERRED)}))
    assert conv.classify("verify_and_free") == "release"
