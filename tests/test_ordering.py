"""driver/ordering.py: the units' checking order from their text (callees' units first)."""

from __future__ import annotations

from refcheck.driver.ordering import callees_first

MISC = b"""#include "misc.h"
gboolean
_lib_dbus_call (gpointer obj, const char *method, GError **error, void (*done) (int))
{
  return lib_accessible_ping (obj);
}

static int helper(int a) {
  return a;
}

int _lib_dbus_get (gpointer obj) { return helper (1); }
"""
ACCESSIBLE = b"""#include "misc.h"
int
lib_accessible_ping (gpointer obj)
{
  return 0;
}

char *
lib_accessible_get_name (gpointer obj)
{
  if (!_lib_dbus_call (obj, "GetName", NULL, NULL) || !_lib_dbus_get (obj))
    return NULL;
  return _lib_strdup (obj) ? lib_misc_name (obj) : NULL;
}
"""
STRDUP = b"char *_lib_strdup (gpointer p)\n{\n  return g_strdup (p);\n}\nchar *lib_misc_name (gpointer p) { return NULL; }\n"


def _order(files: dict[str, bytes]) -> list[str]:
    paths = list(files)
    return [paths[i] for i in callees_first(paths, files.get)]


def test_callees_units_come_first_and_the_rest_keeps_its_order():
    files = {"a/caller.c": b"int main (void)\n{\n  return lib_accessible_get_name (0) != 0 && _lib_dbus_get (0);\n}\n",
             "a/action.c": b"int\nlib_action_do (gpointer obj)\n{\n  return _lib_dbus_call (obj, NULL, NULL, NULL);\n}\n",
             "a/lone.c": b"int lone (void)\n{\n  return 1;\n}\n",
             "a/accessible.c": ACCESSIBLE, "a/misc.c": MISC, "a/strdup.c": STRDUP,
             "b/unreadable.c": None}
    order = _order(files)
    assert sorted(order) == sorted(files)
    # accessible.c and misc.c call each other: misc.c, which three units wait for (accessible.c,
    # action.c, caller.c) and which waits for one, goes first; strdup.c calls nothing.
    assert order.index("a/strdup.c") < order.index("a/accessible.c")
    assert order.index("a/misc.c") < order.index("a/accessible.c") < order.index("a/caller.c")
    assert order.index("a/misc.c") < order.index("a/action.c")
    assert order.index("a/lone.c") < order.index("b/unreadable.c")
    # A prototype is no definition, nor is an indented `if (...)\n  {`.
    assert _order({"x.c": b"int f (void);\nint g (void)\n{\n  if (f ())\n  {\n    return 1;\n  }\n  return 0;\n}\n",
                   "y.c": b"int f (void)\n{\n  return 0;\n}\n",
                   "z.c": b"int if_used (void);\nint g2 (void)\n{\n  return if_used ();\n}\n"}) == ["y.c", "x.c", "z.c"]


def test_a_unit_included_by_another_stays_after_its_includer():
    """TH's layout: THTensor.c includes generic/THTensor.c; the run checks the includer and skips
    the included unit, even where the included one defines what the includer calls."""
    files = {"lib/THTensor.c": b'#include "generic/THTensor.c"\nvoid use (void)\n{\n  gen_new ();\n}\n',
             "lib/generic/THTensor.c": b"void gen_new (void)\n{\n}\n"}
    assert _order(files) == ["lib/THTensor.c", "lib/generic/THTensor.c"]
