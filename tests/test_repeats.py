"""A definition checked again with the records an earlier check of it saw takes that check's
outcome (`driver.repeats`) instead of a build and an analysis."""

from __future__ import annotations

from cunit import check

from refcheck.driver import repeats, unitcheck

# a and b call each other: the cycle rounds start both taking `t` over; b drops it where n <= 0,
# so the records fall back and the last round checks them with the records they had before.
CYCLE = """typedef struct T T;
T *T_new(void);
void T_free(T *t);
void a(T *t, int n);
void b(T *t, int n) { if (n > 0) a(t, n - 1); }
void a(T *t, int n) { if (n > 1) b(t, n - 1); else if (n == 0) T_free(t); }
void leaks(int n) { T *t = T_new(); a(t, n); }
void frees(int n) { T *t = T_new(); b(t, n); T_free(t); }
"""


def _count(tmp_path, monkeypatch, source: str, saw=None, repeat: bool = True):
    """The check of `source` and the definitions it built; `repeat=False`: no earlier check taken,
    `saw`: `Check.saw` replaced."""
    built = []
    real = unitcheck.UnitCheck.build_and_analyse

    def counted(self, index, top, plan):
        built.append(top.spelling)
        return real(self, index, top, plan)

    with monkeypatch.context() as m:
        m.setattr(unitcheck.UnitCheck, "build_and_analyse", counted)
        if saw is not None:
            m.setattr(repeats.Check, "saw", saw)
        if not repeat:
            m.setattr(repeats.Repeats, "find", lambda self, index, known: None)
        path = tmp_path / "cycle.c"
        path.write_text(source)
        result = check(path)
    return result, built


def test_the_last_cycle_round_repeats_the_earlier_checks(tmp_path, monkeypatch):
    fresh, every = _count(tmp_path, monkeypatch, CYCLE, repeat=False)
    taken, fewer = _count(tmp_path, monkeypatch, CYCLE)
    assert len(fewer) < len(every)
    _same(taken, fresh)


def test_an_earlier_check_is_taken_only_where_every_record_it_saw_is_unchanged():
    from refcheck.conventions.summary import Returns, Summary

    rec, other, now = Summary(returns=Returns.OWNED), Summary(may_fail=True), Summary(pure=True)
    made = repeats.Repeats()
    first = repeats.Check((("f", None), ("g", rec)), ((), (), 1, ()), None, (), 0.5)
    made.note(3, first)
    assert made.find(3, {"g": rec}) is first
    assert made.find(3, {"g": other}) is None
    assert made.find(3, {"g": rec, "f": now}) is None
    assert made.find(4, {"g": rec}) is None


def _strict(check, name, record, now):
    """`Check.saw` before marks were told apart: every record compared with its mark."""
    return now == record


# The cycle's records fall back to ones equal to the stale round's but for the mark: `c` and `d`
# return a new object and only lend `t` (to each other, to `T_use`), so no call hands a member
# anything and no check reads a member's mark; their records say something (an owned result).
UNMARKED = """typedef struct T T;
T *T_new(void);
void T_free(T *t);
void T_use(T *t);
T *d(T *t, int n);
T *c(T *t, int n) { T_use(t); if (n > 0) return d(t, n - 1); return T_new(); }
T *d(T *t, int n) { if (n > 1) return c(t, n - 1); return T_new(); }
void leaks(int n) { T *t = T_new(); T *r = c(t, n); T_free(r); }
void frees(int n) { T *t = T_new(); T *r = d(t, n); T_free(r); T_free(t); }
"""


def _same(a, b):
    assert [(f.rule, f.location.line, f.message) for f in a.findings] == \
        [(f.rule, f.location.line, f.message) for f in b.findings]
    assert a.exports == b.exports and a.counts == b.counts and a.functions == b.functions


def test_a_mark_the_check_did_not_read_does_not_stop_a_repeat(tmp_path, monkeypatch):
    fresh, every = _count(tmp_path, monkeypatch, UNMARKED, repeat=False)
    strict, some = _count(tmp_path, monkeypatch, UNMARKED, saw=_strict)
    taken, fewer = _count(tmp_path, monkeypatch, UNMARKED)
    assert len(fewer) < len(some) <= len(every)
    _same(taken, fresh)
    _same(strict, fresh)
    assert [f.function for f in taken.findings if f.rule == "RC001"] == ["leaks"]


def test_a_hand_over_reads_the_mark():
    from refcheck.conventions.summary import Effect, Summary

    takes = Summary(arguments=((0, Effect.CONSUME),))
    from dataclasses import replace

    marked = replace(takes, assumed=True)
    unread = repeats.Check((("g", takes),), ((), (), 1, ()), None, (), 0.1)
    read = repeats.Check((("g", takes),), ((), (), 1, ()), None, (), 0.1, frozenset({"g"}))
    assert unread.saw("g", takes, marked) and not read.saw("g", takes, marked)
    assert not unread.saw("g", takes, Summary()) and read.saw("g", takes, takes)


def test_the_lowering_notes_the_names_it_handed_something_to(tmp_path):
    from dataclasses import replace

    from cunit import parse_unit

    from refcheck.conventions import Conventions
    from refcheck.conventions.summary import Effect, Summary, SummaryTable
    from refcheck.frontend.builder import build_cfg

    path = tmp_path / "hand.c"
    path.write_text("typedef struct T T;\nT *T_new(void);\nvoid keep(T *t);\nvoid look(T *t);\n"
                    "void f(void) { T *t = T_new(); look(t); keep(t); }\n")
    table = SummaryTable({"keep": Summary(arguments=((0, Effect.CONSUME),), assumed=True)})
    conv = replace(Conventions(), inferred=table)
    fn = next(f for f in parse_unit(path, clean=True).functions if f.spelling == "f")
    build_cfg(fn, conv)
    assert table.marks_read == {"keep"}
