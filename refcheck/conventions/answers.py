"""What a call to a name does, as one record: a configured record, else the library's table, else
the name patterns', else (where those say nothing) the record inferred from the callee's body."""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property

from refcheck.conventions.naming import from_patterns
from refcheck.conventions.refine import GIVEN, RESULT_ONLY, kept_arguments, refined
from refcheck.conventions.summary import DEFAULT, Effect, Returns, Source, Summary, Tracked


class Answers:
    """Mixed into `Conventions`, whose fields (`summaries`, `library_summaries`, `inferred`,
    `refine_patterns`) it reads."""

    def summary(self, name: str, library: bool = True, body: str | None = None) -> Summary:
        """What a call to `name` does: a configured record, else the library's table (the cpython
        preset's; skipped with library=False, for a callee declared outside the library's
        headers), else the names' record, else (where the names say nothing) the summary
        inferred from its body, else the default. `body`: the key of the body's record where it
        is not the name (a C++ overload's, `frontend.overloads`)."""
        if self.inferred is None:
            return self._answer(name, library, None)
        get = self.inferred.get
        return self._answer(name, library, get if body is None else (lambda _: get(body)))

    def refines(self, name: str, record: Summary) -> bool:
        """Whether `record`, inferred for `name`, changes what a call to it does (a pattern's
        acquirer whose body keeps nothing of its arguments does not): phase 2 checks a unit
        again only where a record new to the run's table changes an answer it used."""
        given = lambda n: record  # noqa: E731
        return any(self._answer(name, lib, given) != self._answer(name, lib, lambda n: None)
                   for lib in (True, False))

    def _answer(self, name: str, library: bool, inferred) -> Summary:
        """`summary`, reading inferred records through `inferred(name)` (None: there are none)."""
        if not library:
            s = self.summaries.get(name) or (from_patterns(self, name) if name else DEFAULT)
        else:
            s = self._named(name)
        # Where the names and tables say nothing, or say borrowed, the body may say more.
        if s.source is Source.DEFAULT and inferred is not None and name:
            body = inferred(name)
            if body is not None and body.result_kept and not replace(body, result_kept=False).says_something:
                body = None  # only the keeper's borrowed result: a documented new one is believed
            return body or self._documented_default(name, s)
        if s.returns is Returns.BORROWED and s.source is Source.CONFIGURED and inferred is not None and name:
            return refined(s, inferred(name))
        # A pattern's acquirer (`dconf_changeset_new_write (path, value)`), or a record of the result
        # alone (gtk-doc's dex_future_new_for_pointer), says nothing of the arguments: the body may.
        if s.returns is Returns.OWNED and s.source in RESULT_ONLY and not (s.arguments or s.variadic) \
                and self.refine_patterns and inferred is not None and name:
            body = inferred(name)
            s = kept_arguments(s, body, GIVEN)
            # A name's `_new` whose body hands every object it returns to a keeper first
            # (`Summary.result_kept`) returns the keeper's reference; a documented one is believed.
            if body is not None and body.result_kept and s.source is Source.CONVENTIONS:
                s = replace(s, returns=Returns.BORROWED, family=None, any_family=False, source=Source.INFERRED)
            return s
        # A name the patterns make a releaser of every argument whose body releases some of its
        # parameters itself (`verify_and_free (sources, n, expected_names, k)`): those are the ones.
        # One whose body frees only what its parameters hold says so, all borrowed (libnice's
        # `discovery_free (agent)`: `Summarizer.frees_only_contents`).
        if s.source is Source.CONVENTIONS and s.effect_of(Tracked.EVERY) is Effect.RELEASE \
                and self.refine_patterns and inferred is not None and name:
            body = inferred(name)
            if body is not None and body.arguments and all(e in (Effect.RELEASE, Effect.BORROW) for _, e in body.arguments):
                return replace(s, arguments=body.arguments, source=Source.INFERRED)
        return s

    def without_patterns(self, name: str) -> Summary:
        """What a call to `name` does with the names' record set aside, where the call's types deny
        it (`frontend.typedpatterns`): the body's inferred record, else the default."""
        body = self.inferred.get(name) if self.inferred is not None and name else None
        return body or self._documented_default(name, DEFAULT)

    def _documented_default(self, name: str, s: Summary) -> Summary:
        """g-ir-scanner's `full` for a result the project's gtk-doc documents unannotated
        (`gtkdoc.unannotated_results`), where no body said anything (none, or one not fully
        checked: librest's rest_xml_parser_parse_from_data): the default's borrowed is a guess."""
        if name in self.documented_results:
            return replace(s, returns=Returns.OWNED, source=Source.CONVENTIONS)
        return s

    def _named(self, name: str) -> Summary:
        """A configured record, else the library's table, else the patterns' record (cached)."""
        s = self._summaries.get(name)
        if s is None:
            s = self.summaries.get(name) if name else None
            if s is None and name:
                s = self.library_summaries.get(name)
            if s is None:
                s = from_patterns(self, name) if name else DEFAULT
            if len(self._summaries) > 100_000:
                self._summaries.clear()
            self._summaries[name] = s
        return s

    @cached_property
    def _summaries(self) -> dict[str, Summary]:
        return {}
