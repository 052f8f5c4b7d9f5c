"""Where a .gir's `transfer full` is g-ir-scanner's default, not the author's word, and the data
itself shows the value belongs to the argument (issue 32, glib39: librest 0.9.1 in libgovirt).

A .gir records a transfer for every value, annotated or not. Unannotated, g-ir-scanner
(giscanner/maintransformer.py, `_get_transfer_default*`) writes `full` for a non-const pointer to
a registered record (boxed) result and for every callee-allocated out parameter; a library that
never annotated a lookup reads as handing out new references. Two shapes whose structure says
otherwise, taken only where no doc text of the function speaks of ownership (a real `(transfer
full)` there is usually explained: "free with", "a new", "unref"):
- a node of a linked record (a type with a field pointing to its own type: RestXmlNode's `next`,
  GNode's `children`) that a method of that type returns: a node of its argument's structure
  (`rest_xml_node_find (start, tag)`: "the first child node", never unref'd by its callers);
- a record an iterator (`*Iter` instance) writes to an out parameter: the iterated container's
  element (`rest_params_iter_next (&iter, &name, &param)`, JsonObjectIter's annotated `none`).
Strings keep their default (a non-const `gchar *` handed out is a copy by GLib's convention:
g_uri_params_iter_next's), and so do objects (a GObject getter may return a reference).
"""

from __future__ import annotations

import re

CORE = "{http://www.gtk.org/introspection/core/1.0}"
C_NS = "{http://www.gtk.org/introspection/c/1.0}"

# Words a doc uses where ownership is the author's concern, whatever the annotation says.
_OWNERSHIP = re.compile(r"\bnew|free|unref|\bcopy|copies|caller|owned|\bown|reference|\bref\b|dup"
                        r"|release|destroy|transfer|steal", re.I)


def _docs(element) -> str:
    return " ".join(d.text or "" for d in element.iter(CORE + "doc"))


def _ctype(holder) -> str:
    t = holder.find(CORE + "type")
    return (t.get(C_NS + "type", "") if t is not None else "").replace(" ", "")


def linked_records(root) -> dict:
    """C type -> <record> element of the records that hold a pointer to their own type."""
    out = {}
    for rec in root.iter(CORE + "record"):
        ctype = rec.get(C_NS + "type")
        if ctype and any(_ctype(f) == ctype + "*" for f in rec.findall(CORE + "field")):
            out[ctype] = rec
    return out


def record_types(root) -> set[str]:
    """The C types of every <record> (plain structs and boxed types, not classes)."""
    return {r.get(C_NS + "type") for r in root.iter(CORE + "record") if r.get(C_NS + "type")}


def corrected(callable_, record: dict | None, owner, linked: dict, records: set[str]) -> dict | None:
    """`record` (parse_gir's, of `callable_`, a child of `owner`) without the defaulted full
    transfers the structure contradicts."""
    own = owner.get(C_NS + "type") if owner is not None else None
    if record is None or not own or callable_.tag != CORE + "method":
        return record
    out = dict(record)
    ret = callable_.find(CORE + "return-value")
    if (record.get("returns") == "owned" and linked.get(own) is owner
            and ret is not None and _ctype(ret) == own + "*"):
        out["returns"] = "borrowed"
    if own.endswith("Iter") and record.get("arguments"):
        params = callable_.find(CORE + "parameters")
        names = {str(i + 1): p for i, p in enumerate(params.findall(CORE + "parameter"))}
        out["arguments"] = {pos: eff for pos, eff in record["arguments"].items()
                            if not (eff in _FILLS and pos in names and _ctype(names[pos]).endswith("**")
                                    and _ctype(names[pos])[:-2] in records)}
        if not out["arguments"]:
            del out["arguments"]
    # The docs are read only where the structure contradicts the record (most methods: not).
    if out == record or _OWNERSHIP.search(_docs(callable_)):
        return record
    return out or None


_FILLS = ("acquire-out", {"effect": "acquire-out", "when": "nonzero"})
