"""The verdicts semantics.md gives a loop-free program, by running it down every path.

This is deliberately the dumbest possible second implementation: no CFG, no state merging, no
abstraction. Each path is one concrete execution in which every `if (cN)` condition and every
"did THFloatTensor_newClone return NULL" is fixed, and the findings of all paths are unioned.

Choices are made eagerly (an acquisition is NULL or not when it happens, p is NULL or not on
entry) and remembered (cN tested twice takes the same edge, as does a null test of the same
object), which is what the program would really do. Paths are enumerated by re-running the
function with every sequence of choices, depth first.

It follows semantics.md including its "Decisions since the first version" (numbers below
refer to them). Where the contract is silent, it reads it literally:
- a release of a borrowed parameter (RC006) marks it released: a second free is RC002, a
  dereference RC003 (decision 2); but after `retain(p); free(p);` p is borrowed as before
  (decision 1);
- passing p to THFloatTensor_newClone and retaining it are calls, hence uses (RC003 if released);
- returning a released or consumed reference is RC003 (decision 3), and not also RC005;
- the uses after one release of an object are one RC003, at the first use in the source over
  every path (RC003's "one finding per release"); the release is the last one that took a
  reference of the object (a second release, RC002, leaves it where it was, a consume moves it);
- storing a pointer not owned records a debt per location the next retain pays (decision 4);
- nullness belongs to the object: an alias is null exactly when its original is, a pointer
  found non-null stays non-null, and a variable holding the NULL constant is null.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .untracked import untracked
from .program import (
    NKINDS, NVARS, Acquire, Assign, Discard, Error, Flag, Function, Goto, If, Label, Layout, Move, NullCheck,
    Release, Resize, Retain, Return, SizeCheck, Store, Switch, Use,
)

# A finding, as the comparison sees it: (rule, primary line). A leak (RC001) or overwrite
# (RC007) of an acquisition's reference also gives (rule, primary line, acquisition line),
# since semantics.md reports one finding per (primary location, acquisition).
Verdict = tuple


@dataclass(eq=False)
class Obj:
    """One object a pointer may point to: the parameter's, or one made by an acquisition."""

    param: bool
    origin: int = 0  # the acquisition's line; 0 for the parameter
    owned: int = 0  # references this function must still free or return
    released: bool = False  # a release reached it on this path
    consumed: bool = False  # a consume (move) reached it on this path
    handed: bool = False  # a reference to it was stored into memory
    debt: bool = False  # stored without an owned reference (reading debt_survives_overwrite)
    lost: bool = False  # its last owner was overwritten (already reported as RC007)
    # An owned reference to it was stored: that holder keeps it alive past our releases.
    shared: bool = False
    # The line of a release that took back the reference a location still holding it was handed
    # (decision 9's exception): RC006 there if the location still holds it when the function returns.
    taken_back: int | None = None
    released_line: int | None = None  # the release the object's uses after release are keyed by
    # Made by an acquirer that never returns an existing object (newClone), and, for one that
    # may (newContiguous), the argument's object: the only existing object it may be.
    fresh: bool = False
    may_be: Obj | None = None
    contiguous: bool = False  # made by newContiguous: a newContiguous of it returns it again


class PathEnded(Exception):
    """Raised to stop a path: a return, the end of the function, or a call that never returns."""


@dataclass
class Execution:
    fn: Function
    layout: Layout
    prefix: list[bool]
    unwind: bool = False  # errors="unwind": THError is an exit where nothing may be held
    trace: list[bool] = field(default_factory=list)
    findings: set[Verdict] = field(default_factory=set)
    # RC003, one per (object, release): (origin, parameter?, release line) -> the first use's line.
    used_after: dict = field(default_factory=dict)
    vars: dict[str, Obj | None] = field(default_factory=dict)
    objects: list[Obj] = field(default_factory=list)
    conds: dict = field(default_factory=dict)  # opaque condition -> the edge it took
    # What each location (g_keep; the thread-local slot THCThreadLocal_set(g_local, x) writes)
    # holds while it is a debt: a pointer stored without an owned reference, which the next
    # retain of that object pays for (decision 4). One debt per location: an object stored in two
    # locations needs two retains, storing it again where it already is owes nothing more, and
    # overwriting a location ends the debt of the copy it held (not of copies held elsewhere).
    debts: dict = field(default_factory=dict)
    held: dict = field(default_factory=dict)  # location (g_keep; not a sink's slot) -> its object
    # Locations holding a reference: an owned one stored (decision 9), or one a retain gave them
    # by paying their debt (decision 4). Overwritten while a variable still holds that object (and
    # it was not released since), the reference comes back to this function.
    paid: dict = field(default_factory=dict)
    contents: dict = field(default_factory=dict)  # location or sink slot -> the object last stored
    versions: dict[str, int] = field(default_factory=dict)  # assignments so far, per variable
    # Where the NULL in each variable holding one came from (a declaration, an assignment, an
    # acquisition that failed, the parameter); copies share it.
    # A NULL assigned to a variable is one object per variable, as refcheck names it.
    nulls: dict[str, tuple] = field(
        default_factory=lambda: {f"t{k}": ("null", f"t{k}") for k in range(NVARS)})
    # Size facts (semantics.md, same size): pairs of variables known to have equal element counts.
    sizes: set = field(default_factory=set)
    untracked: frozenset = frozenset()  # untracked(fn.body), the same on every path

    def choose(self) -> bool:
        i = len(self.trace)
        value = self.prefix[i] if i < len(self.prefix) else False
        self.trace.append(value)
        return value

    def report(self, rule: str, line: int, origin: int = 0) -> None:
        self.findings.add((rule, line))
        if origin:
            self.findings.add((rule, line, origin))

    # -- values -----------------------------------------------------------------------------

    def value(self, name: str) -> Obj | None:
        if name in ("NULL", "0"):
            return None
        return self.vars.get(name)

    def identity(self, name: str) -> Obj | None:
        """The object a pointer names as refcheck identifies it, NULL or not: a failed
        acquisition is still that acquisition's object, a NULL parameter the parameter; a NULL
        constant is no object (None)."""
        obj = self.value(name)
        if obj is not None:
            return obj
        null = self.nulls.get(name, ())
        if null[:1] == ("failed",):
            return null[2]
        if null[:1] == ("parameter",):
            return Obj(param=True)
        return None

    def holders(self, obj: Obj) -> int:
        return sum(1 for v in self.vars.values() if v is obj)

    def assign(self, var: str, new: Obj | None, line: int) -> None:
        old = self.vars.get(var)
        self.vars[var] = new
        self.versions[var] = self.versions.get(var, 0) + 1
        self.nulls.pop(var, None)
        self.sizes = {pair for pair in self.sizes if var not in pair}
        # RC007: the variable held the last pointer to an object we still owe a release for.
        if old is not None and old.owned > 0 and self.holders(old) == 0:
            self.report("RC007", line, old.origin)
            old.owned = 0
            old.lost = True

    def use(self, obj: Obj | None, line: int) -> None:
        if obj is not None and (obj.released or obj.consumed) and obj.owned == 0:
            self.used_after_release(obj, line)

    def used_after_release(self, obj: Obj, line: int) -> None:
        key = (obj.origin, obj.param, obj.released_line)
        self.used_after[key] = min(line, self.used_after.get(key, line))

    # -- exits ------------------------------------------------------------------------------

    def leaks(self, line: int) -> None:
        for obj in self.objects:
            if obj.owned > 0 and not obj.lost:
                self.report("RC001", line, obj.origin)

    def dangling(self) -> None:
        """A location still holding an object whose reference a release took back from it: that
        release was of a reference handed over (RC006 at the release), checked where the function
        returns (an error exit, as for leaks with errors="abort", is not a return)."""
        for obj in self.objects:
            if obj.taken_back is not None and any(o is obj for o in self.held.values()):
                self.report("RC006", obj.taken_back)

    def do_return(self, r: Return, line: int) -> None:
        obj = self.value(r.value) if r.value else None
        if obj is not None:
            if (obj.released or obj.consumed) and obj.owned == 0:
                self.used_after_release(obj, line)  # decision 3
            elif obj.owned > 0:
                if not self.fn.acquire_named:
                    self.report("RC004", line)
                obj.owned -= 1  # one reference goes to the caller
            elif self.fn.acquire_named and obj.param:
                self.report("RC005", line)
        self.dangling()
        self.leaks(line)
        raise PathEnded

    # -- statements -------------------------------------------------------------------------

    def run(self) -> None:
        p = None if self.choose() else Obj(param=True)
        if p is not None:
            self.objects.append(p)
        self.vars["p"] = p
        if p is None:
            self.nulls["p"] = ("parameter",)
        body = self.fn.body
        try:
            i = 0
            while i < len(body):
                jump = self.block((body[i],), (), offset=i)
                if jump is None:
                    i += 1
                else:
                    i = next(k for k, s in enumerate(body)
                             if isinstance(s, Label) and s.label == jump)
            self.dangling()
            self.leaks(self.layout.closing)  # fell off the end
        except PathEnded:
            pass

    def block(self, stmts: tuple, path: tuple, offset: int = 0) -> int | None:
        """Run statements; a goto comes back as its label number for the top level to find."""
        for i, s in enumerate(stmts):
            here = path + (i + offset,)
            line = self.layout.lines.get(here, 0)
            if isinstance(s, Acquire):
                self.acquire(s, line)
            elif isinstance(s, Discard) and s.tested is not None:
                self.tested_discard(s, line)
            elif isinstance(s, Discard):
                self.use(self.vars["p"], line)
                self.report("RC001", line, line)
                if s.into_call:
                    self.sizes = set()  # sinkp() may resize any tensor
            elif isinstance(s, Release):
                self.release(self.value(s.target), line)
            elif isinstance(s, Move):
                self.release(self.value(s.target), line, consume=True)
            elif isinstance(s, Store):
                self.store(s, line)
            elif isinstance(s, Retain):
                self.retain(line)
            elif isinstance(s, Assign):
                null = ("null", s.var) if s.source == "NULL" else self.nulls.get(s.source)
                self.assign(s.var, self.value(s.source), line)
                if null is not None:
                    self.nulls[s.var] = null
            elif isinstance(s, Use):
                self.use(self.value(s.target), line)
                if s.deref and self.value(s.target) is None and s.target not in self.untracked:
                    # NULL->nDimension: the program crashes, nothing after it counts (decision
                    # 14), unless the pointer is one refcheck does not track (decision 15).
                    raise PathEnded
                self.sizes = set()  # sink()/sinkp() may resize any tensor
            elif isinstance(s, Resize):
                self.resize(s, line)
            elif isinstance(s, SizeCheck):
                self.size_check(s, line)
            elif isinstance(s, Return):
                self.do_return(s, line)
            elif isinstance(s, NullCheck):
                if self.value(s.target) is None:
                    self.do_return(s.ret, line)
            elif isinstance(s, If):
                if isinstance(s.cond, str):
                    taken = (self.value(s.cond) is None) != s.positive
                elif isinstance(s.cond, tuple):
                    taken = self.unequal(*s.cond)
                else:
                    taken = self.opaque(s.cond)
                if taken:
                    jump = self.block(s.then, here + ("then",))
                else:
                    jump = self.block(s.orelse or (), here + ("else",))
                if jump is not None:
                    return jump
            elif isinstance(s, Switch):
                k = self.kind()
                body = next((b for n, b in s.cases if n == k), None)
                if body is not None:  # else k's enumerator has no case: past the switch
                    jump = self.block(body, here + (f"case{k}",))
                    if jump is not None:
                        return jump
            elif isinstance(s, Flag):
                self.conds[s.cond] = (self.value(s.target) is None) != s.positive
            elif isinstance(s, Goto):
                return s.label
            elif isinstance(s, Label):
                pass
            elif isinstance(s, Error):
                if s.status is not None and not self.opaque(s.status):
                    continue  # a successful status: the check returns
                if self.unwind and not s.exit:
                    self.leaks(line)
                raise PathEnded  # with errors="abort" nothing at all is checked here
            else:
                raise TypeError(f"the oracle only runs loop-free programs, not {s!r}")
        return None

    def acquire(self, s: Acquire, line: int) -> None:
        """A `new*` call: its result (NULL or a fresh object), or newContiguous's own argument again."""
        arg = self.value(s.arg)
        self.use(arg, line)
        ident = self.identity(s.arg)
        if s.contiguous and ident is not None and ident.contiguous \
                and not ((ident.released or ident.consumed) and ident.owned == 0):
            # newContiguous of its own result returns that object with +1 (semantics.md).
            if arg is not None:
                arg.owned += 1
            null = self.nulls.get(s.arg)
            self.assign(s.var, arg, line)
            if arg is None:
                self.nulls[s.var] = null
                if s.checked is not None:
                    self.do_return(s.checked, line)
            return
        made = Obj(param=False, origin=line, owned=1, fresh=not s.contiguous, contiguous=s.contiguous,
                   may_be=self.identity(s.arg) if s.contiguous else None)
        obj = None if self.choose() else made
        if obj is not None:
            self.objects.append(obj)
        self.assign(s.var, obj, line)
        if obj is None:
            # What it would have been, for a later newContiguous of this NULL.
            self.nulls[s.var] = ("failed", line, made)
        if s.checked is not None and obj is None:
            self.do_return(s.checked, line)

    def store(self, s: Store, line: int) -> None:
        """A store into memory or a sink: who holds the object's reference, and what is owed for it."""
        self.sizes = set()  # a store into memory may change any tensor's sizes
        obj = self.value(s.target)
        if s.via == "sink":  # passed to a call: a use, as for any call
            self.use(obj, line)
            # A sink keeps one reference: the parameter must have been retained (RC009).
            if obj is not None and obj.param and obj.owned == 0 and not (obj.released or obj.consumed):
                self.report("RC009", line)
        old = self.debts.get(s.via)
        if old is not None and old is not obj:
            del self.debts[s.via]  # the copy this location held is gone, not the others
            old.debt = any(o is old for o in self.debts.values())
        if obj is not None and obj.owned == 0 and s.via != "sink" and self.held.get(s.via) is obj \
                and self.debts.get(s.via) is not obj:
            pass  # already there with its reference: storing it again owes nothing more
        elif obj is not None and obj.owned == 0:
            self.debts[s.via] = obj
            obj.debt = True
        else:
            self.debts.pop(s.via, None)
        before = self.contents.get(s.via)
        if self.paid.pop(s.via, None) is before and before is not None and before is not obj \
                and self.holders(before) > 0 and not (before.released or before.consumed):
            before.owned += 1  # the location's (or sink slot's) reference is ours again
        self.contents[s.via] = obj
        if s.via != "sink":
            self.held[s.via] = obj
        if obj is not None and obj.owned > 0:
            obj.owned -= 1  # memory holds it now
            obj.handed = obj.shared = True
            if s.via != "sink":  # overwritten while a variable holds it, it is ours again (decision 9)
                self.paid[s.via] = obj
            if obj.owned == 0:  # borrowed from now on: a release is RC006 (decision 9)
                obj.released = obj.consumed = False

    def retain(self, line: int) -> None:
        """A retain of `p`: it pays for one stored copy, else adds a reference."""
        obj = self.vars["p"]
        self.use(obj, line)
        if obj is not None and any(o is obj for o in self.debts.values()):
            # pays for one stored copy (decision 4): each location holding it owes one
            where = next(k for k, o in self.debts.items() if o is obj)
            del self.debts[where]
            self.paid[where] = obj
            obj.debt = any(o is obj for o in self.debts.values())
        elif obj is not None:
            obj.owned += 1

    def tested_discard(self, s: Discard, line: int) -> None:
        """A discarded result tested for NULL: the path ends in the arm unless the test fails."""
        self.use(self.vars["p"], line)
        if self.choose():
            return  # NULL: the test fails, nothing was made
        # Not NULL: the edge into the arm. An abort (or THError with errors="abort")
        # ends the path before anything is checked; THError that unwinds is an exit, and
        # the tested result already died on the edge.
        if self.unwind and not s.tested.exit:
            self.report("RC001", line, line)
            self.leaks(line)
        raise PathEnded

    def resize(self, s: Resize, line: int) -> None:
        """A resize of the target to the source's size: the size facts of both."""
        self.use(self.value(s.target), line)
        self.use(self.value(s.source), line)
        # The target (and every variable holding its object) was resized...
        resized = {v for v in self.vars_mentioned() if self.size_identity(v) == self.size_identity(s.target)}
        self.sizes = {pair for pair in self.sizes if not pair & resized}
        self.sizes.add(frozenset((s.target, s.source)))  # ...to the source's size

    def size_check(self, s: SizeCheck, line: int) -> None:
        """A check that two tensors have the same size: an error where they may differ."""
        self.use(self.value(s.target), line)
        self.use(self.value(s.source), line)
        if not self.same_size(s.target, s.source):
            key = ("size", s.target, self.versions.get(s.target, 0), s.source,
                   self.versions.get(s.source, 0))
            if self.opaque(key):  # the counts differ: THError
                if self.unwind:
                    self.leaks(line)
                raise PathEnded
            self.sizes.add(frozenset((s.target, s.source)))

    def vars_mentioned(self) -> set[str]:
        return {"p", *self.vars, *self.nulls, *(v for pair in self.sizes for v in pair)}

    def size_identity(self, var: str):
        """What refcheck would call the object `var` holds: the object, or where its NULL came from."""
        obj = self.value(var)
        return ("object", id(obj)) if obj is not None else self.nulls.get(var, ("unknown", var))

    def same_size(self, a: str, b: str) -> bool:
        """a and b are linked by size facts and by holding the same object (semantics.md)."""
        names = self.vars_mentioned() | {a, b}
        seen, todo = {a}, [a]
        while todo:
            x = todo.pop()
            if self.size_identity(x) == self.size_identity(b):
                return True
            near = {v for pair in self.sizes if x in pair for v in pair}
            near |= {v for v in names if self.size_identity(v) == self.size_identity(x)}
            for y in near - seen:
                seen.add(y)
                todo.append(y)
        return False

    def kind(self) -> int:
        """The enumerator the parameter k holds on this path (it is never assigned): chosen at
        the first switch, one of NKINDS (an enum-typed value holds one of its enumerators)."""
        if "k" not in self.conds:
            n = 0
            while n < NKINDS - 1 and not self.choose():
                n += 1
            self.conds["k"] = n
        return self.conds["k"]

    def opaque(self, key) -> bool:
        """An opaque condition, taken the same way again while its variables are unassigned."""
        if key not in self.conds:
            self.conds[key] = self.choose()
        return self.conds[key]

    def unequal(self, a: str, b: str) -> bool:
        """x != y: decided when both hold the same object (decision 5) or one is NULL (then it
        is a null test of the other), and between two objects known distinct (a fresh
        acquisition against the parameter, another fresh one, or a newContiguous result whose
        argument is one of those); between other objects it is opaque, and the same test
        again, with neither side assigned, takes the same edge."""
        va, vb = self.value(a), self.value(b)
        key = (a, self.versions.get(a, 0), b, self.versions.get(b, 0))
        if va is vb:
            return False
        if va is None or vb is None:
            return True
        if distinct(va, vb):
            return True
        return self.opaque(key)

    def release(self, obj: Obj | None, line: int, consume: bool = False) -> None:
        if obj is None:
            return  # freeing NULL is allowed
        fault = None
        if obj.owned > 0:
            obj.owned -= 1
            obj.released_line = line
            # A parameter is back to the caller's reference only (decision 1); a shared object to
            # its other holder's.
            if obj.param or obj.shared:
                if obj.owned == 0:
                    obj.released = obj.consumed = False
                return
        elif obj.consumed:
            fault = "RC008"
        elif obj.released:
            fault = "RC002"
        elif obj.shared and any(o is obj for o in self.held.values()):  # acquired or retained
            obj.taken_back = line  # the location's reference taken back: it must be cleared
        elif obj.param or obj.handed:  # a reference handed over is no longer ours (decision 9)
            fault = "RC006"
        if fault:
            self.report(fault, line)
        if fault != "RC008" and (fault != "RC002" or consume):
            obj.released_line = line
        if consume:
            obj.consumed = True
        else:
            obj.released = True


def distinct(a: Obj, b: Obj) -> bool:
    """Two objects that semantics.md says cannot be the same pointer: one fresh, the other the
    parameter, fresh, or a may-return-argument result whose argument is one of those."""
    for x, y in ((a, b), (b, a)):
        if not x.fresh:
            continue
        while y is not None and y is not x:
            if y.param or y.fresh:
                return True
            y = y.may_be
    return False


def verdicts(fn: Function, layout: Layout, unwind: bool = False) -> set[Verdict]:
    """The union of findings over every path of `fn`."""
    found: set[Verdict] = set()
    used_after: dict = {}
    prefix: list[bool] = []
    not_tracked = untracked(fn.body)
    while True:
        ex = Execution(fn, layout, prefix, unwind, untracked=not_tracked)
        ex.run()
        found |= ex.findings
        for key, line in ex.used_after.items():
            used_after[key] = min(line, used_after.get(key, line))
        trace = ex.trace
        while trace and trace[-1]:
            trace.pop()
        if not trace:
            return found | {("RC003", line) for line in used_after.values()}
        prefix = trace[:-1] + [True]
