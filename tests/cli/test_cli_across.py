"""A definition in a project header is analysed twice per process, not once per unit that
includes it (`reuse.across`): a later unit takes the earlier unit's analysis of the same graph
with the same records, and reports the same."""

from __future__ import annotations

import json

from cli_helpers import log_calls, logged_lines

from refcheck import analysis
from refcheck.reuse import across

HEADER = """#include <stdlib.h>
static inline void drop_twice(char *p) { free(p); free(p); }
static inline char *fresh(size_t n) { char *p = malloc(n); if (n > 3) return NULL; return p; }
"""
UNIT = """#include "shared.h"
void %s(size_t n) { char *p = fresh(n); drop_twice(p); }
"""


def _run(project, monkeypatch, log, share: bool):
    with monkeypatch.context() as m:  # in the worker: one line per analysis
        log_calls(m, analysis, "analyze", log, lambda cfg, *args: cfg.name)
        if not share:
            m.setattr(across.Across, "eligible", lambda self, cfg: False)
        project.write("shared.h", HEADER)
        for name in ("a", "b", "c"):
            project.write(f"{name}.c", UNIT % f"use_{name}")
        r = project.run("check", "-j", "1", "--no-cache", "--format", "json", "a.c", "b.c", "c.c")
    analysed = logged_lines(log)
    across.forget()
    return json.loads(r.out), analysed


def test_a_header_definition_is_analysed_twice_per_process(project, monkeypatch, tmp_path):
    log = tmp_path / "analysed.txt"
    alone, every = _run(project, monkeypatch, log, share=False)
    shared, fewer = _run(project, monkeypatch, log, share=True)
    assert shared["findings"] == alone["findings"] and shared["errors"] == alone["errors"]
    assert sorted((f["file"], f["function"], f["rule"]) for f in shared["findings"]) == [
        ("shared.h", "drop_twice", "RC002"), ("shared.h", "drop_twice", "RC006"),
        ("shared.h", "fresh", "RC001"), ("shared.h", "fresh", "RC004")]
    assert every.count("drop_twice") == 3 and every.count("fresh") == 3
    # The first unit does not key them (a file only one unit may ever have); the second keys
    # them, the third takes that analysis.
    assert fewer.count("drop_twice") == 2 and fewer.count("fresh") == 2
    assert sorted(n for n in fewer if n.startswith("use_")) == ["use_a", "use_b", "use_c"]


# Two definitions at one place (a macro that writes both, as G_DECLARE_FINAL_TYPE writes a
# type's helpers): the unit's plan class-keys each graph, and so does the process's sharing.
PAIRED = """#include <stdlib.h>
#define HELPERS(T) static inline void drop_##T(T *p) { free(p); free(p); } static inline T *fresh_##T(size_t n) { T *p = malloc(n); if (n > 3) return NULL; return p; }
HELPERS(char)
"""


def test_a_graph_is_class_keyed_once(project, monkeypatch, tmp_path):
    """The plan's class key of a graph is the one `across` uses: each graph is keyed once (was
    twice: 9,047 keys, 0.64 s of appstream-glib's run, were the second), the same findings."""
    from refcheck.reuse import plan, renaming

    keys, analysed = tmp_path / "keys.txt", tmp_path / "analysed.txt"

    def run(share: bool):
        with monkeypatch.context() as m:
            log_calls(m, analysis, "analyze", analysed, lambda cfg, *args: cfg.name)
            for owner in (plan, across):  # each imported the name
                log_calls(m, owner, "class_key", keys, lambda cfg, conv: f"{cfg.name} {id(cfg)}")
            if not share:
                m.setattr(across.Across, "eligible", lambda self, cfg: False)
            project.write("shared.h", PAIRED)
            for name in ("a", "b", "c"):
                project.write(f"{name}.c", '#include "shared.h"\nvoid use_%s(size_t n) { drop_char(fresh_char(n)); }\n' % name)
            r = project.run("check", "-j", "1", "--no-cache", "--format", "json", "a.c", "b.c", "c.c")
        across.forget()
        return json.loads(r.out), logged_lines(keys), logged_lines(analysed)

    alone, _, every = run(share=False)
    shared, keyed, fewer = run(share=True)
    assert shared["findings"] == alone["findings"] and shared["errors"] == alone["errors"]
    assert {f["function"] for f in shared["findings"]} == {"drop_char", "fresh_char"}
    assert every.count("fresh_char") == 3 and fewer.count("fresh_char") == 2  # the sharing ran
    # Every unit keys both helpers (they share a place); none is keyed twice in a row.
    assert len(keyed) == 6, keyed
    assert all(a != b for a, b in zip(keyed, keyed[1:]))
