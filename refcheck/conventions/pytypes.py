"""CPython's built-in types as type-check macros test them and as API results always are (issue 31).

pyodbc encodes a str cell with `PyUnicode_AsUTF8String` (or `AsEncodedString`, ...), keeps the
result under `if (bytes && PyBytes_Check (bytes))` and releases it later under `PyBytes_Check
(objCell)`: a non-NULL result of those encoders is bytes, so the paths where either test fails
with it held do not exist. The families below have instance layouts of their own, so no class
derives from two of them: an object of one fails every other family's `_Check`. `exact`: the
result is the type itself, never a subclass (it decides `_CheckExact` too).
"""

from __future__ import annotations

import re

# The family each check macro's prefix tests (`PyBytes_Check`, `PyBytes_CheckExact`).
CHECKS: dict[str, str] = {
    "PyBytes": "bytes", "PyByteArray": "bytearray", "PyUnicode": "str", "PyLong": "int",
    "PyFloat": "float", "PyComplex": "complex", "PyList": "list", "PyTuple": "tuple", "PyDict": "dict",
}

_BYTES = ("bytes", False)  # a codec's or __bytes__'s result: bytes, maybe a subclass
_STR = ("str", False)
# What a non-NULL result of each API function is: (family, exact). Only results documented as
# that type (the encoders check their codec's result is bytes) and constructors of it.
RESULTS: dict[str, tuple[str, bool]] = {
    **{f"PyUnicode_As{x}String": _BYTES for x in (
        "UTF8", "UTF16", "UTF32", "ASCII", "Latin1", "Encoded", "UnicodeEscape", "RawUnicodeEscape",
        "Charmap")},
    "PyUnicode_EncodeFSDefault": _BYTES, "PyUnicode_EncodeLocale": _BYTES, "PyObject_Bytes": _BYTES,
    **{f"PyBytes_From{x}": ("bytes", True) for x in ("String", "StringAndSize", "Format", "FormatV")},
    **{f"PyByteArray_From{x}": ("bytearray", True) for x in ("StringAndSize", "Object")},
    **{f"PyUnicode_{x}": ("str", True) for x in (
        "FromString", "FromStringAndSize", "FromFormat", "FromFormatV", "FromWideChar", "FromOrdinal",
        "FromKindAndData", "FromObject", "New", "DecodeUTF8", "DecodeFSDefault", "DecodeFSDefaultAndSize",
        "DecodeLocale", "DecodeLatin1", "DecodeASCII")},
    "PyObject_Str": _STR, "PyObject_Repr": _STR, "PyObject_ASCII": _STR,
    **{f"PyLong_From{x}": ("int", True) for x in (
        "Long", "UnsignedLong", "LongLong", "UnsignedLongLong", "Ssize_t", "Size_t", "Double",
        "String", "VoidPtr")},
    "PyFloat_FromDouble": ("float", True), "PyFloat_FromString": ("float", True),
    "PyComplex_FromDoubles": ("complex", True),
    "PyList_New": ("list", True), "PyList_GetSlice": ("list", True), "PySequence_List": ("list", True),
    "PyTuple_New": ("tuple", True), "PyTuple_Pack": ("tuple", True), "PyList_AsTuple": ("tuple", True),
    "PySequence_Tuple": ("tuple", True),
    "PyDict_New": ("dict", True), "PyDict_Copy": ("dict", True),
}

_CHECK = re.compile(r"(Py[A-Za-z]+)_Check(Exact)?\s*\(\s*([A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)\s*\)")


def check_of(text: str) -> tuple[str, bool, str] | None:
    """(family, exact, argument text) when `text` is exactly one check macro of a variable or a
    member access (`PyBytes_Check(objCell)`, `PyUnicode_Check(pInfo->cell)`), else None."""
    m = _CHECK.fullmatch(text.strip())
    if m is None or m.group(1) not in CHECKS:
        return None
    return CHECKS[m.group(1)], m.group(2) is not None, m.group(3)


def answer(callee: str, family: str, exact: bool) -> bool | None:
    """The check's answer on a non-NULL result of `callee`; None where its type is not known."""
    known = RESULTS.get(callee)
    if known is None:
        return None
    if known[0] != family:
        return False  # another family: no object is of two
    if not exact or known[1]:
        return True
    return None  # maybe a subclass: `_CheckExact` undecided
