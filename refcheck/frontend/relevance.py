"""Whether a function's body could produce a finding, decided on its cursors before its graph
is built (`can_find_anything`): a body with no ownership role in it is skipped, and gives no
summary."""

from __future__ import annotations

import functools

from refcheck.ir.cfg import FunctionRole
from refcheck.conventions import Conventions
from refcheck.conventions.summary import Effect, Returns, Source
from refcheck.frontend.binding import arguments
from refcheck.frontend.clangutil import (SCALAR_KINDS, K, binop, constant, converted_constant, has_pointer_type,
                                         has_scalar_type, kind_of, referenced, strip, unop)
from refcheck.frontend.argtypes import indirect_unknown
from refcheck.frontend.clangutil import kids as children_of
from refcheck.frontend.graph import installed_record, resolved_callee
from refcheck.frontend.overloads import record_of
from refcheck.frontend.intrusive import linking_parameters
from refcheck.frontend.replaced import replacing_parameters
from refcheck.frontend.ownedfields import owning_field_parameters
from refcheck.frontend.setters import reaching_locals, stores_parameter, takes_notify
from refcheck.frontend.slots import role_of

# Call roles and expressions that create, hand over or end an owned reference. A body with none of
# them holds no owned reference and releases nothing, so no rule can fire in it.
OWNERSHIP_ROLES = ("acquire", "reallocate", "retain", "release", "consume")
OWNERSHIP_KINDS = {K.CXX_NEW_EXPR, K.CXX_DELETE_EXPR, K.LAMBDA_EXPR}


def returns_parameter(ret) -> bool:
    """`return p;` of a pointer parameter p (through casts): a chaining setter or initialiser,
    whose callers hold what they passed in (`add(list, init(alloc(), 3))`)."""
    kids = list(children_of(ret))
    return bool(kids) and names_parameter(kids[0])


def returns_unknown_result(ret, conv: Conventions) -> bool:
    """`return f (...);` of a project function whose body was seen to return what nobody counts
    (an inferred `unknown` result: a `gpointer` taken from a container, then referenced), or of a
    call through a function pointer (`argtypes.indirect_unknown`). The
    forwarder's record says so too; without one its callers in other units would take the result
    as borrowed (the bodiless default) and report its release (RC010)."""
    kids = list(children_of(ret))
    e = strip(kids[0]) if kids else None
    return e is not None and kind_of(e) == K.CALL_EXPR and has_pointer_type(e) and unknown_result(e, conv)


def unknown_result(call, conv: Conventions) -> bool:
    """A call whose pointer result nobody counts: a project function's, inferred so, or a call
    through a function pointer (a virtual method's wrapper, `return klass->finish (self, result,
    error);`, forwards what the implementations return: unknown too)."""
    summary = record_of(conv, *resolved_callee(call, conv))
    return (summary.returns is Returns.UNKNOWN and summary.source is Source.INFERRED) or indirect_unknown(call, summary)


def _local_pointer(e):
    """The local pointer variable's declaration that expression e (stripped) names, else None."""
    e = strip(e) if e is not None else None
    if e is None or kind_of(e) != K.DECL_REF_EXPR or not has_pointer_type(e):
        return None
    target = referenced(e)
    return target if target is not None and kind_of(target) == K.VAR_DECL else None


def filled_locals(call) -> list:
    """The local pointers v of the call's `&v` arguments: what the call stores there."""
    found = []
    for a in arguments(call):
        inner = strip(a) if a is not None else None
        if inner is not None and kind_of(inner) == K.UNARY_OPERATOR and unop(inner) == "&":
            v = _local_pointer(next(iter(children_of(inner)), None))
            if v is not None:
                found.append(v)
    return found


def returned_local(ret):
    """The local pointer variable of `return v;`, else None."""
    kids = list(children_of(ret))
    return _local_pointer(kids[0]) if kids else None


def _parameter_null_test(c) -> bool:
    """`p == NULL`, `p != NULL` or `!p` of a pointer parameter p."""
    k = kind_of(c)
    if k == K.UNARY_OPERATOR and unop(c) == "!":
        sides = list(children_of(c))
    elif k == K.BINARY_OPERATOR and binop(c) in ("==", "!="):
        sides = list(children_of(c))
        if len(sides) != 2 or not any(_null(s) for s in sides):
            return False
    else:
        return False
    return any(names_parameter(s) for s in sides)


def _null(c) -> bool:
    s = strip(c)
    return kind_of(s) in (K.GNU_NULL_EXPR, K.CXX_NULL_PTR_LITERAL_EXPR) or constant(s) == 0


def names_parameter(e) -> bool:
    """`e` (through casts) names a pointer parameter."""
    e = strip(e)
    if kind_of(e) != K.DECL_REF_EXPR or not has_pointer_type(e):
        return False
    target = referenced(e)
    return target is not None and kind_of(target) == K.PARM_DECL


def _nonzero_return(ret) -> bool:
    kids = list(children_of(ret))
    return bool(kids) and has_scalar_type(kids[0]) and converted_constant(kids[0]) not in (None, 0)


def assigned_unknown(c, conv: Conventions):
    """The local pointer `v` of `v = f (...)` or `T *v = f (...)`, a call whose result nobody
    counts (`unknown_result`): egg-asn1x's `string = (allocator) (NULL, n)` with the caller's
    EggAllocator (g_realloc), and `string = egg_asn1x_get_string_as_raw (...)` after it; else None."""
    kids = list(children_of(c))
    if kind_of(c) == K.BINARY_OPERATOR:
        if binop(c) != "=" or len(kids) != 2:
            return None
        target, value = _local_pointer(kids[0]), kids[-1]
    else:
        target, value = (c, kids[-1]) if kids and has_pointer_type(c) else (None, None)
    e = strip(value) if value is not None else None
    if target is None or e is None or kind_of(e) != K.CALL_EXPR:
        return None
    return target if unknown_result(e, conv) else None


def _says_something(summary) -> bool:
    return (summary.role in OWNERSHIP_ROLES or summary.returns is Returns.ARGUMENT
            or any(e is not Effect.BORROW for _, e in summary.arguments) or bool(summary.conditional)
            or bool(summary.variadic))


def can_find_anything(fn, conv: Conventions) -> bool:
    """Whether a function's body could produce a finding, decided on its cursors before its graph
    is built: it must call something the conventions give an ownership role, use new/delete, hold
    a lambda (checked as a function of its own), or be a `new*` function itself (which must not
    return a borrowed reference, RC005, even without a call). The children listed here are the
    builder's too (`kids` keeps them for the build that follows)."""
    name = fn.spelling
    if conv.matches("acquire", name) or conv.matches("reallocate", name):
        return True
    if role_of(fn, conv) is FunctionRole.RETURNS_NEW:  # a slot's new reference, the same RC005
        return True
    reach = functools.cache(lambda: reaching_locals(fn, conv))  # asked for a store through a local only
    notified = functools.cache(lambda: conv.infer_steals and not conv.infer_setters and takes_notify(fn))
    stack = list(children_of(fn))
    # `_atspi_dbus_call (obj, iface, "GetName", error, "i=>s", i, &retval); return retval;`: a
    # local filled through its address by a call no record speaks of, then returned. What the
    # call stored there nobody knows: the record says so ("unknown", as the same unit's callers
    # read a body that is not analysed), else callers in other units take the bodiless
    # default's borrowed result and report its release (RC010). So is a local assigned the result
    # of a call through a function pointer (`assigned_unknown`), then returned.
    filled, returned = set(), set()
    # An integer result that may tell a parameter is NULL (`Summary.null_when_nonzero`): a
    # non-zero constant returned and a parameter tested against NULL, where steals are inferred.
    tells = conv.infer_steals and fn.result_type.get_canonical().kind in SCALAR_KINDS
    told = [False, False]
    while stack:
        c = stack.pop()
        k = kind_of(c)
        if k == K.CALL_EXPR:
            decl, name = resolved_callee(c, conv)
            # A library's record (OpenSSL's get1) counts wherever its headers may declare the
            # callee: which ones do is the build's to say; answering yes only costs a build. An
            # installed .gir's (libsoup's) only where its system header declares it.
            installed = installed_record(conv, decl, name) if conv.installed_gir and decl is not None else None
            if any(_says_something(s) for s in (record_of(conv, decl, name), *conv.library_records(name), installed)
                   if s is not None):
                return True  # any argument effect: a release by position, a sink (RC009), an out-parameter
            filled.update(filled_locals(c))
        elif k in OWNERSHIP_KINDS:
            return True
        elif k == K.UNEXPOSED_ATTR:  # a cleanup attribute releases (frontend.cleanups); others rare
            return True
        elif k == K.RETURN_STMT and returns_parameter(c):
            return True  # its summary: returns that argument (json_node_init_int(node, v) gives node)
        elif k == K.RETURN_STMT and returns_unknown_result(c, conv):
            return True  # its summary: an unknown result, not the default's borrowed one
        elif conv.infer_setters and k == K.BINARY_OPERATOR and stores_parameter(c, reach):
            return True  # its summary: stores that argument (ultrajson's `pc->dictObj = dictObj`)
        elif notified() and k == K.BINARY_OPERATOR and stores_parameter(c, reach):
            # GLib's data/notify pair stored (`self->destroy_data = destroy; self->prompt_data =
            # data;`, gnome-keyring's gkm_wrap_prompt_set_prompt_data): its summary hands the
            # data over (`FunctionCFG.takes_notify`), where no record lends it.
            return True
        elif k == K.RETURN_STMT and (v := returned_local(c)) is not None:
            returned.add(v)
        elif tells and k == K.RETURN_STMT and _nonzero_return(c):
            told[0] = True
        elif tells and _parameter_null_test(c):
            told[1] = True

        elif k in (K.BINARY_OPERATOR, K.VAR_DECL) and (v := assigned_unknown(c, conv)) is not None:
            filled.add(v)
        stack.extend(children_of(c))
    # A GLib setter whose release of the old value is a project helper's (`field_clear (&r->f[i]);
    # r->f[i].u.s = s;`): nothing above has a role, yet its record hands the parameter over.
    return bool(filled & returned) or all(told) \
        or (conv.infer_steals and not conv.infer_setters
            and bool(replacing_parameters(fn, conv) or linking_parameters(fn)
                     or owning_field_parameters(fn, conv)))

