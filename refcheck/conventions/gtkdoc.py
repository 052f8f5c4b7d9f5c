"""Ownership records from a project's own gtk-doc comments, for the `glib` preset (issue 32).

GObject projects write the ownership GObject-Introspection reads in the doc comment of each
function: `Returns: (transfer container) (element-type AsProblem): ...`, `@out: (out) (transfer
full): ...`. A build that disables introspection (most of them, on a first run) has no .gir, but
the comments are in the project's sources. This module reads them: each `/** name: ... */` block
with an ownership annotation (transfer, out, inout), followed by the
function's declaration or definition, becomes the GIR element g-ir-scanner would have written
(`<function>` with its `<return-value>` and `<parameters>`), and `gir.py`'s own converter makes
the record of it (one converter for both), of which an owned result and owned out parameters
are kept (`_said`: the rest proved wrong too often on real code). Anything not understood says nothing: a comment
that does not parse, or an annotation that is not ownership, gives no record and no error.
libclang-free: the scan reads the text of the project's sources (the run's units), once per run.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

from refcheck.conventions.gir import C_NS, CORE, Record, record_of

# A doc block and the text after it up to the body or the end of the declaration.
_BLOCK = re.compile(r"/\*\*(?!\*)(.*?)\*/([^{};/]*)", re.S)
# What makes a block worth reading: an annotation that says who owns something.
_OWNERSHIP = re.compile(r"\((?:transfer|out|inout)\b")
# The block's first line: the function's name, a colon (signals `T::s:` and properties `T:p:` have
# more colons, `SECTION:` is no identifier of lower case only... it is skipped by the signature).
_NAME = re.compile(r"^\s*(\w+)\s*:\s*(?:\([^)]*\)\s*)*$")
# `@param: (a) (b c): text`, `Returns: (a): text`, `Return value: (a): text`.
_TAG = re.compile(r"^\s*(@\w+|@\.\.\.|returns?|return value)\s*:\s*((?:\([^()]*(?:\([^()]*\)[^()]*)*\)\s*)*)",
                  re.I)
_ANNOTATION = re.compile(r"\(([^()]*(?:\([^()]*\)[^()]*)*)\)")
_QUALIFIERS = re.compile(r"\b(?:static|extern|inline|__inline__|G_INLINE_FUNC|_?\w*_EXPORT|"
                         r"G_GNUC_\w+|G_DEPRECATED\w*|GLIB_AVAILABLE_IN_\w+|_?\w*_AVAILABLE_IN_\w+)\b")
# A function's name after nothing but a type on its line, and the rest of its definition.
_HEAD = re.compile(r"(?m)^[ \t]*(?:[A-Za-z_][\w \t*]*?[ \t*])?([A-Za-z_]\w*)[ \t]*\(")
_DEFINED = re.compile(r"[^;{}]*\)\s*\{")
# GIR's type names the converter asks of (`_type_name`): the callback data and its notify.
_TYPE_NAMES = {"gpointer": "gpointer", "GDestroyNotify": "GLib.DestroyNotify",
               "GClosureNotify": "GObject.ClosureNotify"}


def scan(text: str) -> dict[str, Record]:
    """Every function of one source text whose doc comment says who owns something: name ->
    record. A name documented twice with different records is left out (two static functions of
    one name: the comment that governs a call is not known)."""
    return _scan(text)[0]


def _scan(text: str) -> tuple[dict[str, Record], dict[str, tuple[int, ...]]]:
    """`scan`'s records, and the input parameters documented `(transfer full)` (`_taken`)."""
    out: dict[str, Record] = {}
    takes: dict[str, tuple[int, ...]] = {}
    clashes: set[str] = set()
    if "(transfer" not in text and "(out" not in text and "(inout" not in text:
        return out, takes  # most files: nothing to read
    for m in _BLOCK.finditer(text):
        body = m.group(1)
        if not _OWNERSHIP.search(body):
            continue
        element, skipped = _element(body, m.group(2))
        if element is None:
            continue
        name = element.get(C_NS + "identifier")
        record = record_of(element)
        lent = _lent_back(element, text, m.end())
        if skipped and not lent:
            continue  # never checked by g-ir-scanner (`_element`), nor confirmed by the body
        if lent:  # gdbus-codegen's `_peek_*`, all `(skip)`: the body confirms the comment
            record = {"returns": "borrowed"}
            if name in out and out[name] != record:
                clashes.add(name)
            out[name] = record
            continue
        if _takes_input(record):
            # An input parameter's `(transfer full)` is not trusted alone (see _said), but a record
            # without it would make that parameter borrowed over what the body says (libdex's
            # `dex_await_object (future, error)`: "@future: (transfer full)", its body's
            # dex_unref; 16 false RC001 at its callers, glib26): the body and the name decide,
            # told of the annotation (`Summarizer.stolen`).
            takes[name] = _taken(record, element)
            continue
        record = _renewed(_said(record), element)
        if _propagated(record, element, text, m.end()):
            record = {**(record or {}), "returns": "borrowed"}
        if record is None or ("returns" not in record and "*" in _c_type(element)):
            # A pointer result the comment says nothing of: a record would make it borrowed over
            # what the body or the name says, so the parameters' annotations are left out too.
            continue
        if name in out and out[name] != record:
            clashes.add(name)
        out[name] = record
    for name in clashes:
        del out[name]
    return out, {n: t for n, t in takes.items() if t}


def unannotated_results(text: str) -> set[str]:
    """The functions of one source text whose doc block documents a non-const pointer result
    (`Returns: a new #RestXmlNode`) with no transfer annotation, which g-ir-scanner reads as
    `full` (a `const` one as `none`), where the text calls it new ("a new #RestXmlNode").
    Not a record (`Conventions.documented_results`)."""
    found: set[str] = set()
    if "eturn" not in text:
        return found
    for m in _BLOCK.finditer(text):
        lines = _lines(m.group(1))
        said = _tag_text(lines, "returns")
        first = next((line for line in lines if line.strip()), "")
        named = _NAME.match(first)
        if not said or named is None or re.search(r"\(\s*skip\s*\)", first) or "floating" in said.lower():
            continue
        if not re.search(r"\b(?:a new|newly)\b", _tag_block(lines, said), re.I):
            # A body read past the state limit records nothing, so a getter's `Returns: the
            # name` would be taken too: only a result the text itself calls new.
            continue
        if any(a.split(" ")[0] == "transfer" for a in _tags(lines).get("returns", [])):
            continue  # annotated: `_scan`'s record, if any, says it
        signature = _signature(m.group(2), named.group(1))
        ret = _normal(_QUALIFIERS.sub(" ", signature[1])) if signature else ""
        if "*" in ret and not re.search(r"\bconst\b", ret):
            found.add(signature[0])
    return found


def _tag_block(lines: list[str], said: str) -> str:
    """A tag's text with its continuation lines (up to a blank line or the next tag)."""
    i = lines.index(said)
    rest = list(itertools.takewhile(lambda line: line.strip() and not _TAG.match(line), lines[i + 1:]))
    return " ".join([said, *rest])


def _taken(record: Record, element: ET.Element) -> tuple[int, ...]:
    """The positions of the input parameters a converted record consumes, but a `T **` one
    (dconf_changeset_get's `@value: (transfer full)`, an out parameter missing its `(out)`)."""
    head = _listed(record)
    types = [(t.get(C_NS + "type", "") if t is not None else "")
             for t in (p.find(CORE + "type") for p in element.iter(CORE + "parameter"))]
    return tuple(sorted(int(position) for position, effect in record.get("arguments", {}).items()
                        if (effect.get("effect") if isinstance(effect, dict) else effect) == "consume"
                        and position != head and int(position) < len(types)
                        and not types[int(position)].endswith("**")))


# `return g_task_propagate_pointer (...)`, or of a local given it (`x = g_task_propagate_pointer`).
_PROPAGATE = re.compile(r"\bg_task_propagate_pointer\s*\(")
_RETURN = re.compile(r"\breturn\b\s*([^;]*);")
_TRIVIAL = re.compile(r"\(?\s*(?:NULL|FALSE|0|nullptr)\s*\)?")


def _propagated(record: Record | None, element: ET.Element, text: str, end: int) -> bool:
    """Whether a finish function documents its pointer result `(transfer none)` and its body
    returns only what `g_task_propagate_pointer` gives (or NULL). What a GTask hands out is what
    the project gave `g_task_return_pointer`, owned or lent: its transfer is the project's
    protocol, which the finish's documentation states (gupnp's call_action_finish, the action
    the caller passed, returned with a NULL notify). A result made by a constructor is not
    covered: there the body wins (geocode_place_get_icon, `_said`)."""
    ret = element.find(CORE + "return-value")
    if (record or {}).get("returns") or ret is None or ret.get("transfer-ownership") != "none" \
            or "*" not in _c_type(element) or end >= len(text) or text[end] != "{":
        return False
    body = _body(text, end)
    if body is None or not _PROPAGATE.search(body):
        return False
    given = set(re.findall(r"(\w+)\s*=\s*(?:\(\s*[\w\s*]+\)\s*)?g_task_propagate_pointer\s*\(", body))
    returns = [r.strip() for r in _RETURN.findall(body)]
    return bool(returns) and all(_TRIVIAL.fullmatch(r) or _PROPAGATE.match(re.sub(r"^\([\w\s*]+\)\s*", "", r))
                                 or r in given for r in returns)


_ACQUIRED = re.compile(r"\b(\w+)\s*=\s*(?:\([\w\s*]+\)\s*)?(\w+)\s*\(([^;]*)\)\s*;")
_TEXTUAL = re.compile(r"(?:const\s+)?g?u?char\*")


def _lent_back(element: ET.Element, text: str, end: int) -> bool:
    """Whether a function documents its pointer result `(transfer none)` and its body returns
    only (NULL or) what one call given an owner gave a local it then unrefs: gdbus-codegen's
    `ret = g_dbus_object_get_interface (G_DBUS_OBJECT (object), ...); g_object_unref (ret);
    return GOA_ACCOUNT (ret);`, whose owner keeps the object (`frontend.ownergets`, which reads
    the body so too: this is its callers' record). The owner is a pointer parameter that is
    no string, or a local given one; a constructor (`_new`) has no owner."""
    ret = element.find(CORE + "return-value")
    if ret is None or ret.get("transfer-ownership") != "none" or "*" not in _c_type(element) \
            or end >= len(text) or text[end] != "{":
        return False
    body = _body(text, end)
    if body is None:
        return False
    owners = {p.get("name") for p in element.iter(CORE + "parameter")
              if "*" in (t := _param_type(p)) and not _TEXTUAL.fullmatch(t)}
    owners |= {m.group(1) for m in re.finditer(r"\b(\w+)\s*=\s*([^;=]*);", body)
               if set(re.findall(r"\w+", m.group(2))) & owners}
    held = set()
    for m in _ACQUIRED.finditer(body):
        x, callee, first = m.group(1), m.group(2), _split(m.group(3))[0]
        if re.search(r"_new(?:_|$)", callee) or not set(re.findall(r"\w+", first)) & owners \
                or len(re.findall(rf"\b{x}\s*=(?!=)", body)) != 1 \
                or not re.search(rf"\b\w+_unref\s*\(\s*{x}\s*\)", body):
            continue
        held.add(x)
        held |= {a for a in re.findall(rf"\b(\w+)\s*=\s*{x}\s*;", body)}
    returns = [r.strip() for r in _RETURN.findall(body)]
    bare = [re.sub(r"^\w+\s*\(\s*(\w+)\s*\)$", r"\1", r) for r in returns]
    return bool(held) and any(r in held for r in bare) and all(_TRIVIAL.fullmatch(r) or r in held for r in bare)


def _param_type(p: ET.Element) -> str:
    t = p.find(CORE + "type")
    return t.get(C_NS + "type", "") if t is not None else ""


def _body(text: str, start: int, limit: int = 20000) -> str | None:
    """The text of the braces opening at `start` (a function body), or None past `limit`."""
    depth = 0
    for i in range(start, min(len(text), start + limit)):
        depth += (text[i] == "{") - (text[i] == "}")
        if depth == 0:
            return text[start + 1:i]
    return None


def _takes_input(record: Record | None) -> bool:
    """Whether the converted record takes over an input parameter (`(transfer full)` without
    `(out)`: a consume) other than a variadic list's first element (`_listed`)."""
    head = _listed(record)
    for position, effect in (record or {}).get("arguments", {}).items():
        if (effect.get("effect") if isinstance(effect, dict) else effect) == "consume" and position != head:
            return True
    return False


def _listed(record: Record | None) -> str | None:
    """The position of the first element of a list the variadic arguments continue, where the
    record takes both over (`dex_future_first (first_future, ...)`), else None: one annotation
    said of a whole list, trusted where an input parameter's alone is not (`_said`)."""
    variadic = (record or {}).get("variadic")
    if not variadic or variadic["effect"] != "consume":
        return None
    head = str(variadic["from"] - 1)
    return head if record.get("arguments", {}).get(head) == "consume" else None


def _said(record: Record | None) -> Record | None:
    """What of a converted record a comment is trusted for: an owned result (`(transfer full)`,
    `(transfer container)`) and owned out parameters (`(out) (transfer full)`), nothing else.
    On the fifteen code bases and glib23's four the rest was wrong or hid better knowledge:
    - `(transfer none)` on a result yields to the body and the name (geocode-glib's
      geocode_place_get_icon: "(transfer none)" over g_icon_new_for_string, a true leak hidden;
      without a body a result is borrowed anyway), and so does a constructor's;
    - `(transfer full)` on an input parameter (gdbus-codegen's `_complete_*` `@invocation`,
      which g_dbus_method_invocation_return_value takes over through an instance parameter the
      GLib table does not carry; dconf_changeset_get's `@value` missing its `(out)`; libsecret's
      `@attributes`, which secret_password_storev only reads);
    - `(closure)`, `(destroy)`, `(scope)` user data: a record there stops the data/destructor
      pairing of functions no record describes (gdk_pixbuf_new_from_data's `data` with its
      `destroy_fn`, secret_value_new_full's: docs/semantics.md)."""
    if record is None:
        return None
    out: Record = {}
    if record.get("returns") == "owned":
        out["returns"] = "owned"
    kept = {k: v for k, v in record.get("arguments", {}).items()
            if v == "acquire-out" or isinstance(v, dict) and v.get("effect") == "acquire-out"}
    if record.get("variadic"):  # `@...: (transfer full)`, and its list's first element's
        out["variadic"] = record["variadic"]
        head = _listed(record)
        if head is not None:
            kept[head] = "consume"
    if kept:
        out["arguments"] = dict(sorted(kept.items(), key=lambda kv: int(kv[0])))
    return out or None


def _renewed(record: Record | None, element: ET.Element) -> Record | None:
    """The record with its in-out lists and objects: a `T **` parameter a comment writes both
    `(inout)` and `(transfer full)` or `(transfer container)` of (grilo's filter_slow `@keys`) gives
    its input up and receives an owned output (GObject-Introspection's in-out rule: `Effect.RENEW`).
    Only a comment that says so: g-ir-scanner writes `full` for every unannotated in-out parameter
    (g_prefix_error's error, g_option_context_parse's argv, rewritten in place), and a `GError **`
    is an error updated in place."""
    renewed = {str(i): "renew" for i, p in enumerate(element.iter(CORE + "parameter"))
               if p.get("direction") == "inout" and p.get("transfer-ownership") in ("full", "container")
               and _param_type(p).count("*") == 2 and _param_type(p).endswith("**")
               and _param_type(p).replace(" ", "") != "GError**"}
    if not renewed:
        return record
    arguments = {**(record or {}).get("arguments", {}), **renewed}
    return {**(record or {}), "arguments": dict(sorted(arguments.items(), key=lambda kv: int(kv[0])))}


def _c_type(element: ET.Element) -> str:
    t = element.find(f"{CORE}return-value/{CORE}type")
    return t.get(C_NS + "type", "") if t is not None else ""


def _lines(body: str) -> list[str]:
    return [re.sub(r"^\s*\*+ ?", "", line) for line in body.splitlines()]


def _element(body: str, after: str) -> tuple[ET.Element | None, bool]:
    """The GIR `<function>` of one doc block and the signature after it, or None; and whether
    the block says `(skip)`."""
    lines = [line for line in _lines(body)]
    first = next((line for line in lines if line.strip()), "")
    named = _NAME.match(first)
    # `name: (skip)`: g-ir-scanner leaves the function out of the .gir, so its annotations
    # were never checked by anyone (appstream-glib's as_node_from_xml: "(transfer none)" on a
    # tree every caller frees): no record, as a .gir would have none, but where its body
    # confirms the comment (`_lent_back`).
    skipped = bool(named and re.search(r"\(\s*skip\s*\)", first))
    signature = _signature(after, named.group(1)) if named else None
    if signature is None:
        return None, skipped
    name, ret_type, params = signature
    if any(t.endswith("Notify") or t == "gpointer (*)" for t, _ in params):
        # Data handed with its destructor (gdk_pixbuf_new_from_data's `data` and `destroy_fn`,
        # secret_value_new_full's): the pairing rule of functions no record describes decides
        # who frees it, which any record here would stop (docs/semantics.md).
        return None, skipped
    tags = _tags(lines)
    tag = "constructor" if re.search(r"_new(?:_|$)", name) else "function"
    element = ET.Element(CORE + tag, {C_NS + "identifier": name})
    if params and params[-1][0].replace(" ", "") == "GError**":
        element.set("throws", "1")  # as g-ir-scanner: the out-error makes out-parameters conditional
    ret = ET.SubElement(element, CORE + "return-value")
    returns = tags.get("returns", [])
    if "floating" in _tag_text(lines, "returns").lower():
        # A floating result (dconf_changeset_serialise's GVariant, "(transfer full): a floating
        # #GVariant") is owned only until a call sinks it: the record would say owned outright.
        returns = []
    _annotate(ret, returns, ret_type)
    holder = ET.SubElement(element, CORE + "parameters")
    names = [p for _, p in params]
    for ctype, pname in params:
        p = ET.SubElement(holder, CORE + "parameter", {"name": pname})
        if pname == "...":
            _variadic(p, tags, lines, params)
            continue
        _annotate(p, tags.get("@" + pname, []), ctype, names)
    return element, skipped


def _variadic(holder: ET.Element, tags: dict, lines: list[str], params: list) -> None:
    """GIR's `<varargs/>` parameter, with `@...`'s transfer; an unannotated `@...` that is a
    NULL-terminated list continuing the parameter before it (`@first_future: (transfer full)`,
    `@...: a %NULL terminated list of futures`: libdex's dex_future_first) takes that one's."""
    ET.SubElement(holder, CORE + "varargs")
    said = tags.get("@...", [])
    if not said and len(params) > 1 and "*" in params[-2][0] \
            and re.search(r"NULL[- ]terminated", _tag_text(lines, "@...")):
        said = [a for a in tags.get("@" + params[-2][1], []) if a.startswith("transfer")]
    for a in said:
        word, _, arg = a.partition(" ")
        if word == "transfer" and arg in ("full", "none", "container"):
            holder.set("transfer-ownership", arg)


def result_transfer(comment: str) -> str | None:
    """The transfer a doc comment's `Returns:` annotates ("none", "full", "container"), or None.
    Read for the commented function's own body (`frontend.ownergets`), where `(transfer none)`
    is trusted only beside the shape that needs it; for its callers `_said` decides."""
    for a in _tags(_lines(comment.strip("/*"))).get("returns", []):
        word, _, arg = a.partition(" ")
        if word == "transfer" and arg in ("full", "none", "container"):
            return arg
    return None


def _tags(lines: list[str]) -> dict[str, list[str]]:
    """Each tag's annotations: `@name` or `returns` -> ["transfer full", "out"]."""
    out: dict[str, list[str]] = {}
    for line in lines:
        m = _TAG.match(line)
        if m is None or not m.group(2):
            continue
        key = m.group(1).lower() if not m.group(1).startswith("@") else m.group(1)
        key = "returns" if key.startswith("return") else key
        out[key] = [" ".join(a.split()) for a in _ANNOTATION.findall(m.group(2))]
    return out


def _tag_text(lines: list[str], key: str) -> str:
    """The text of one tag's line (`returns` or `@name`), or ""."""
    for line in lines:
        m = _TAG.match(line)
        if m is not None and (m.group(1).lower().startswith("return") if key == "returns" else m.group(1) == key):
            return line
    return ""


def _annotate(holder: ET.Element, annotations: list[str], ctype: str, names: list[str] = ()) -> None:
    """The GIR attributes of one value (its annotations) and its `<type>`."""
    ctype = _normal(ctype)
    ET.SubElement(holder, CORE + "type", {C_NS + "type": ctype, "name": _TYPE_NAMES.get(ctype, ctype)})
    for a in annotations:
        word, _, arg = a.partition(" ")
        if word == "transfer" and arg in ("full", "none", "container"):
            holder.set("transfer-ownership", arg)
        elif word in ("out", "inout"):
            holder.set("direction", word)
            if arg == "caller-allocates":
                holder.set("caller-allocates", "1")
        elif word == "scope" and arg:
            holder.set("scope", arg)
        elif word == "destroy":
            holder.set("destroy", "1")
        elif word == "closure" and arg in names:
            holder.set("closure", str(names.index(arg)))
        # anything else (nullable, element-type, array, skip, a typo) says nothing of ownership


def _normal(ctype: str) -> str:
    """A C type as GIR spells it: `const gchar*`, `gchar**`."""
    ctype = " ".join(ctype.split())
    return re.sub(r"\s*\*", "*", ctype).strip()


def _signature(after: str, name: str) -> tuple[str, str, list[tuple[str, str]]] | None:
    """(name, result type, [(type, name)]) of the declaration `after` a block documenting
    `name`, or None where the text is not that function's (a macro, a struct, a typo)."""
    # No nested quantifiers: a block before a long macro line must not backtrack for long.
    # `(name) (args)`: a definition parenthesized past a function-like macro of its name.
    m = re.search(rf"(?:\(\s*)?\b{re.escape(name)}\s*(?:\)\s*)?\(", after)
    if m is None or not re.fullmatch(r"[\w\s*]*", after[:m.start()]):
        return None
    close = after.rfind(")")
    if close < m.end() or not re.fullmatch(r"[\w\s()]*", after[close + 1:]):
        return None
    ret = _QUALIFIERS.sub(" ", after[:m.start()])
    inside = after[m.end():close]
    params = []
    for raw in _split(inside):
        raw = " ".join(raw.split())
        if raw in ("void", ""):
            continue
        if raw == "...":
            params.append(("...", "..."))  # GIR's `<varargs/>` parameter
            continue
        pointer_to_function = re.search(r"\(\s*\*\s*(\w+)\s*\)", raw)
        if pointer_to_function:
            params.append(("gpointer (*)", pointer_to_function.group(1)))
            continue
        pm = re.match(r"(.*?)(\w+)\s*(\[[^]]*\])?$", raw)
        if pm is None or not pm.group(1).strip():
            return None  # an unnamed parameter: positions could not be named
        params.append((_normal(pm.group(1) + ("*" if pm.group(3) else "")), pm.group(2)))
    return name, ret, params


def _split(text: str) -> list[str]:
    """A parameter list split at its top-level commas."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def project_records(paths, max_bytes: int = 16 << 20) -> dict[str, Record]:
    """The records of every project source in `paths` (a file that cannot be read, or a larger
    one, is skipped: the scan never fails a run)."""
    return _project(paths, max_bytes)[0]


def source_text(path: str, max_bytes: int) -> str | None:
    """A source file's text (bytes not UTF-8 replaced), or None where it cannot be read or is larger
    than max_bytes (a generated table is no project's documentation)."""
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError:
        return None
    return data.decode("utf-8", "replace") if len(data) <= max_bytes else None


def _project(paths, max_bytes: int = 16 << 20) -> tuple[dict[str, Record], dict[str, tuple[int, ...]], set[str]]:
    """`project_records`, the documented input takes of every source (`_scan`) and the results
    documented new with no annotation (`unannotated_results`), from one read of each source."""
    out: dict[str, Record] = {}
    takes: dict[str, tuple[int, ...]] = {}
    defaults: set[str] = set()
    clashes: set[str] = set()
    for path in sorted(set(paths)):
        text = source_text(path, max_bytes)
        if text is None:
            continue
        records, taken = _scan(text)
        for name, record in records.items():
            if name in out and out[name] != record:
                clashes.add(name)
            out[name] = record
        for name, positions in taken.items():
            if takes.get(name, positions) != positions:
                clashes.add(name)
            takes[name] = positions
        defaults |= unannotated_results(text)
    twice = _defined_twice(paths, out.keys() | takes.keys() | defaults, max_bytes)
    clashes |= twice
    return ({n: r for n, r in out.items() if n not in clashes},
            {n: t for n, t in takes.items() if n not in clashes and n not in out},
            defaults - twice)


def _defined_twice(paths, names, max_bytes: int) -> set[str]:
    """The documented names that two of the sources define: two functions of one name in two
    binaries of the project (colord's daemon defines a `cd_device_get_metadata (device, key)`
    returning a `const gchar *` of its own, beside the client library's documented `(transfer
    container)` one): which of them a call reaches is the build's choice, so the comment governs
    no call (as two different comments of one name do not)."""
    seen: dict[str, int] = {}
    for path in sorted(set(paths)) if names else ():
        text = source_text(path, max_bytes)
        if text is not None:
            for name in _definitions(text, names):
                seen[name] = seen.get(name, 0) + 1
    return {n for n, k in seen.items() if k > 1}


def _definitions(text: str, names) -> set[str]:
    """Which of `names` the text defines: the name first on its line or after nothing but a type,
    its parameters, then a body (`if (f (x)) {`, `#define f(x) {` and ` * f() is` in a comment
    are no definitions)."""
    return {m.group(1) for m in _HEAD.finditer(text)
            if m.group(1) in names and _DEFINED.match(text, m.end())}



def annotated(conv, paths):
    """`conv` with the records of the project's own gtk-doc annotations in `paths`, below its
    configured records (a `summaries` table, a configured .gir) and above the name patterns and
    the bodies' inference, as a configured .gir's are (`glibpreset.gir_records`: the names whose
    role the patterns decide, retainers and releasers, keep it)."""
    from dataclasses import replace

    from refcheck.conventions.glibpreset import gir_records
    from refcheck.conventions.records import RecordError

    found, takes, defaults = _project(paths)
    tables = {n: r for n, r in found.items() if n not in conv.summaries}
    if takes:
        conv = replace(conv, documented_takes={n: t for n, t in takes.items() if n not in conv.summaries})
    defaults = defaults - found.keys() - conv.summaries.keys()
    if defaults:
        conv = replace(conv, documented_results=frozenset(defaults))
    if not tables:
        return conv
    records = {}
    for name, table in tables.items():
        try:
            records.update(gir_records(conv, {name: table}, "gtk-doc"))
        except RecordError:
            continue  # a record the converter made that the checker refuses says nothing
    return replace(conv, summaries={**records, **conv.summaries}) if records else conv
