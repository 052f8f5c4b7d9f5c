"""reuse/converted.py read on token lists: which locals' declared types an instance key keeps
because a constant of the graph build is converted to them. The instance keys' own tests
(test_instances.py) show on built graphs why each kept type is needed."""

from __future__ import annotations

import pytest

from refcheck.reuse.converted import Reader
from refcheck.reuse.instances import _ARITHMETIC, _QUALIFIERS, _TOKEN
from refcheck.reuse.unevaluated import KEYWORDS

NAMES = {"f": 1, "SMALL": 1, "NEGATIVE": 1, "g_const": 1}
ENUMS = {"SMALL": 3, "NEGATIVE": -2}


def _kept(source: str) -> list[str]:
    reader = Reader(NAMES, KEYWORDS, _ARITHMETIC, lambda t: t in _ARITHMETIC or t in _QUALIFIERS or t == "void",
                    ENUMS.get)
    tokens = _TOKEN.findall(source)
    return [" ".join(tokens[i:j]) + f"@{tokens[j]}" for i, j in reader.kept_types(tokens)]


@pytest.mark.parametrize("source, kept", [
    # Received: 0 to 127 is held by every erased type, nothing else is.
    ("void h(void) { float k = 127; }", []),
    ("void h(void) { float k = 128; }", ["float@k"]),
    ("void h(void) { float k = -1; }", ["float@k"]),
    ("void h(void) { float k = 0x80; }", ["float@k"]),
    ("void h(void) { float k = 1u; }", ["float@k"]),  # a suffix: not a lone literal
    ("void h(void) { float k = SMALL; }", []),
    ("void h(void) { float k = NEGATIVE; }", ["float@k"]),
    ("void h(void) { float k; k = 300; }", ["float@k"]),
    ("void h(void) { float k; (k) = 300; }", ["float@k"]),
    ("void h(void) { float k = 1.5; }", []),  # no integer constant
    # The other declarators of a statement, and pointers, which hold no integer constant.
    ("void h(void) { static long a = 0, b = 300; }", ["static long@a"]),
    ("void h(void) { long *a = 0, b = 300, *c = 0; }", ["long@*"]),
    ("void h(void) { unsigned char *p; p = 300; }", []),
    # What may fold, and what reads a variable first.
    ("void h(int n) { float k = n + 300; }", []),
    ("void h(int n) { float k = 1 ? 300 : n; }", ["float@k"]),
    ("void h(int n) { float k = n ? 300 : 2; }", []),
    ("void h(int n) { float k = (n, 300); }", ["float@k"]),
    ("void h(int n) { float k = f(n, 300); }", []),
    ("void h(int n) { float k = sizeof(n) * 1000; }", ["float@k"]),
    ("void h(int n) { float k = 0 && n; }", ["float@k"]),
    ("void h(int n) { float k = n && 0; }", []),
    ("void h(int n) { float k = __builtin_expect(n, 300); }", ["float@k"]),
    # Compared: a non-negative literal up to 2^24 is compared unchanged in every type.
    ("void h(float k) { if (k == 16777216) f(); }", []),
    ("void h(float k) { if (k == 16777217) f(); }", ["float@k"]),
    ("void h(float k) { if (-1 < k) f(); }", ["float@k"]),
    ("void h(float k) { if (k < 3u) f(); }", ["float@k"]),
    ("void h(float k) { if ((k) != NEGATIVE) f(); }", ["float@k"]),
    ("void h(float k) { if ((long)k == -1) f(); }", []),  # through a cast: never decided
    ("void h(float k, int n) { if ((long)k == n) f(); }", []),
    ("void h(float k, int n) { if (k == n + 1 && n) f(); }", []),
    ("void h(float k) { if (k == 2.5) f(); }", []),
    ("void h(struct s *p) { if (p->k == -1) f(); }", []),  # a field, not a local
    # Switched over, where a case label is one some type converts.
    ("void h(float k) { switch (k) { case 3: break; } }", []),
    ("void h(float k) { switch (k) { case -1: break; } }", ["float@k"]),
])
def test_kept_types(source, kept):
    assert _kept(source) == kept
