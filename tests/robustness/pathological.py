"""Generators of real C that stresses the analyzer's shape limits: each returns a whole unit.

Every unit starts with the same small TH-like prelude and holds one pathological function that
acquires a tensor and leaks it on some path, so that a finding (or a "not fully checked" error)
is the only honest outcome; a silent pass would mean the function was skipped.
"""

from __future__ import annotations

import random

PRELUDE = """\
typedef struct THFloatTensor THFloatTensor;
THFloatTensor *THFloatTensor_new(void);
void THFloatTensor_free(THFloatTensor *t);
void THFloatTensor_fill(THFloatTensor *t, float v);
"""

# A clean-or-leaky reference function: the "good file" whose finding must survive any bad neighbor.
GOOD = PRELUDE + """\
void leaky(int c)
{
  THFloatTensor *t = THFloatTensor_new();
  THFloatTensor_fill(t, 0);
  if (c)
    THFloatTensor_free(t);
}
"""
GOOD_FINDING = "good.c:11:1: error: 't' (acquired by THFloatTensor_new at line 7)"


def flat_branches(n: int) -> str:
    """n sequential `if (c) x++;`: 2**n paths, n joins; a leak after the last one."""
    body = "  if (c) x++;\n" * n
    return PRELUDE + (
        "int branches(int c)\n{\n  int x = 0;\n"
        "  THFloatTensor *t = THFloatTensor_new();\n"
        f"{body}"
        "  return x;\n}\n")


def deep_nesting(n: int) -> str:
    """n nested `if` blocks with the acquisition at the bottom, leaked there."""
    opens = "".join(f"if (c > {i}) {{\n" for i in range(n))
    closes = "}\n" * n
    return PRELUDE + (
        "void nested(int c)\n{\n"
        f"{opens}THFloatTensor *t = THFloatTensor_new();\nTHFloatTensor_fill(t, 0);\n{closes}"
        "}\n")


def unbraced_nesting(n: int) -> str:
    """n `if`s nested without braces (no bracket-depth limit applies): the CFG builder's depth."""
    ifs = "".join(f"  if (c > {i})\n" for i in range(n))
    return PRELUDE + (
        "void unbraced(int c)\n{\n  THFloatTensor *t = THFloatTensor_new();\n"
        f"{ifs}    THFloatTensor_free(t);\n}}\n")


def else_if_chain(n: int) -> str:
    """A dispatcher as generators write it: n+1 `else if (c == k)` arms, none for other values."""
    arms = "".join(f"  else if (c == {i}) THFloatTensor_free(t);\n" for i in range(1, n + 1))
    return PRELUDE + (
        "void chain(int c)\n{\n  THFloatTensor *t = THFloatTensor_new();\n"
        f"  if (c == 0) THFloatTensor_free(t);\n{arms}}}\n")


def huge_switch(n: int) -> str:
    """A switch of n cases, each freeing the tensor, except the default, which leaks."""
    cases = "".join(f"  case {i}: THFloatTensor_free(t); break;\n" for i in range(n))
    return PRELUDE + (
        "void dispatch(int c)\n{\n  THFloatTensor *t = THFloatTensor_new();\n"
        f"  switch (c) {{\n{cases}  default: break;\n  }}\n}}\n")


def goto_spaghetti(labels: int, seed: int = 8) -> str:
    """labels labels, each jumping forward or backward to a random one on a condition; leaks."""
    rng = random.Random(seed)
    lines = []
    for i in range(labels):
        target = rng.randrange(labels)
        lines.append(f"L{i}:\n  x += {i};\n  if (x % {i + 2} == c) goto L{target};\n")
    return PRELUDE + (
        "int spaghetti(int c)\n{\n  int x = 0;\n  THFloatTensor *t = THFloatTensor_new();\n"
        + "".join(lines) + "  return x;\n}\n")


def irreducible_loop() -> str:
    """A cycle A <-> B entered at both A and B (via goto): no single loop header."""
    return PRELUDE + """\
int irreducible(int c, int n)
{
  THFloatTensor *t = THFloatTensor_new();
  if (c)
    goto B;
A:
  n--;
  if (n <= 0)
    goto out;
B:
  n -= 2;
  if (n > 0)
    goto A;
out:
  if (n == -1)
    THFloatTensor_free(t);
  return n;
}
"""
