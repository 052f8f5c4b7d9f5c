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
    assert inferred.asked == {"helper", "other"}  # only where the names say nothing
    cfg = parse({"summaries": {"helper": {"returns": "borrowed"}}}, "t", ".")
    configured = Conventions(summaries=cfg.conventions.summaries, inferred=inferred)
    assert configured.summary("helper").source is Source.CONFIGURED
    assert configured.classify("helper") is None


def test_bad_summaries_table_is_a_config_error():
    with pytest.raises(ConfigError, match="summaries': f: key 'ends'"):
        parse({"summaries": {"f": {"ends": "never"}}}, "t", ".")
