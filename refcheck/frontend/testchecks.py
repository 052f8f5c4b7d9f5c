"""A test check: a call handed a condition followed by the condition's own text (issue 32,
glib46: msitools' Wine-style `#define ok(cond, desc, ...) _ok (cond, #cond, desc, ...)`).

A macro that passes `#cond` after `cond` is an assertion's shape (cmocka's `_assert_true (c,
#c, ...)`, a test suite's `ok`): where the condition fails, the run is a failed test, whether
the check aborts or only prints `FAIL` and goes on. What a path past a failed check leaks or
releases twice is the test's failure, not a finding: that path ends there (a `stop`, as after an
assertion), and the path on which the check holds goes on with the condition known (`ok (!hdb,
"expected failure")` after a call meant to fail: hdb is NULL, nothing to release). The condition
is a truth value (an integer or bool argument: `g_object_set (o, "width", width, NULL)` names a
property before its value, not a condition's text after it).
"""

from __future__ import annotations

import re

from refcheck.frontend.clangutil import K, expr_text, has_pointer_type, has_scalar_type, kind_of, strip

_SPACE = re.compile(r"\s+")
_INVOCATION = re.compile(r"\s*[A-Za-z_]\w*\s*\(")


def checked_condition(c, args: list) -> int | None:
    """The position of a truth-valued argument of call `c` the next argument spells as a string
    literal that is, whitespace aside, an argument of the macro invocation written at `c`."""
    written = ""
    spelled = None
    for i, (a, text) in enumerate(zip(args, args[1:])):
        literal = strip(text)
        if kind_of(literal) != K.STRING_LITERAL or not has_scalar_type(a) or has_pointer_type(a):
            continue
        if spelled is None:
            written = expr_text(c, limit=2000)
            spelled = _macro_arguments(written)
        # The literal is not written at the call (`check (flag, "flag")`): the macro's `#` made it.
        if _unquoted(literal.spelling) in spelled and literal.spelling not in written:
            return i
    return None


def _macro_arguments(text: str) -> frozenset:
    """The arguments of the invocation `text` (`ok (!db, "x")`), whitespace removed; none where
    `text` is no `name (...)` (a call written out, not a macro's)."""
    m = _INVOCATION.match(text)
    if m is None:
        return frozenset()
    out, depth, quote, part = [], 0, "", []
    body = text[m.end():]
    for i, ch in enumerate(body):
        if quote:
            if ch == quote and body[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                out.append("".join(part))
                break
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(part))
            part = []
            continue
        part.append(ch)
    return frozenset(t for t in (_SPACE.sub("", p) for p in out) if t)


def lower_check(lowering, loc, name: str, args: list, tested: int) -> None:
    """The other arguments, then a branch on the condition whose failing edge ends the path."""
    for i, a in enumerate(args):
        if i != tested:
            lowering.value(a)
    b = lowering.b
    ok, fail = b.node("block"), b.node("stop", loc, text=name)
    lowering.branch(args[tested], ok, fail)
    b.cur = ok
    return None


def _unquoted(spelling: str) -> str:
    """A string literal's text as the preprocessor's `#` wrote it, whitespace removed."""
    if len(spelling) < 2 or not spelling.startswith('"') or not spelling.endswith('"'):
        return ""
    return _SPACE.sub("", spelling[1:-1].replace('\\"', '"').replace("\\\\", "\\"))
