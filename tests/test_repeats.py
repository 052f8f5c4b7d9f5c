"""A definition checked again with the records an earlier check of it saw takes that check's
outcome (`driver.repeats`) instead of a build and an analysis."""

from __future__ import annotations

from cunit import check

from refcheck.driver import engine, repeats

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


def _run(tmp_path, monkeypatch, repeat: bool):
    built = []
    real = engine._UnitCheck.build_and_analyse

    def counted(self, index, top, plan):
        built.append(top.spelling)
        return real(self, index, top, plan)

    with monkeypatch.context() as m:
        m.setattr(engine._UnitCheck, "build_and_analyse", counted)
        if not repeat:
            m.setattr(repeats.Repeats, "find", lambda self, index, known: None)
        path = tmp_path / "cycle.c"
        path.write_text(CYCLE)
        result = check(path)
    return result, built


def test_the_last_cycle_round_repeats_the_earlier_checks(tmp_path, monkeypatch):
    fresh, every = _run(tmp_path, monkeypatch, repeat=False)
    taken, fewer = _run(tmp_path, monkeypatch, repeat=True)
    assert len(fewer) < len(every)
    assert [(f.rule, f.location.line, f.message) for f in taken.findings] == \
        [(f.rule, f.location.line, f.message) for f in fresh.findings]
    assert taken.exports == fresh.exports
    assert taken.counts == fresh.counts and taken.functions == fresh.functions


def test_an_earlier_check_is_taken_only_where_every_record_it_saw_is_unchanged():
    made = repeats.Repeats()
    first = repeats.Check((("f", None), ("g", "rec")), ((), (), 1, ()), None, (), 0.5)
    made.note(3, first)
    assert made.find(3, {"g": "rec"}) is first
    assert made.find(3, {"g": "other"}) is None
    assert made.find(3, {"g": "rec", "f": "now"}) is None
    assert made.find(4, {"g": "rec"}) is None
