"""Results that are the caller's buffer or the callee's own allocation (issue 31, ultrajson).

C's small-buffer idiom: the caller hands a function a local array, and the function returns a
pointer that is either that array (the output fit) or a block it allocated (it did not):
ultrajson's `ret = JSON_EncodeObject (o, &encoder, buffer, sizeof (buffer), &len); ... if (ret
!= buffer) encoder.free (ret);`, glibc's `asnprintf (buf, &len, ...)`. Freeing the result where it
is not the buffer is the protocol, not the release of something lent. A pointer result of a
callee nothing describes (no record, no pattern, no body in the unit) given such an array, of the
array's own element type, is therefore of unknown ownership: not tracked as a borrowed result (no
RC010 where the caller frees it). A call given no local array, or one of another element type,
keeps today's borrowed result, and so does a system header's function: libc's that take a buffer
(`fgets`, `ctime_r`, `inet_ntop`) return it, never a block of their own, so freeing the result is
still RC010.
"""

from __future__ import annotations

import clang.cindex as ci

from refcheck.conventions.summary import Source
from refcheck.frontend.binding import referenced, semantic_parent
from refcheck.frontend.clangutil import FUNCTION_KINDS, K, kind_of, strip
from refcheck.frontend.unit import in_system_header

_ARRAYS = (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY)


def buffer_or_own(c, decl, args: list, summary) -> bool:
    """Whether call `c` of `decl` (its record `summary`) returns the caller's buffer or its own
    block: an undescribed project callee handed a local array whose elements are of the result's
    pointee type."""
    if summary.source is not Source.DEFAULT or decl is None or decl.location.file is None:
        return False
    if in_system_header(decl.location):
        return False
    t = c.type.get_canonical()
    if t.kind != ci.TypeKind.POINTER:
        return False
    pointee = t.get_pointee().get_canonical()
    if pointee.kind in (ci.TypeKind.VOID, ci.TypeKind.RECORD):
        return False  # untyped results are already unknown; a struct is an object, not a buffer
    return any(_local_array_of(a, pointee) for a in args)


def _local_array_of(arg, element) -> bool:
    """`arg` names a local array (of the calling function's frame) of `element`s."""
    e = strip(arg)
    if e is None or kind_of(e) != K.DECL_REF_EXPR:
        return False
    var = referenced(e)
    if var is None or kind_of(var) != K.VAR_DECL or var.storage_class == ci.StorageClass.STATIC:
        return False
    scope = semantic_parent(var)
    if scope is None or kind_of(scope) not in FUNCTION_KINDS:
        return False
    t = var.type.get_canonical()
    if t.kind not in _ARRAYS:
        return False
    return t.get_array_element_type().get_canonical().kind == element.kind
