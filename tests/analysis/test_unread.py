"""Parameters replaced before anything read them (`analysis.unread`)."""

from __future__ import annotations

from cunit import graphs

from refcheck.analysis.unread import overwritten_unread

SOURCE = r"""
#include <stdlib.h>
typedef struct { double x; } Region;
void destroy(Region *r) { free(r); }
int first(Region *region, int depth)
{
  if (depth == 0)
    region = malloc(sizeof(Region));
  destroy(region);
  return 0;
}
int after_read(Region *region, int depth)
{
  double x = region->x;
  if (depth == 0)
    region = malloc(sizeof(Region));
  destroy(region);
  return x > 0;
}
int in_loop(Region *region, int n)
{
  for (int i = 0; i < n; i++) {
    destroy(region);
    region = malloc(sizeof(Region));
  }
  return 0;
}
"""


def test_only_a_parameter_replaced_before_any_read_is_listed(tmp_path):
    src = tmp_path / "u.c"
    src.write_text(SOURCE)
    g = graphs(src)
    named = lambda fn: {g[fn].names.get(v, v) for v in overwritten_unread(g[fn])}  # noqa: E731
    assert named("first") == {"region"}
    assert named("after_read") == set()  # read first: the caller's object was seen
    assert named("in_loop") == set()  # the next trip's overwrite follows the previous release


def test_the_answer_is_kept_per_graph_until_it_changes(tmp_path, monkeypatch):
    """The return witness's transfer and the exploration's ask of one graph: one scan answers both."""
    from refcheck.analysis import unread

    src = tmp_path / "u.c"
    src.write_text(SOURCE)
    cfg = graphs(src)["first"]
    scans = []
    real = unread._overwritten_unread
    monkeypatch.setattr(unread, "_overwritten_unread", lambda g, params: scans.append(params) or real(g, params))
    first = overwritten_unread(cfg)
    assert overwritten_unread(cfg) is first and len(scans) == 1
    cfg.graph.add_edge(cfg.entry, cfg.exit)  # any change drops what was kept
    assert overwritten_unread(cfg) == first and len(scans) == 2
