"""A call's result lowered from its callee's record: a new reference (split where the call's
error shows), one owned by a flag output, a borrowed result, or an argument handed back; a mixin
of `calls.CallLowering`.
"""

from __future__ import annotations

import clang.cindex as ci

from dataclasses import replace

from refcheck import ir
from refcheck.conventions.summary import Returns, resolve
from refcheck.frontend import flagfail, indicator, taskerrors
from refcheck.frontend.argtypes import points_to_scalar
from refcheck.frontend.binding import arguments
from refcheck.frontend.callparts import record_pointee
from refcheck.frontend.clangutil import has_pointer_type
from refcheck.frontend.conditions import _subkey
from refcheck.frontend.errorslots import slot_split
from refcheck.frontend.flags import flag_split
from refcheck.frontend.gerrors import error_out_local, error_split
from refcheck.frontend.steals import builds_container


class CallResults:
    """The result half of `CallLowering` (`self.b` is its GraphBuilder)."""

    def acquired(self, c, loc, name: str, args: list, summary, values: list, tracked: list, flags: dict,
                 t: str | None = None) -> str:
        """A new reference's result (into t where given), split where an error slot, a flag, the
        error indicator or a task's error says the call failed."""
        t = self.acquisition(c, loc, name, summary, values, tracked, t)
        error = error_out_local(self.b, args)
        if error is not None:
            error_split(self.b, loc, name, t, error)
        else:
            slot_split(self.b, loc, name, t, args)
        if flags:
            flagfail.split_result(self.b, loc, name, t, flags)
        indicator.split_result(self.b, c, loc, name, t)
        taskerrors.split_result(self.b, loc, name, t, args)
        return t

    def flag_local(self, summary, args: list) -> str | None:
        """The local `v` of the `&v` where the record's flag output says whether the result is
        owned (`frontend.flags`), else None."""
        if not summary.owned_by_flag or summary.owned_by_flag[0] >= len(args):
            return None
        return self.address_of_local(args[summary.owned_by_flag[0]])

    def flagged(self, c, loc, name: str, args: list, summary, values: list, positions: list, tracked: list) -> str:
        """An owned result as the flag output at `&v` says (`frontend.flags`): owned on one edge,
        on the other the argument it hands back, else a borrowed object."""
        return flag_split(self.b, loc, name, self.flag_local(summary, args), summary.owned_by_flag[1],
                          lambda t: self.acquisition(c, loc, name, summary, values, tracked, t),
                          lambda: self.returned_value(c, replace(summary, returns=Returns.ARGUMENT), values,
                                                      positions) or self.borrowed_result(loc, name, args))

    def acquisition(self, c, loc, name: str, summary, values: list, tracked: list, t: str | None = None) -> str:
        """An owned result: fresh, or possibly the argument the record says it may hand back."""
        t = t or self.b.temp(f"{name}(...)")
        index = resolve(summary.returned, len(values)) if isinstance(summary.returned, int) else None
        source = values[index] if index is not None and values[index] in tracked else None
        unless = ir.SINGLETON_KEY + summary.unless_singleton if summary.unless_singleton else ""
        fresh = source is None and builds_container(self.b, name, arguments(c))
        self.b.emit(ir.Acquire(loc, t, name, source, record_pointee(c), scalars=points_to_scalar(c), unless=unless,
                               nonnull=self.b.conv.matches("never_null", name), fresh=fresh, held=summary.result_held))
        return t

    def borrowed_result(self, loc, name: str, args: list) -> str:
        """A borrowing call's pointer result: tracked as borrowed, so that releasing it is RC010
        and handing it to a sink without a retain RC009. The same getter of the same unchanged
        arguments gives the same object back (`retain(THMemoryFile_storage(self));
        pushudata(L, THMemoryFile_storage(self))`)."""
        t = self.b.temp(f"{name}(...)")
        keys = [_subkey(a, self.b) for a in args]
        key, deps = "", frozenset()
        if all(k is not None for k in keys):
            key = f"result:{name}( " + " ".join(k[0] for k in keys)
            deps = frozenset(v for k in keys for v in k[1])
        self.b.emit(ir.Load(loc, t, f"{name}(...)", deps, key, call=name))
        return t

    def returned_value(self, c, summary, values: list, positions: list):
        """A call that returns one of its arguments itself (an inferred `return x;`): that value."""
        index = (resolve(summary.returned, len(values)) if summary.returns is Returns.ARGUMENT
                 and isinstance(summary.returned, int) else None)
        # In a template's pattern a call given a dependent argument has no type yet (greenlet's
        # `Require (PyObject_GetAttrString (this->p, name), name)`): its record still says.
        typed = has_pointer_type(c) or c.type.kind == ci.TypeKind.DEPENDENT
        return values[index] if index is not None and index in positions and typed else None
