"""The small-buffer idiom's result (`frontend.ownbuffer`): an undescribed callee handed a local
array of the result's element type returns that array or its own block, not a borrowed pointer."""

from __future__ import annotations

from dataclasses import replace

import clang.cindex as ci

from refcheck.conventions.summary import DEFAULT, Source
from refcheck.frontend.binding import arguments
from refcheck.frontend.ownbuffer import buffer_or_own

UNIT = """
char *encode(char *buf, unsigned n);
char *name_of(int *scratch);
struct S { int x; } *make(char *buf);
static char kept[16];
void f(char *param) {
  char buffer[32];
  int scratch[4];
  encode(buffer, sizeof buffer);
  encode(param, 8);
  encode(kept, 16);
  name_of(scratch);
  make(buffer);
}
"""


def _calls(tmp_path):
    src = tmp_path / "u.c"
    src.write_text(UNIT)
    tu = ci.Index.create().parse(str(src))
    return [c for c in tu.cursor.walk_preorder()
            if c.kind == ci.CursorKind.CALL_EXPR and c.location.file and c.location.file.name == str(src)]


def test_only_a_local_array_of_the_results_element_type_makes_the_result_unknown(tmp_path):
    calls = _calls(tmp_path)
    got = [buffer_or_own(c, c.referenced, arguments(c), DEFAULT) for c in calls]
    # the local char buffer; a parameter; a static array; an int array for a char result; a struct result
    assert got == [True, False, False, False, False]


def test_a_record_or_a_pattern_keeps_its_word(tmp_path):
    c = _calls(tmp_path)[0]
    assert not buffer_or_own(c, c.referenced, arguments(c), replace(DEFAULT, source=Source.CONVENTIONS))
