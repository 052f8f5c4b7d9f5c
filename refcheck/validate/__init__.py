"""Validation of refcheck against the runtime it was built for.

The clean gate says refcheck finds nothing in `runtime/`; the mutation harness breaks one
ownership rule at a time in a copy of it and asks two witnesses whether they notice: refcheck
(static) and the runtime's own tests under sanitizers and live-object counters (dynamic).
"""
