"""A configured or named record refined by what the callee's own body is inferred to do: the
arguments it keeps that the record leaves borrowed, the argument a borrowed result is."""

from __future__ import annotations

from dataclasses import replace

from refcheck.conventions.summary import Effect, Returns, Source, Summary


def refined(record: Summary, inferred: Summary | None) -> Summary:
    """A configured borrowed result (GIR's `transfer none`) that the body shows is an argument
    itself (json_node_init_int(node, v) returns node): the caller keeps holding what it passed;
    and borrowed arguments the body keeps with a reference of its own."""
    if inferred is None:
        return record
    if inferred.returns is Returns.ARGUMENT:
        record = replace(record, returns=Returns.ARGUMENT, returned=inferred.returned)
    return kept_arguments(record, inferred)


# What a body may add to a record that says an argument is only read: it keeps it with a
# reference of its own, or sinks it where floating. Either leaves a full reference the caller's.
KEEPING = (Effect.KEEP, Effect.SINK_FLOATING)
# What a body may add to an acquirer's name, which says nothing of the arguments
# (`dconf_engine_new (profile, user_data, free_func)` stores its user data): all it does to them.
GIVEN = (Effect.RELEASE, Effect.CONSUME, Effect.SINK, Effect.STORE, Effect.KEEP, Effect.SINK_FLOATING,
         Effect.ACQUIRE_OUT)  # SINK and CONSUME read as STORE (`kept_arguments`)
# The records of an owned result that say nothing of the arguments, which the body then may: a
# name's (an acquirer pattern) and a configured one's (a gtk-doc `Returns: (transfer full)` alone).
RESULT_ONLY = (Source.CONVENTIONS, Source.CONFIGURED)


def kept_arguments(record: Summary, inferred: Summary | None, effects: tuple = KEEPING) -> Summary:
    """The record, with the arguments it leaves borrowed that the body keeps: a borrowed
    (`transfer none`) argument it refs and keeps (json_node_set_array: the caller's reference
    stays the caller's, as GIR says, and the object outlives its release), or sinks if floating
    (g_variant_ref_sink and a store: dconf_changeset_set)."""
    if inferred is None:
        return record
    said = {p for p, e in record.arguments if e is not Effect.BORROW}
    kept = {p: e for p, e in inferred.arguments if e in effects and p not in said}
    if Effect.SINK in effects:
        # A constructor stores what it is given in the object it makes (a store its body infers
        # as a sink, or, taken as its own, a consume), as a container keeps an element: an owned
        # reference is handed over, a borrowed one (`G_VARIANT_TYPE ("(s)")` for
        # dconf_engine_call_handle_new's expected type) only lent to it.
        kept = {p: Effect.STORE if e in (Effect.SINK, Effect.CONSUME) else e for p, e in kept.items()}
    if not kept:
        return record
    rest = tuple(a for a in record.arguments if a[0] not in kept)
    return replace(record, arguments=tuple(sorted(rest + tuple(kept.items()), key=str)))
