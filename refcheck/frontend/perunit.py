"""A value computed once per translation unit and kept while that unit lives (the frontend's caches)."""

from __future__ import annotations

import weakref
from typing import Callable, Generic, TypeVar

from refcheck.frontend.binding import file_named, outside_system, top_level
from refcheck.frontend.clangutil import K, kind_of
from refcheck.frontend.unit import in_system_dir

T = TypeVar("T")


class PerUnit(Generic[T]):
    """The value of the unit asked last: a worker checks its units one after another, so one slot
    is enough. The unit is held by weak reference, so that a cache never keeps a parsed unit (and
    its cursors) alive, and a new unit at a freed one's address is not mistaken for it."""

    __slots__ = ("_ref", "_value")

    def __init__(self) -> None:
        self._ref = None
        self._value: T | None = None

    def of(self, tu, make: Callable[[], T]) -> T:
        """The unit's value, `make()` on the first call for this unit."""
        if self._ref is None or self._ref() is not tu:
            self.put(tu, make())
        return self._value

    def held(self, tu) -> T | None:
        """The unit's value if it was made, else None (made by nobody here)."""
        return self._value if self._ref is not None and self._ref() is tu else None

    def put(self, tu, value: T) -> None:
        """Makes `value` the unit's (a caller that has it already at hand)."""
        self._ref, self._value = weakref.ref(tu), value

    def forget(self) -> None:
        self._ref = self._value = None


def user_tops(tu) -> list:
    """The unit's top-level cursors outside system headers (`in_system_header`'s verdict, its
    name test kept per file): a GLib unit has ~9,500, nearly all from a few dozen headers, and a
    CPython unit ~4,300 (Python.h's, through -I); their locations, asked in one compiled query
    (binding.outside_system), were most of the walk there."""
    # The preprocessor's cursors aside (binding.top_level, compiled where built): they hold none
    # of the kinds read, and the binding's `get_children` was half of this loop on pylzma.
    return outside_system(top_level(tu.cursor)[0], lambda f: in_system_dir(file_named(f).name))


def own_definitions(tu) -> list:
    """The function definitions at the unit's top level outside system headers."""
    return [fn for fn in user_tops(tu) if kind_of(fn) == K.FUNCTION_DECL and fn.is_definition()]
