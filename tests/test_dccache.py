"""Compiled dataclass methods kept between runs (support/dccache.py): the classes made from the table
are the classes `@dataclass` makes, and the table is written only where bytecode may be."""

from __future__ import annotations

import dataclasses
import sys

import pytest

from refcheck.support import dccache


@pytest.fixture
def table(tmp_path, monkeypatch):
    path = tmp_path / "dataclass-code.marshal"
    monkeypatch.setattr(dccache, "_path", lambda: str(path))
    monkeypatch.setattr(dccache, "_table", {})
    monkeypatch.setattr(dccache, "_new", 0)
    monkeypatch.setattr(dataclasses, "exec", dccache._exec, raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return path


def _make():
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        tags: "list[str]" = dataclasses.field(default_factory=list)

    return Point


def _described(cls) -> tuple:
    p = cls(1, ["a"])
    code = cls.__init__.__code__
    return (cls.__init__.__annotations__, code.co_flags, code.co_varnames, repr(p), p == cls(1, ["a"]),
            p != cls(2), cls.__hash__ is not None)


def test_a_class_from_the_table_is_the_class_dataclass_makes(table, monkeypatch):
    built = _make()
    assert dccache._new > 0
    new = dccache._new
    again = _make()  # every method's text is in the table now
    assert dccache._new == new
    monkeypatch.delattr(dataclasses, "exec")
    plain = _make()
    assert _described(built) == _described(again) == _described(plain)
    with pytest.raises(dataclasses.FrozenInstanceError):
        again(1).x = 2


def test_the_table_is_saved_and_read_back(table, monkeypatch):
    _make()
    dccache.save()
    assert table.exists() and dccache._new == 0
    texts = set(dccache._table)
    assert set(dccache._load()) == texts
    monkeypatch.setattr(dccache, "_table", dccache._load())
    _make()
    assert dccache._new == 0  # nothing compiled: every text came from the file


def test_nothing_is_written_where_bytecode_is_not(table, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    _make()
    dccache.save()
    assert not table.exists()


def test_a_table_another_python_wrote_is_not_read(table):
    table.write_bytes(b"refcheck-dataclass-code\n" + b"\0\0\0\0" + b"garbage")
    assert dccache._load() == {}
    table.write_bytes(b"not ours")
    assert dccache._load() == {}
