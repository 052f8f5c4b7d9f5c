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
