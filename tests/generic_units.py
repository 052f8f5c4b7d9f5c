"""The generic units the instance-key tests write (tests/test_instances.py): one body included
once per type as TH does, its instance keys, and the checks every case makes of them."""

from __future__ import annotations

from cunit import CUnit, check
from refcheck.conventions import Conventions
from refcheck.frontend.builder import build_cfg_if_relevant
from refcheck.frontend.clangutil import location
from refcheck.reuse.instances import Instances
from refcheck.reuse.renaming import class_key

CONV = Conventions(acquire=[r"_new$"], release=[r"_free$"], pure=[r"_isContiguous$"])


HEADER = """
typedef struct F { int n; } F; typedef struct D { int n; } D;
F *F_new(void); void F_free(F *); int F_isContiguous(F *); void F_fill(F *, float);
D *D_new(void); void D_free(D *); int D_isContiguous(D *); void D_fill(D *, double);
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define TN(x) CAT(T, x)
"""

INSTANTIATE = """
#define T F
#define real float
#include "gen.h"
#undef T
#undef real
#define T D
#define real double
#include "gen.h"
#undef T
#undef real
"""

BODY = """
int TN(sum)(T *x, real v, int k) {
  T *t = TN(new)();
  real w = v * 2;
  TN(fill)(t, w);
  if (TN(isContiguous)(x) && k > 0) { TN(free)(t); return 1; }
  if (TN(isContiguous)(x)) return 2;
  TN(free)(t);
  return 0;
}
"""


def typed(f: str, d: str) -> str:
    """INSTANTIATE with `real` of the two types f and d instead of float and double."""
    return INSTANTIATE.replace("#define real float", f"#define real {f}").replace(
        "#define real double", f"#define real {d}")


def keyed_unit(tmp_path, body: str, header: str = HEADER, instantiate: str = INSTANTIATE, conv=CONV):
    """Writes the unit (the body as gen.h); its parse, each definition's instance key, its path."""
    unit = CUnit(tmp_path)
    unit.write("gen.h", body)
    path = unit.write("g.c", header + instantiate)
    parsed = unit.parse("g.c", clean=True)
    instances = Instances(parsed, conv)
    keys = {fn.spelling: instances.key(fn, location(fn)) for fn in parsed.functions}
    return parsed, keys, path


def apart(tmp_path, body: str, a: str, b: str, **unit):
    """Writes the unit; definitions a and b must get different keys."""
    parsed, keys, path = keyed_unit(tmp_path, body, **unit)
    assert keys[a] is not None and keys[b] is not None and keys[a][0] != keys[b][0]
    return parsed, path


def same_graph(parsed, a: str, b: str, conv=CONV) -> bool:
    """Whether definitions a and b build graphs of one class key."""
    fns = {fn.spelling: fn for fn in parsed.functions}
    ka = class_key(build_cfg_if_relevant(fns[a], conv), conv)[0]
    kb = class_key(build_cfg_if_relevant(fns[b], conv), conv)[0]
    return ka == kb


def engine_agrees(path, conv=CONV) -> None:
    """The engine finds the same with sharing on (instance keys, then class keys) as off."""
    for errors in ("abort", "unwind"):
        from dataclasses import replace

        c = replace(conv, errors=errors)
        fast = check(path, c, share=True)
        slow = check(path, c, share=False)
        assert fast.findings == slow.findings and fast.errors == slow.errors, errors
