"""The questions the frontend and the analysis ask of a `Conventions` object about one name."""

from __future__ import annotations

import re
from functools import cached_property, lru_cache

from refcheck.conventions.summary import DEFAULT, Counts, Effect, ErrorCondition, Returns, Source, Summary
from refcheck.conventions.summary import resolve as _resolve

# A type prefix: a capitalised or TH-style identifier before the first underscore, followed by
# the verb (`THCudaTensor_free`, `THMapAllocatorContext_new`); not `_THError`, not `c10::...`.
_GIVE_UPS = (Effect.RELEASE, Effect.CONSUME, Effect.CLEAR)
_PREFIX = re.compile(r"^([A-Za-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)_[A-Za-z]\w*$")


@lru_cache(maxsize=None)
def _pattern(text: str) -> re.Pattern:
    return re.compile(text)


class Queries:
    """Per-name answers read off the fields (patterns, tables) of the `Conventions` dataclass that
    inherits it: which role a name has, which arguments it sinks, formats or returns, its family."""

    def pattern_value(self, table: str, name: str):
        """The value of `table`'s first pattern that matches `name` (its argument positions...)."""
        if name:
            for pattern, value in self._tables[table]:
                if pattern.search(name):
                    return value
        return None

    def exit_macro(self, callee: str) -> str | None:
        """The pattern of the macro names whose expansion makes a call to `callee` an exit."""
        return self.pattern_value("exit_macros", callee) if self.exit_macros else None

    def matches(self, kind: str, name: str) -> bool:
        return bool(name) and self._compiled[kind].search(name) is not None

    def condition_argument(self, name: str) -> int | None:
        for pattern, index in self._conditional:
            if pattern.search(name):
                return index
        return None

    def error_condition(self, name: str) -> ErrorCondition | None:
        """Where a conditional error call's condition is, and on which truth value it raises."""
        return self.summary(name).error_condition

    def pattern_error_condition(self, name: str) -> ErrorCondition | None:
        """Where the name patterns put a conditional error call's condition."""
        index = self.condition_argument(name)
        if index is not None:
            return ErrorCondition(index, raises_when=False)
        index = self.pattern_value("error_if_nonzero", name)
        return ErrorCondition(index, raises_when=True) if index is not None else None

    def sink_arguments(self, name: str, nargs: int) -> frozenset[int]:
        """The argument positions (0-based, resolved against nargs) a call keeps the reference of."""
        return self.summary(name).positions(Effect.SINK, nargs)

    def is_sink(self, name: str) -> bool:
        """A callee that keeps (sinks) some argument, by the patterns or a configured record."""
        return any(e is Effect.SINK for _, e in self.summary(name).arguments)

    def format_argument(self, name: str, nargs: int) -> int | None:
        """The index of a Py_BuildValue-style format argument of a call, or None."""
        index = self.pattern_value("format_arguments", name)
        return _resolve(index, nargs) if index is not None else None

    def parse_format(self, name: str, nargs: int) -> tuple[int | None, int] | None:
        """(the format's index or None, the first output's index) of a PyArg_Parse-style call."""
        found = self.pattern_value("parse_formats", name)
        if found is None:
            return None
        fmt, first = found
        return (_resolve(fmt, nargs) if fmt >= 0 else None), first

    def returned_argument(self, name: str, nargs: int) -> int | None:
        """The argument an acquirer may hand back (+1) instead of a fresh object, or None: fresh."""
        index = self.pattern_value("may_return_argument", name)
        return _resolve(index, nargs) if index is not None else None

    def acquires_fresh(self, callee: str) -> bool:
        """An acquirer whose result is never an object that existed before the call: not one
        that may return its argument (newContiguous), nor a reallocation (realloc may return
        the block it was given)."""
        if callee == "new":
            return True
        s = self.summary(callee)
        if s.returns is not Returns.OWNED or s.returned is not None:
            return False
        # A project's own acquirer (a record inferred from its body) keeps the general rule: its
        # name says nothing, and its body mostly wraps an allocating constructor (guppy3's
        # NyMutBitSet_New); the library's records are the documented ones.
        return self._fresh is None or s.source is Source.INFERRED or self._fresh.search(callee) is not None

    def constructs(self, callee: str) -> bool:
        """A library constructor the preset names in `fresh_results`: its result was made by the
        call, so it is none of the `singletons` (which exist before any call). Not a project's
        inferred acquirer: `Py_RETURN_NONE` gives a new reference to None."""
        return self._fresh is not None and self._fresh.search(callee) is not None and \
            self.summary(callee).source is not Source.INFERRED

    @cached_property
    def _fresh(self) -> re.Pattern | None:
        if self.fresh_results is None:
            return None
        return re.compile("|".join(f"(?:{p})" for p in self.fresh_results) or r"(?!)")

    def identity_test(self, callee: str) -> re.Pattern | None:
        """For an acquirer that returns its argument only when a test of it holds: the test's
        name pattern (`isContiguous` for newContiguous); None otherwise."""
        test = self.pattern_value("argument_returned_only_if", callee)
        return _pattern(test) if test is not None else None

    def family(self, name: str, record: str = "", by_prefix: bool = True) -> str | None:
        """The family of an acquirer or releaser: the `families` table's, else the record type
        its result points to (`record`, for an acquirer), else the name's type prefix
        (`THFloatTensor` of THFloatTensor_newWithSize); None: unknown, matches any. A
        configured summary's `family` wins."""
        configured = self.summaries.get(name)
        if configured is not None and configured.family is not None:
            return configured.family
        found = self.pattern_value("families", name)
        if found is not None:
            return found
        inferred = self.summary(name) if name and self.inferred is not None else DEFAULT
        if inferred.source is Source.INFERRED and (inferred.any_family or inferred.family is not None):
            # What the body hands out says more than the result's type: a helper returning
            # PyMem_Calloc'd `cairo_glyph_t *` is PyMem_Free's to release; one returning what
            # allocators of several families made, any releaser's.
            return None if inferred.any_family else inferred.family
        if inferred.source is Source.INFERRED and inferred.returns is not Returns.OWNED and (
                inferred.frees_contents or any(e in _GIVE_UPS for _, e in inferred.arguments)):
            # A releaser only its body describes (it gives an argument up, or what it loads
            # through one: a cleanup function's `*p`) releases with the calls in that body,
            # whatever its name: python-sdbus's `PyObject_cleanup (PyObject **o) { Py_XDECREF
            # (*o); }` is no `PyObject_Free`, whose family its prefix would name.
            return inferred.family
        return self._named_family(name, record, by_prefix)

    def _named_family(self, name: str, record: str, by_prefix: bool) -> str | None:
        """`family` from the record type its result points to, else the name's prefix."""
        if record:
            return next((f for lib in self.libraries for f in [lib.record_family(record)] if f), record)
        if not by_prefix:  # a block of scalars: no type of the name's
            return None
        m = _PREFIX.match(name or "")
        return m.group(1) if m else None

    def same_size_arguments(self, name: str, nargs: int, test: bool = False) -> tuple[int, int] | None:
        """For a size-establishing call (or, with test=True, a same-size test) the two argument
        positions whose element counts it makes (or finds) equal."""
        pair = self.pattern_value("same_size_test" if test else "same_size", name)
        if pair is None:
            return None
        a, b = (_resolve(i, nargs) for i in pair)
        return (a, b) if a is not None and b is not None and a != b else None

    def may_raise_call(self, name: str) -> bool:
        """A call that may raise an error and return to nobody (errors="unwind": an exit)."""
        return bool(name) and (name in self.unit_may_raise or self.summary(name).may_raise)

    def is_primitive(self, function: str) -> bool:
        """The function being checked implements a primitive: its parameters are not tracked."""
        return any(self.matches(k, function) for k in ("release", "consume", "retain", "primitive"))

    def returns_owned(self, function: str) -> bool:
        """The function being checked may return an owned reference (RC004 does not apply)."""
        return any(self.matches(k, function) for k in ("acquire", "reallocate", "primitive"))

    def classify(self, name: str) -> str | None:
        """The role of a callee, most specific first; None for a call that just borrows."""
        return self.summary(name).role

    def pattern_role(self, name: str) -> str | None:
        """The role the name patterns give `name`, most specific first."""
        for kind in ("release", "consume", "retain", "reallocate", "error", "exit", "acquire"):
            if self.matches(kind, name):
                return kind
        return None

    def counts(self, name: str) -> Counts:
        """What a declaration named `name` says of the unit's counted types (`handles.counted_types`):
        remembered per name, as every unit of a code base walks the same headers' declarations
        (libmbim: 345,000 declarations over 60 units, four pattern searches each)."""
        cache = self._counts
        if name not in cache:
            cache[name] = (Counts.RESULT if self.matches("acquire", name) or self.matches("reallocate", name) else
                           Counts.ARGUMENT if self.matches("release", name) or self.matches("retain", name) else
                           Counts.NOTHING)
        return cache[name]

    @cached_property
    def _counts(self) -> dict[str, Counts]:
        return {}

    def counts_cache(self) -> dict[str, Counts]:
        """The names `counts` answered so far (read only): a walk over thousands asks it first."""
        return self._counts

    def library_records(self, name: str) -> tuple[Summary, ...]:
        """The records `libraries` give `name` were its library's headers to declare it."""
        return tuple(s for lib in self.libraries for s in [lib.record(name)] if s is not None) if name else ()
