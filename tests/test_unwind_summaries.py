"""errors="unwind": calls that may raise are exits for the caller (issue 14).

Functions of the unit are summarised from their bodies (fixtures/unwind_raises.c); callees outside
the unit are known only through the `may-raise` list, tested here with and without it.
"""

from __future__ import annotations

from pathlib import Path

from refcheck.conventions import Conventions
from cunit import CUnit, rule_lines

INCLUDE = Path(__file__).resolve().parent.parent / "fixtures" / "include"

SOURCE = """\
#include "TH.h"
void ext_check(THFloatTensor *t);
void caller(THFloatTensor *x)
{
  THFloatTensor *t = THFloatTensor_newContiguous(x);
  ext_check(t);
  THFloatTensor_free(t);
}
"""


def _findings(tmp_path: Path, conv: Conventions) -> list[tuple[str, int]]:
    result = CUnit(tmp_path).check_text(SOURCE, "unit.c", conv, [f"-I{INCLUDE}"])
    assert not [e for e in result.errors if e.severity == "error"], result.errors
    return rule_lines(result)


def test_listed_callee_outside_the_unit_raises(tmp_path):
    assert _findings(tmp_path, Conventions(errors="unwind", may_raise=[r"^ext_check$"])) == [("RC001", 6)]


def test_unlisted_callee_outside_the_unit_returns(tmp_path):
    assert _findings(tmp_path, Conventions(errors="unwind")) == []


def test_summaries_are_off_unless_asked_for(tmp_path):
    assert not Conventions().may_raise_summaries


def test_configuration_key(tmp_path):
    from refcheck.workspace.config import ConfigError, parse
    assert parse({"may-raise-summaries": True}, "t", str(tmp_path)).conventions.may_raise_summaries
    try:
        parse({"may-raise-summaries": "yes"}, "t", str(tmp_path))
    except ConfigError as e:
        assert "expected true or false" in str(e)
    else:
        raise AssertionError("a string was accepted")


def test_abort_mode_ignores_the_list(tmp_path):
    assert _findings(tmp_path, Conventions(errors="abort", may_raise=[r"^ext_check$"])) == []
