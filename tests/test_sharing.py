"""Cost proportional to what matters, without changing a byte of output: bodies that cannot
produce a finding are skipped, and graphs identical after renaming are analysed once.

The comparison runs every fixture unit both ways (sharing and skipping on, and off), in both
errors modes, and requires identical findings and errors, messages and paths included.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from fixture_expect import find_units, unit_sources
from refcheck.reuse import plan
from refcheck.conventions import Conventions
from cunit import UNTIMED, CUnit, check, fixture_args
from refcheck.reuse.renaming import class_key, renamer
from refcheck.conventions.presets import PRESETS

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
INCLUDE = FIXTURES / "include"


def _check(unit: Path, errors: str, share: bool):
    options = unit_sources(unit, FIXTURES, [INCLUDE])[0].options
    conventions = replace(PRESETS[options.preset].conventions, errors=errors)
    result = check(unit, conventions, fixture_args(unit), root=REPO, share=share, function_seconds=UNTIMED)
    # The output a run under the preset gives: without the rules the preset leaves off, as the
    # fixture expectations read it (test_fixtures). Skipping a body reads only what the preset
    # reports: under cpython a member that moves a field's reference out (`t = p; p = 0; return
    # t;`, an RAII holder's Detach) has no role call and is skipped, where analysed it gives only
    # RC004, which that preset never reports.
    ignored = set(PRESETS[options.preset].ignore)
    return replace(result, findings=[f for f in result.findings if f.rule not in ignored]) if ignored else result


@pytest.mark.parametrize("errors", ["abort", "unwind"])
def test_sharing_and_skipping_change_nothing_on_the_fixtures(errors, monkeypatch):
    # Instance keys too (reuse/instances.py), which the engine makes only for bigger units.
    monkeypatch.setattr(plan, "INSTANCE_KEYS_FROM", 1)
    counts = {"shared": 0, "skipped": 0}
    problems = []
    for unit in find_units(FIXTURES):
        fast = _check(unit, errors, True)
        slow = _check(unit, errors, False)
        if fast.findings != slow.findings or fast.errors != slow.errors or fast.functions != slow.functions:
            problems.append(str(unit.relative_to(FIXTURES)))
        for k in counts:
            counts[k] += fast.counts.get(k, 0)
    assert not problems, f"sharing changed the results of {problems}"
    # Not vacuous: the fixtures have generic instantiations and bodies with nothing to find.
    assert counts["shared"] >= 5 and counts["skipped"] >= 3, counts


# TH's shape: one generic body included once per type, names pasted by a macro.
GENERIC_BODY = """
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define TN(x) CAT(T, x)
int TN(sum)(T *x, int k) {
  T *t = TN(new)();
  if (TN(isContiguous)(x) && k > 0) { TN(free)(t); return 1; }
  if (TN(isContiguous)(x)) return 2;
  TN(free)(t);
  return 0;
}
"""
GENERIC = """
typedef struct F { int n; } F; typedef struct D { int n; } D;
F *F_new(void); void F_free(F *); int F_isContiguous(F *);
D *D_new(void); void D_free(D *); int D_isContiguous(D *);
#define T F
#include "gen.h"
#undef T
#define T D
#include "gen.h"
#undef T
int other(F *x) { F *t = F_new(); if (F_isContiguous(x)) return 1; F_free(t); return 0; }
int plain(int a) { return a + 1; }
"""


def _cfgs(tmp_path, src: str) -> dict:
    unit = CUnit(tmp_path)
    unit.write("g.c", src)
    unit.write("gen.h", GENERIC_BODY)
    conv = Conventions(acquire=[r"_new$"], release=[r"_free$"], pure=[r"_isContiguous$"])
    return unit.graphs("g.c", conv), conv


def test_instantiations_share_a_class_and_rename_token_for_token(tmp_path):
    cfgs, conv = _cfgs(tmp_path, GENERIC)
    kf, tf = class_key(cfgs["F_sum"], conv)
    kd, td = class_key(cfgs["D_sum"], conv)
    assert kf == kd
    rename = renamer(tf, td)
    assert rename("F_free(t) leaks F_new's result in F_sum") == "D_free(t) leaks D_new's result in D_sum"
    # Names that do not differ stay, and a token is renamed whole, never inside another.
    assert rename("t F_freeze x") == "t F_freeze x"


def test_different_source_or_shape_gets_its_own_class(tmp_path):
    cfgs, conv = _cfgs(tmp_path, GENERIC)
    key = class_key(cfgs["F_sum"], conv)[0]
    # Same shape but its own source lines: never shared (locations are kept literally).
    assert class_key(cfgs["other"], conv)[0] != key
    assert class_key(cfgs["plain"], conv)[0] != key


def test_the_conventions_verdict_on_each_name_is_part_of_the_key(tmp_path):
    cfgs, _ = _cfgs(tmp_path, GENERIC)
    # If only D's names were allocators, the two bodies would not be the same problem.
    conv = Conventions(acquire=[r"^D_new$"], release=[r"_free$"], pure=[r"_isContiguous$"])
    assert class_key(cfgs["F_sum"], conv)[0] != class_key(cfgs["D_sum"], conv)[0]


def _one_node_cfg(ops, kind="block", text="x = y;", name="f", param="p#1"):
    import networkx as nx

    from refcheck.ir.cfg import FunctionCFG, Node
    from refcheck.findings import Location

    loc = Location("g.c", 3, 1)
    g = nx.DiGraph()
    g.add_node(0, data=Node("entry", loc))
    g.add_node(1, data=Node(kind, loc, ops=list(ops), text=text))
    g.add_node(2, data=Node("exit", loc))
    g.add_edge(0, 1, branch=None, label="")
    g.add_edge(1, 2, branch=None, label="")
    return FunctionCFG(name, g, 0, 2, loc, [(param, True)], {param: "p"})


def test_only_names_are_renamed_never_structure():
    """The key is the graph's text with names numbered; what is not a name must be equal
    literally: a flag, an op's class, a node's kind, a number."""
    from refcheck import ir
    from refcheck.findings import Location

    conv = Conventions(acquire=[r"_new$"], release=[r"_free$"])
    at = Location("g.c", 4, 2)
    base = [ir.Release(at, ("p#1",), "F_free", consume=False), ir.Kill(at, "p#1")]
    key = class_key(_one_node_cfg(base), conv)[0]
    # The same graph with other names: shared.
    renamed = [ir.Release(at, ("p#2",), "F_free", consume=False), ir.Kill(at, "p#2")]
    assert class_key(_one_node_cfg(renamed, param="p#2"), conv)[0] == key
    # Each of these differs in what it means, not in a name: never shared.
    for other in ([ir.Release(at, ("p#1",), "F_free", consume=True), ir.Kill(at, "p#1")],  # a flag
                  [ir.Release(at, ("p#1",), "F_free", consume=False), ir.Touch(at, "p#1")],  # an op
                  [ir.Release(at, ("p#1",), "F_free", consume=False), ir.Const(at, "p#1", 1)],
                  [ir.Release(Location("g.c", 5, 2), ("p#1",), "F_free"), ir.Kill(at, "p#1")]):
        assert class_key(_one_node_cfg(other), conv)[0] != key, other
    assert class_key(_one_node_cfg(base, kind="error"), conv)[0] != key
    assert class_key(_one_node_cfg([ir.Const(at, "p#1", 1)]), conv)[0] != \
        class_key(_one_node_cfg([ir.Const(at, "p#1", 2)]), conv)[0]


def test_a_string_holding_the_keys_delimiters_is_never_shared():
    from refcheck import ir
    from refcheck.findings import Location

    conv = Conventions()
    at = Location("g.c", 4, 2)
    a = class_key(_one_node_cfg([ir.Kill(at, "p#1")], text="a\x03=1\x02b"), conv)[0]
    b = class_key(_one_node_cfg([ir.Kill(at, "p#1")], text="a\x03=1\x02b"), conv)[0]
    assert a != b  # each gets a class of its own


def test_a_place_with_one_instance_key_takes_no_class_key(tmp_path, monkeypatch):
    # Class keys hold the place, so they can only pair graphs built at one place; where every
    # definition there shares one instance key, one graph is built and no class key is made.
    from generic_units import BODY, INSTANTIATE, keyed_unit

    monkeypatch.setattr(plan, "INSTANCE_KEYS_FROM", 1)
    made = []
    # The reuse plan asks class_key for the graphs that could share.
    monkeypatch.setattr(plan, "class_key", lambda cfg, conv: made.append(cfg.name) or class_key(cfg, conv))
    (tmp_path / "one").mkdir()
    _, keys, path = keyed_unit(tmp_path / "one", BODY)
    assert keys["F_sum"][0] == keys["D_sum"][0]
    one = check(path)
    assert made == [] and one.counts["shared"] == 1
    # Two keys at one place (a cast keeps its type): both are built, and class keys pair them.
    body = "int TN(c)(T *x) { T *t = TN(new)(); int k = (real)3; if (k == 3) return 0; TN(free)(t); return 1; }\n"
    inst = INSTANTIATE.replace("#define real float", "#define real int")
    (tmp_path / "two").mkdir()
    _, keys, path = keyed_unit(tmp_path / "two", body, instantiate=inst)
    assert keys["F_c"][0] != keys["D_c"][0]
    check(path)
    assert made == ["F_c", "D_c"]


def test_a_verdict_follows_the_summary_the_unit_learns_for_the_name():
    """The unit's inferred summaries fill while it is checked (a helper defined later, another
    unit's exports): a verdict taken before the helper's summary was learnt must not stand after
    it, or two instantiations calling differently-summarised helpers would share one result."""
    from refcheck.conventions.summary import Returns, Source, Summary, SummaryTable
    from refcheck.reuse.renaming import verdict

    table = SummaryTable()
    conv = replace(Conventions(), inferred=table)
    which = conv.fingerprint()
    before = verdict(conv, which, "cloneColumnMajor")
    assert verdict(conv, which, "cloneColumnMajor") == before
    table.known["cloneColumnMajor"] = Summary(returns=Returns.OWNED, source=Source.INFERRED)
    after = verdict(conv, which, "cloneColumnMajor")
    assert after != before
    assert verdict(conv, which, "cloneColumnMajor#12") == after


def test_a_shared_results_summary_names_its_own_family():
    """The family an inferred summary gives the result (conventions.family reads it for callers'
    RC011) spells a type: the Float twin's `THFloatTensor` is the Double twin's `THDoubleTensor`.
    Kept unrenamed, the Double helper's callers released a 'THFloatTensor' with THDoubleTensor_free
    (THNN at -j2, where the Float instance was the representative)."""
    from refcheck.analysis.explore import Result
    from refcheck.conventions.summary import Returns, Source, Summary
    from refcheck.reuse.renaming import renamed_result

    s = Summary(returns=Returns.OWNED, family="THFloatTensor", source=Source.INFERRED)
    got = renamed_result(Result([], 0, "", s), renamer(["THFloatTensor", "f"], ["THDoubleTensor", "f"]))
    assert got.summary.family == "THDoubleTensor"
    assert got.summary.returns is Returns.OWNED
