"""What the transfer tells whoever watches the path it steps: a path's ends and what it hands over."""

from __future__ import annotations


class PathObserver:
    """The hooks `Transfer` calls and the sets it fills as it steps a path; does nothing with them.
    `summarize.Summarizer` reads a function's summary off them; the prepass's probe (`prepass._Ends`)
    only whether a returning end is reached. One base, so that a set the transfer fills exists on
    every observer (an attribute added to the summarizer alone was an AttributeError in the probe)."""

    def __init__(self) -> None:
        # The parameters the body hands to a call that keeps them (a sink's argument), through any
        # local holding them (`XCall *call = data;`): noted by `Transfer.op_store`.
        self.handed: set[str] = set()
        # Those handed to a keeper whose record no cycle assumes (`partly_handed`, `Summary.assumed`).
        self.confirmed: set[str] = set()
        # Per parameter: the names of the cycle's assumed keepers it was handed to (`Summary.leans`).
        self.leaning: dict[str, set[str]] = {}
        # The parameters the body hands to a release (or a consuming call) on some path.
        self.freed: set[str] = set()
        # Parameters handed to a cycle's assumed keeper where the body no longer held them (libgusb's
        # rescan: `for (...) add_device (self, ...)`, explored as owning `self`): a body that gives a
        # parameter away twice on one path cannot be taking its one reference over, so the cycle's
        # assumption that it does is refuted there (`effect`; refcheck.driver.cycles).
        self.overgiven: set[str] = set()
        self.in_containers: set = set()  # objects put into a container a parameter or local reaches
        # Objects a holder outliving the function holds too (a held result or fill, or one a call kept
        # in a global's or a parameter's holder: `ir.Acquire.held`, `ir.Retain.lasting`).
        self.held: set = set()
        # The parameters it stored, returned, took the address of or passed to a call that may keep
        # them, on any path (`Transfer.escape`).
        self.escaped: set[str] = set()

    def at_return(self, node: int, st, value: str | None) -> None:
        """A returning end, returning `value` (a variable) or nothing."""

    def at_error(self) -> None:
        """An error end (a call that does not return, errors=unwind's unwinding)."""

    def at_stop(self) -> None:
        """An end where the program stops."""

    def at_store(self, node: int, st, through: str | None, oid, target: str = "", member: str = "") -> None:
        """A store of `oid` through a pointer or into a member."""

    def at_given(self, st, oid) -> None:
        """`oid` handed to a release or a call that keeps it."""

    def at_contained(self, st, oid) -> None:
        """`oid` put into a container a parameter or local reaches (beside `in_containers`)."""
