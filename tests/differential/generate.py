"""Hypothesis strategies for random small functions in the program model.

Statement kinds are listed simplest first, because hypothesis shrinks a `sampled_from` towards
its first element: a minimized disagreement ends up made of plain acquisitions and releases.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from .program import (
    NCONDS, NKINDS, NVARS, Acquire, Assign, Break, Discard, Error, Flag, For, Function, Goto, If, Move,
    NullCheck, Release, Resize, Retain, Return, SizeCheck, Store, Switch, Use, While, place_labels,
)

VARS = [f"t{k}" for k in range(NVARS)]


@dataclass(frozen=True)
class Profile:
    """Which statement kinds a generated function may contain."""

    name: str = "full"
    retain: bool = True  # THFloatTensor_retain(p), tK = p, free(p), return p
    gotos: bool = True
    errors: bool = True
    handovers: bool = True  # g_keep = x; and THFloatTensor_move(x);
    unwind: bool = False  # check with errors="unwind": THError must not leak either
    null_checks: bool = True
    sizes: bool = False  # resizeAs(a, b) and APPLY's size check (issue 14's size facts)
    loops: bool = False  # while/for/break and backward gotos: compared only for termination
    switches: bool = False  # switch (k) over the enum parameter, exhaustive or not
    max_top: int = 8
    max_block: int = 4
    max_depth: int = 2


CORE = Profile(name="core", retain=False, gotos=False, errors=False, handovers=False)
FULL = Profile()
UNWIND = Profile(name="unwind", unwind=True)
SIZES = Profile(name="sizes", unwind=True, sizes=True)
# Longer and deeper: more joins of differing states, for the stress run (slower oracle).
BIG = Profile(name="big", max_top=14, max_block=5, max_depth=3)
LOOPS = Profile(name="loops", loops=True, max_top=12, max_depth=3)
SWITCHES = Profile(name="switches", unwind=True, switches=True)


def returns_for(kind: str, pointers: list[str]) -> st.SearchStrategy[Return]:
    if kind == "void":
        return st.just(Return(None))
    if kind == "int":
        return st.just(Return("0"))
    return st.sampled_from(["NULL", *pointers]).map(Return)


def statement_kinds(profile: Profile, depth: int, in_loop: bool) -> list[str]:
    """The statement kinds a profile draws from at this depth, repeated to weight the draw."""
    # Repeats weight the draw: most statements should move references around, few should exit.
    kinds = ["acquire", "release", "acquire", "release", "use", "assign", "if", "assign",
             "release", "if", "return", "discard"]
    if profile.null_checks:
        kinds += ["nullcheck", "nullcheck", "nullif", "ptrif", "flag"]
    if profile.retain:
        kinds.append("retain")
    if profile.gotos:
        kinds.append("goto")
    if profile.errors:
        kinds.append("error")
    if profile.handovers:
        kinds += ["store", "move"]
    if profile.sizes:
        kinds += ["resize", "sizecheck"] * 4
    if profile.loops:
        kinds += ["while", "for"] + (["break"] if in_loop else [])
    if profile.switches:
        kinds += ["switch"] * 2
    if depth >= profile.max_depth:
        kinds = [k for k in kinds if k not in ("if", "nullif", "ptrif", "while", "for", "switch")]
    return kinds


@st.composite
def statements(draw, profile: Profile, returns: str, depth: int, in_loop: bool):
    pointers = VARS + (["p"] if profile.retain else [])
    var = st.sampled_from(VARS)
    kind = draw(st.sampled_from(statement_kinds(profile, depth, in_loop)))

    def block(loop: bool):
        return draw(st.lists(statements(profile, returns, depth + 1, loop),
                             max_size=profile.max_block).map(tuple))

    if kind == "acquire":
        target = draw(var)
        arg = draw(st.sampled_from(["p", *VARS]))
        checked = draw(returns_for(returns, pointers)) if draw(st.booleans()) else None
        return Acquire(target, arg, checked, contiguous=draw(st.booleans()))
    if kind == "release":
        return Release(draw(st.sampled_from(pointers)))
    if kind == "use":
        return Use(draw(st.sampled_from(pointers)), draw(st.booleans()))
    if kind == "assign":
        target = draw(var)
        sources = ["NULL"] + [v for v in pointers if v != target]
        return Assign(target, draw(st.sampled_from(sources)))
    if kind == "if":
        cond = draw(st.integers(0, NCONDS - 1))
        then = block(in_loop)
        orelse = block(in_loop) if draw(st.booleans()) else None
        return If(cond, then, orelse)
    if kind == "ptrif":  # if (x != y): decided for the same object, else opaque
        x, y = draw(st.lists(st.sampled_from(pointers), min_size=2, max_size=2, unique=True))
        then = block(in_loop)
        orelse = block(in_loop) if draw(st.booleans()) else None
        return If((x, y), then, orelse)
    if kind == "nullif":  # if (x) free(x); and friends: the null edge joins the other
        target = draw(st.sampled_from(pointers))
        positive = draw(st.booleans())
        then = block(in_loop)
        orelse = block(in_loop) if draw(st.booleans()) else None
        return If(target, then, orelse, positive)
    if kind == "flag":  # cN = !x;  read by a later if (cN)
        return Flag(draw(st.integers(0, NCONDS - 1)), draw(st.sampled_from(pointers)), draw(st.booleans()))
    if kind == "return":
        return draw(returns_for(returns, pointers))
    if kind == "discard":
        into_call = draw(st.booleans())
        tested = None if into_call else draw(st.none() | st.builds(Error, st.booleans()))
        return Discard(into_call, tested)
    if kind == "nullcheck":
        return NullCheck(draw(st.sampled_from(pointers)), draw(returns_for(returns, pointers)))
    if kind == "retain":
        return Retain()
    if kind == "goto":
        low = -3 if profile.loops else 1
        return Goto(ahead=draw(st.integers(low, 3).filter(lambda a: a != 0)))
    if kind == "error":
        exit = draw(st.booleans())
        status = None if exit else draw(st.none() | st.integers(0, NCONDS - 1))
        return Error(exit, status)
    if kind == "store":
        return Store(draw(st.sampled_from(pointers)), draw(st.sampled_from(["global", "sink"])))
    if kind == "move":
        return Move(draw(var))
    if kind in ("resize", "sizecheck"):
        # Few tensors, so that checks often meet the pairs made the same size before them.
        x, y = draw(st.lists(st.sampled_from(["p", "t0", "t1"]), min_size=2, max_size=2, unique=True))
        return (Resize if kind == "resize" else SizeCheck)(x, y)
    if kind == "while":
        return While(draw(st.integers(0, NCONDS - 1)), block(True))
    if kind == "for":
        return For(draw(st.integers(0, NCONDS - 1)), block(True))
    if kind == "break":
        return Break()
    if kind == "switch":  # each enumerator at most once; all of them half the time
        every = draw(st.booleans())
        named = list(range(NKINDS)) if every else draw(
            st.lists(st.integers(0, NKINDS - 1), min_size=1, max_size=NKINDS - 1, unique=True))
        return Switch(tuple((n, block(in_loop)) for n in named))
    raise AssertionError(kind)


@st.composite
def functions(draw, profile: Profile = FULL, index: int = 0):
    returns = draw(st.sampled_from(["ptr", "int", "void"]))
    named_new = draw(st.booleans())
    body = draw(st.lists(statements(profile, returns, 0, False), min_size=1,
                         max_size=profile.max_top).map(tuple))
    body = place_labels(body)
    if returns != "void":
        # A non-void function must not fall off its end: close it with a plain return.
        body += (Return("NULL" if returns == "ptr" else "0"),)
    name = f"{'newThing' if named_new else 'makeThing'}{index}"
    return Function(name, returns, body)


def batches(profile: Profile = FULL, min_size: int = 20, max_size: int = 40):
    """Lists of functions with distinct names, to be checked from one parsed file."""
    return st.integers(min_size, max_size).flatmap(
        lambda n: st.tuples(*(functions(profile, i) for i in range(n))).map(list))
