"""frontend.intrusive: which parameters a function links into an intrusive list of the unit's own."""

from __future__ import annotations

from cunit import parse_unit

from refcheck.frontend.intrusive import linking_parameters

SOURCE = """
struct list { struct list *next; struct list *prev; };
struct node { struct node *next; int payload; };

static void add_after(struct list *elem, struct list *to_add)
{
  to_add->next = elem->next;
  to_add->prev = elem;
  elem->next->prev = to_add;
  elem->next = to_add;
}
static void add_head(struct list *list, struct list *elem) { add_after(list, elem); }
static void init(struct list *list) { list->next = list; list->prev = list; }
static void reset(struct list *head, struct list *node) { node->next = 0; node->prev = 0; (void)head; }
static void push(struct node *head, struct node *n) { head->next = n; }
"""


def _linked(tmp_path) -> dict:
    path = tmp_path / "lists.c"
    path.write_text(SOURCE)
    parsed = parse_unit(path, clean=True)
    return {fn.spelling: [p.spelling for p in linking_parameters(fn)] for fn in parsed.functions}


def test_linked_nodes(tmp_path):
    linked = _linked(tmp_path)
    assert linked["add_after"] == ["to_add"]  # `elem->next = to_add`; elem is only written into
    assert linked["add_head"] == ["elem"]  # passed on to add_after at its linking position


def test_not_linked(tmp_path):
    linked = _linked(tmp_path)
    assert linked["init"] == []  # one parameter: its own links
    assert linked["reset"] == []  # its node's own members cleared, nothing stored
    assert linked["push"] == []  # a record with a payload is an object, not a link
