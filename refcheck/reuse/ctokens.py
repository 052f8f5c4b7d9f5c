"""The C words the instance keys read printed definitions with: one list each, shared, so that the
three readers (instances, unevaluated, converted) cannot drift apart."""

# Type qualifiers: part of a type's spelling, never a value.
QUALIFIERS = frozenset({"const", "volatile", "restrict", "__restrict", "__restrict__", "_Atomic"})
# Storage-class and function specifiers a declaration may start with.
SPECIFIERS = frozenset({"static", "extern", "register", "inline", "__inline", "__inline__", "_Noreturn",
                        "_Thread_local", "__thread", "__extension__"})
# Every C arithmetic type is a scalar to the graph build (clangutil.SCALAR_KINDS).
ARITHMETIC = frozenset({"char", "short", "int", "long", "unsigned", "signed", "float", "double", "_Bool",
                        "__int128"})
# What the instance keys erase of a type's spelling: `_Bool` is kept, the one arithmetic type that
# holds neither 2 nor -1 (converted.py); and the token that stands for an erased type, which no
# identifier or punctuator spells (instances.py, shapes.py).
ERASED = ARITHMETIC - {"_Bool"}
ERASED_TOKEN = "\x01"
