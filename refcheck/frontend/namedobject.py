"""The object a releaser's name is about (`gck_object_destroy (GckObject *self, GCancellable *, GError **)`)."""
from __future__ import annotations

from refcheck.frontend.clangutil import strip


def _type_word(t) -> str:
    """`GckObject` of a `GckObject *` type, lower case without underscores; "" for others."""
    pointee = t.get_pointee()
    words = [w for w in pointee.spelling.replace("*", " * ").split() if w not in ("const", "volatile", "struct")]
    if len(words) != 1 or words[0] == "*":
        return ""  # GError ** (a pointer to a pointer), void * and the like: no type the name spells
    return words[0].lstrip("_").replace("_", "").lower()


def _name_prefixes(name: str) -> set[str]:
    """`gck`, `gckobject` of gck_object_destroy: its leading words, joined, lower case (the verb left out)."""
    parts = [p for p in name.split("_") if p]
    return {"".join(parts[:k]).lower() for k in range(1, len(parts))}


def named_released(name: str, decl, args: list, positions: list[int]) -> list[int] | None:
    """Among a name-pattern releaser's tracked argument positions, those whose type its name's
    prefix spells (GObject's `ns_type_verb (NsType *self, ...)`): the object it releases, the
    GCancellable and GError ** beside it only read. None where no argument's type is spelled,
    or every one is (TH's `THFloatTensor_free`): the pattern keeps releasing them all."""
    # The declared parameter's type where there is one: gcr hands `l->data` (a gpointer) as the GckObject *.
    params = list(decl.get_arguments()) if decl is not None else []
    types = [params[i].type if i < len(params) else strip(args[i]).type for i in range(len(args))]
    prefixes = _name_prefixes(name)
    named = [i for i in positions if (w := _type_word(types[i])) and w in prefixes]
    return named if named and len(named) < len(positions) else None
