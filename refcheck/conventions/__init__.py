"""Which calls acquire, retain, release and consume references, and which never return.

The analysis only ever asks a `Conventions` object; the TH preset below is the default, and
`refcheck.workspace.config` builds other instances from `[tool.refcheck]` tables and presets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from functools import cached_property

from refcheck.conventions.answers import Answers
from refcheck.conventions.libraries import LIBRARIES, Library
from refcheck.conventions.queries import Queries
from refcheck.conventions.summary import Counts, Summary  # noqa: F401 (Counts: re-exported)
from refcheck.conventions.records import parse_record, record_table

# A name "begins with new" after any type prefix: THFloatTensor_newContiguous, newScratch,
# THCudaTensor_newWithSize. The character after "new" must start a new word, so THFile_newline
# style names do not count as acquisitions. A version suffix is a new word too: cltorch's
# THClTensor_newv2 (`new` then `v` and a digit), not `newvalue`.
TH_NEW = r"(?:^|_)new(?:[A-Z0-9_]|v\d|$)"


# THC's device and pinned-memory allocators and its thread-local slot, whose ownership no name
# spells: THCudaMalloc fills its out-parameter (it raises on failure, so on every path it
# returns), THCudaHostAlloc returns the block, and the frees release the pointer they are given.
# (cudaMalloc itself fills *ptr only on success, which an out-parameter record cannot say: it
# gets none.)
TH_RECORDS = {name: parse_record(table, f"TH records: {name}") for name, table in {
    "THCudaMalloc": {"arguments": {"1": "acquire-out"}},
    "THCudaFree": {"arguments": {"1": "release"}},
    "THCudaHostAlloc": {"returns": "owned"},
    "THCudaHostFree": {"arguments": {"1": "release"}},
    # The slot's own reference, the one THCThreadLocal_set (a sink) took: releasing it before
    # setting another is the slot's bookkeeping, not a release of something borrowed.
    "THCThreadLocal_get": {"returns": "unknown"},
}.items()}


# libc's results that are malloc'd only when the caller passes no buffer (glibc: realpath with a
# NULL resolved_path, getcwd with a NULL buf, POSIX.1-2008 and the glibc manual), and those that
# always are. With a buffer the call returns that buffer (or NULL): nothing to free.
LIBC_RECORDS = {name: parse_record(table, f"libc records: {name}") for name, table in {
    "realpath": {"returns": "owned", "owned-if-null": 1, "family": "malloc"},
    "getcwd": {"returns": "owned", "owned-if-null": 0, "family": "malloc"},
    "canonicalize_file_name": {"returns": "owned", "family": "malloc"},
    "get_current_dir_name": {"returns": "owned", "family": "malloc"},
}.items()}


# The TH defaults of these tables name TH/THC functions (newWithAllocator, THCudaCheck, resizeAs):
# other code bases start from empty tables and add their own in [tool.refcheck].
# libc's records stay: realpath (p, NULL) allocates whatever the library around it.
NO_TH_TABLES = dict(sinks={}, error_if_nonzero={}, may_return_argument={}, same_size={}, same_size_test={},
                     summaries=dict(LIBC_RECORDS))

@dataclass
class Conventions(Queries, Answers):
    # Calls whose result is an owned reference.
    acquire: list[str] = field(default_factory=lambda: [
        TH_NEW, r"^THAlloc$", r"^malloc$", r"^calloc$", r"^strdup$",
    ])
    # Calls that hand their first pointer argument back as a fresh owned result (realloc style).
    reallocate: list[str] = field(default_factory=lambda: [r"^THRealloc$", r"^realloc$"])
    # Reallocate calls that return NULL on failure and leave the old block owned (THRealloc
    # raises THError instead).
    may_fail: list[str] = field(default_factory=lambda: [r"^realloc$", r"^reallocarray$"])
    # Calls that add an owned reference to the object their argument points to.
    retain: list[str] = field(default_factory=lambda: [
        r"(?:^|_)retain$", r"^c10::raw::intrusive_ptr::incref$",
    ])
    # Calls that give up a reference held in any argument position.
    release: list[str] = field(default_factory=lambda: [
        r"(?:^|_)free$", r"^c10::raw::intrusive_ptr::decref$", r"^THFree$",
    ])
    # Calls that take the reference over (after which it must not be released).
    consume: list[str] = field(default_factory=lambda: [r"(?:^|_)freeCopyTo$", r"(?:^|_)move$"])
    # Consumers whose result is a new owned object made from what they consumed (GLib's
    # `g_bytes_unref_to_data`: "Unreferences the bytes, and returns a pointer the same byte data").
    consume_owned: list[str] = field(default_factory=list)
    # String comparisons equal to 0 for (x, NULL) exactly where x is NULL (GLib's g_strcmp0:
    # "Handles NULL gracefully by sorting it before non-NULL strings"; frontend.nullcmp).
    null_sorted: list[str] = field(default_factory=list)
    # Acquirers that never return NULL (CPython's PyObject_Type of an object, PyBool_FromLong):
    # the NULL edge of a test of their result is infeasible (frontend.calls, Transfer.acquire).
    never_null: list[str] = field(default_factory=list)
    # Frees of a container's cells only, not of what they hold (GLib's g_list_free: "If list
    # elements contain dynamically-allocated memory, you should either use g_list_free_full() or
    # free them manually first"): a local list freed so held its elements borrowed (frontend.shallow).
    shallow_free: list[str] = field(default_factory=list)
    # Calls that take an element out of the list they are handed first (GLib's g_queue_pop_head):
    # a shallowly freed list whose popped elements are handed on (freed, stored, returned) held
    # them owned after all (frontend.shallow).
    list_pops: list[str] = field(default_factory=list)
    # Table constructors (pattern -> {"key": index, "value": index} of their destroy function
    # arguments; none for a table that frees neither) and the calls that store a key (position 1)
    # and a value (position 2) into the table they are handed first: a local table made without
    # a destroy function only borrows what is stored there (GLib's g_hash_table_new;
    # frontend.bare_tables).
    table_new: dict[str, dict[str, int]] = field(default_factory=dict)
    table_store: list[str] = field(default_factory=list)
    # Tests of an object's error state (pattern -> pattern of the calls that return NULL exactly
    # when the state of the object they are handed first is set): GLib's g_task_had_error and
    # g_task_propagate_pointer (frontend.taskerrors).
    error_state: dict[str, str] = field(default_factory=dict)
    # Variables holding the parent's class struct (GObject's chain-up: G_DEFINE_TYPE's
    # `<type>_parent_class`): a call through its slots runs the parent's function, not the ones
    # the unit stores there for its own class (frontend.vtables).
    parent_classes: list[str] = field(default_factory=list)
    # Calls `steal(&x)` that return x's value and set x to NULL (GLib's g_steal_pointer): the
    # result is owned as x was, and the cleanup of an `__attribute__((cleanup))` x releases nothing.
    steal: list[str] = field(default_factory=lambda: [r"(?:^|_)steal_pointer$"])
    # Calls returning memory in the caller's own stack frame (what GLib's g_alloca/g_newa expand
    # to): the frame frees it at return, nobody owes it a release, and a count function that
    # knows its object is on the stack (libxmlb's xb_stack_unref) may be handed it. Its result is
    # untracked (unknown), neither owned nor a borrowed call result, for every preset.
    frame: list[str] = field(default_factory=lambda: [r"^(?:__builtin_)?alloca(?:_with_align(?:_and_max)?)?$",
                                                      r"^_alloca$"])
    # Calls that never return: with errors="abort" their paths need no cleanup, with "unwind" they
    # are exits where nothing may still be held.
    error: list[str] = field(default_factory=lambda: [
        r"^_?THError$", r"^THArgError$", r"^_THAssertionFailed$", r"^THCudaCheckFail$",
    ])
    # Calls that leave the process: no cleanup needed in either errors mode.
    exit: list[str] = field(default_factory=lambda: [r"^abort$", r"^exit$", r"^_exit$", r"^_Exit$",
                                                     r"^__assert_fail$", r"^quick_exit$"])
    # Calls that raise an error only when one argument is false: name pattern -> index of it.
    conditional_error: dict[str, int] = field(default_factory=lambda: {r"^_THArgCheck$": 2})
    # Calls without side effects on their arguments, so that `if (!isContiguous(x))` tested twice
    # is the same condition both times.
    pure: list[str] = field(default_factory=lambda: [
        r"(?:^|_)is[A-Z]\w*$", r"(?:^|_)(?:nDimension|nElement|size|stride|dim|numel)$",
    ])
    # Calls whose pointer result is a borrowed reference the caller may store, retain or hand on
    # (luaT_checkudata: the userdata stays Lua's): tracked like a value loaded from memory, so a
    # store of it followed by a retain through the field is the field's reference (precision 4).
    # Other calls' results are not tracked at all.
    borrowed: list[str] = field(default_factory=list)
    # Acquirers whose result is a floating reference (GLib's g_variant_new_*): owned by the caller
    # until a call sinks it (Effect.SINK_FLOATING), or a `ref_sink` retainer converts it into the
    # same single full reference (`v = g_variant_ref_sink(g_variant_new_int32(1))` owns one).
    floating: list[str] = field(default_factory=list)
    ref_sink: list[str] = field(default_factory=list)
    # The `ref_sink` kind that adds no reference to a full one (g_variant_take_ref: "If value is
    # floating, sink it. Otherwise, do nothing"; g_object_take_ref alike).
    take_ref: list[str] = field(default_factory=list)
    # Tests that are true only in a throwaway child process (GLib's g_test_subprocess(), true in
    # the process g_test_trap_subprocess() spawns to watch it fail): the arm they guard is that
    # process's whole run, which ends where the arm ends (an exit: nothing is checked there).
    child_process: list[str] = field(default_factory=list)
    # Enum constants that hand the pointer argument right after them over to the callee
    # (libsoup 2's SOUP_MEMORY_TAKE: "libsoup will assume ownership of it and free it"), whatever
    # the callee's record says of that argument (frontend.argtypes.taken_by_constant).
    take_constants: list[str] = field(default_factory=list)
    # Boolean parameters, by name, through which a true constant hands the pointer argument
    # before them over to the callee (libgsf's `gsf_input_memory_new (buf, length, needs_free)`:
    # "Whether you want this memory to be free'd at object destruction"), where its record says
    # nothing of that argument (frontend.argtypes.taken_by_flag). FALSE there leaves it the caller's.
    take_flags: list[str] = field(default_factory=list)
    # Calls that end the calling thread as a return from its start routine does (POSIX
    # pthread_exit(3): "an implicit call to pthread_exit() is made when a thread other than the
    # thread in which main() was first invoked returns from the start routine"): the process runs
    # on, so what the thread still owns there is leaked, and a path ending there is a return.
    thread_exits: list[str] = field(default_factory=lambda: [r"^pthread_exit$", r"^PyThread_exit_thread$",
                                                             r"^g_thread_exit$"])
    # Calls that hold a value for whoever takes it out, with a destroy notify only for a value
    # nobody takes (GLib's g_task_return_pointer: "result_destroy will be used to free result if
    # the caller does not take ownership of it with g_task_propagate_pointer()", transfer full):
    # given a NULL notify, the value is stored (an owned one handed over, a lent one fine), not
    # lent as other user data with a NULL notify is (`frontend.argtypes.unnotified`).
    held_results: list[str] = field(default_factory=list)
    # Calls whose `*out` fill is a holder's value that the holder keeps too (CPython's
    # PyContextVar_Get: "the value of the context variable", a new reference, while the current
    # context still holds its own): dropping the caller's reference leaves it alive, borrowed
    # (`ir.Acquire.held`, `Summary.result_held`).
    held_fills: list[str] = field(default_factory=list)
    # Types (canonical spelling) of a local whose address a call takes as its error out-parameter
    # (GLib's `GError *`: "struct _GError"): set, the call returned no value (frontend.gerrors).
    error_out: list[str] = field(default_factory=list)
    # Predicates that are false where their first argument is NULL (GLib's g_error_matches).
    false_if_null: list[str] = field(default_factory=list)
    # Counts that are zero exactly where their first argument is NULL (GLib's g_list_length: the
    # empty list is NULL).
    zero_if_null: list[str] = field(default_factory=list)
    # Pointer types that are handles passed along, not counted references (THC's state argument):
    # the cases the unit's types cannot tell (`unit_counted` below tells the others).
    context: list[str] = field(default_factory=lambda: [r"^THCState$", r"^THNNState$", r"^THCudaState$"])
    # "abort": error paths need no cleanup (PyTorch); "unwind": they must release (Lua torch).
    errors: str = "abort"
    # Functions that implement an allocator or deallocator (the name of the function being checked,
    # not of a callee): like the implementations of release/retain/consume, their parameters are
    # not tracked, and returning raw owned memory is their job (no RC004). TH's default allocator
    # (`THDefaultAllocator_alloc`), `THAllocInternal`, `THRealloc(p, 0)` freeing p, THC's
    # `THCudaFree`/`THCudaHostFree`. "Allocator" itself is excluded: THMapAllocatorContext_new is
    # an ordinary acquirer whose leaks are real.
    primitive: list[str] = field(default_factory=lambda: [
        r"(?:^|_)(?:re)?alloc$", r"^TH\w*Alloc(?!ator)\w*$", r"^THRealloc$", r"^THFree$",
        r"^THCuda(?:Host)?(?:Malloc|Alloc|Free)$",
    ])
    # Functions that turn a new reference into a borrowed one (the function being checked, not a
    # callee): CPython's `Py_GetConstantBorrowed`, pythoncapi_compat.h's `_PyFrame_GetCodeBorrow`
    # take a new reference and drop it, handing back a pointer the object's owner keeps alive.
    # The references their calls return are not theirs to track.
    borrow_accessors: list[str] = field(default_factory=list)
    # The error indicator's test (CPython's `PyErr_Occurred`): right after a call whose object
    # result is not NULL it is false, since such a call returns NULL when it raises
    # (frontend.indicator).
    error_indicator: list[str] = field(default_factory=list)
    # Macros whose expansion reads a container's element in place (CPython's PyTuple_GET_ITEM,
    # PyList_GET_ITEM, PySequence_Fast_GET_ITEM): the C API documents them as returning a borrowed
    # reference, so their value is a borrowed result, not a field (`frontend.arrays`).
    borrowed_items: list[str] = field(default_factory=list)
    # Functions that always return NULL (CPython's PyErr_Format, PyErr_NoMemory: "always returns
    # NULL"): a file-scope pointer only ever assigned their result, or NULL, holds NULL
    # (`frontend.nullglobals`).
    null_results: list[str] = field(default_factory=list)
    # Record types whose static initialisers list the functions a runtime calls through them
    # (CPython's PyTypeObject, PyMethodDef, PyType_Slot arrays): a function stored in one that
    # returns a pointer hands its caller a new reference, whatever its name (`frontend.slots`).
    slot_tables: list[str] = field(default_factory=list)
    # The fields (or slot ids, `Py_tp_dealloc`) of those tables that hold a destructor: the function
    # frees the object it is handed, whatever its name, and is checked as a `primitive`.
    destructor_slots: list[str] = field(default_factory=list)
    # The fields (or slot ids) of those tables whose function the runtime calls once per object or
    # module before it is in use (`tp_new`, `tp_init`, `Py_mod_exec`) or to destroy it: every other
    # table function may run again on a live object, where a field (or a global's) that held a
    # reference must give it up before a new one is stored (`frontend.overwrites`).
    fresh_slots: list[str] = field(default_factory=list)
    # Functions no table names that are destructors by name (CPython's `*_dealloc`), but only when
    # shaped like the slot: returning void, one parameter pointing to an object (`object_records`,
    # or a record whose first field is one: PyObject_HEAD). A `re_dealloc(void *p)` freeing
    # memory is an ordinary function, whose release its callers see.
    destructor_names: list[str] = field(default_factory=list)
    object_records: list[str] = field(default_factory=list)
    # Global objects that exist before any call and outlive it (CPython's `_Py_NoneStruct` behind
    # Py_None): their address is a borrowed reference, tracked as a value loaded from memory.
    singletons: list[str] = field(default_factory=list)
    # Type names (as written or canonical) whose global objects are singletons too: CPython's
    # static type objects (`static PyTypeObject FooType`), which a steal needs Py_INCREF for.
    singleton_types: list[str] = field(default_factory=list)
    # Library setters keeping a raw `void *` for the program's callback, with no destroy notify
    # (librdkafka's `rd_kafka_AdminOptions_set_opaque`): the reference that goes with it is the
    # program's to pay and release (frontend.opaque).
    opaque_setters: list[str] = field(default_factory=list)
    # Acquirers whose result is a new object, never one that existed before the call, so its
    # pointer differs from every parameter and earlier result (`assume.distinct`). None: every
    # acquirer whose record returns no argument (TH's `new*`, GObject constructors). CPython's
    # "new reference" is no new object (PyIter_Next, PyObject_GetItem, PyLong_FromLong's small
    # ints return objects that exist), so the cpython preset names its allocating constructors;
    # a record inferred from a project's body keeps the general rule.
    fresh_results: list[str] | None = None
    # Function-pointer tables a library's C API is called through, by variable name (NumPy's
    # `PyArray_API`, `PyUFunc_API`): a call of `(*(cast) PyArray_API[69])` is a call of the
    # function the header's macro over that element names, PyArray_FromAny (`frontend.api_tables`).
    api_tables: list[str] = field(default_factory=list)
    # Calls that keep a reference passed in given argument positions (a hand-over, like a store
    # into memory): pattern -> argument indices, negative from the end so that TH's
    # `newWithAllocator(size, allocator, ctx)` and THC's `(state, size, allocator, ctx)` share one.
    sinks: dict[str, list[int]] = field(default_factory=lambda: {
        r"(?:^|_)newWithAllocator$": [-1],            # the allocator context
        r"(?:^|_)newWithDataAndAllocator$": [-4, -1],  # the data block and the context
        r"(?:^|_)newWithData$": [-2],                  # the storage takes (and THFree's) the data
        r"^THCThreadLocal_set$": [-1],                 # a retained stream kept as current
    })
    # Calls that raise an error only when one argument is NONZERO (a status code that is not
    # success): real THC's THCudaCheck(err) is __THCudaCheck(err, __FILE__, __LINE__), an error
    # only when err != cudaSuccess. The polarity is the opposite of `conditional_error`.
    error_if_nonzero: dict[str, int] = field(default_factory=lambda: {
        r"^__THCudaCheck$": 0, r"^__THCublasCheck$": 0, r"^__THCusparseCheck$": 0,
    })
    # Acquirers that may return (with +1) the object passed in an argument instead of a new
    # one: `newContiguous` of a contiguous tensor. Every other acquirer returns an object that
    # cannot equal any pointer live before the call (newClone, new, newWithSize, ...).
    may_return_argument: dict[str, int] = field(default_factory=lambda: {
        r"(?:^|_)newContiguous$": -1,
    })
    # Acquirers listed in `may_return_argument` that return their argument only when a test of
    # it holds (pattern -> pattern of the test's name): newContiguous returns its argument only
    # if that is contiguous, so under `if (!isContiguous(x))` newContiguous(x) is a fresh tensor.
    argument_returned_only_if: dict[str, str] = field(default_factory=lambda: {
        r"(?:^|_)newContiguous$": r"(?:^|_)isContiguous$",
    })
    # Calls after which two arguments have the same number of elements (pattern -> [a, b]), and
    # tests that are true exactly when two arguments do: what the size check of
    # TH_TENSOR_APPLY2/3 ("inconsistent tensor size") needs in order to be known not to fire.
    same_size: dict[str, list[int]] = field(default_factory=lambda: {
        r"(?:^|_)resizeAs$": [-2, -1],
    })
    same_size_test: dict[str, list[int]] = field(default_factory=lambda: {
        r"(?:^|_)isSameSizeAs$": [-2, -1],
    })
    # Callees outside the unit that may raise an error (errors="unwind": a call to one is a
    # possible exit). Functions of the same unit are summarised by the analysis instead.
    may_raise: list[str] = field(default_factory=lambda: [r"(?:^|_)shapeCheck$"])
    # Summarise the unit's own functions (errors="unwind"): every function that may reach an error
    # call on some path, directly or through others of the unit, is a may-raise callee. Off by
    # default: on torch7's lib/TH it adds 370 findings, nearly all raises the caller's arguments
    # cannot trigger (select of an index in range, copy of a clone); see docs/realworld.md.
    may_raise_summaries: bool = False
    # Check (and report in) the functions defined in system headers too (`--system-headers`, as
    # clang-tidy's flag): off, they are neither analysed nor reported, only called.
    system_headers: bool = False
    # The functions of the unit being checked that may raise (`frontend.raises`), set per unit by
    # the engine in errors="unwind" mode. Derived from the unit's text, so not in the fingerprint.
    unit_may_raise: frozenset = field(default=frozenset(), metadata={"derived": True})
    # Configured summaries by exact callee name ([tool.refcheck.summaries], generated preset
    # tables): they win over every pattern above.
    summaries: dict[str, Summary] = field(default_factory=lambda: {**LIBC_RECORDS, **TH_RECORDS})
    # The summaries inferred from the bodies of the run's functions (`summary.SummaryTable`), set
    # per unit by the engine: used where the names say nothing. Not in the fingerprint: the
    # caches key on the summaries a unit used instead.
    inferred: object = field(default=None, metadata={"derived": True})
    # The record types a declaration of the unit hands out counted (`frontend.handles`): the
    # pointee of every acquirer's pointer result (THFloatTensor, THClTensor). A pointer to another
    # record type passed beside one of them (`THClTensor_free(state, t)`) is a handle, not a
    # reference. Derived from the unit's declarations, so not in the fingerprint either.
    unit_counted: frozenset = field(default=frozenset(), metadata={"derived": True})
    # The C++ names the unit defines as overloads (`frontend.overloads`): their inferred records
    # are kept by name and signature. Derived from the unit's text, so not in the fingerprint.
    unit_overloads: frozenset = field(default=frozenset(), metadata={"derived": True})

    # Allocator families whose names do not carry a type prefix: an acquirer's reference must be
    # released by a releaser of its own family (malloc/free, new/delete, THAlloc/THFree).
    # Any other name's family is its type prefix: THFloatTensor_newWithSize, THFloatTensor_free.
    families: dict[str, str] = field(default_factory=lambda: {
        r"^(?:malloc|calloc|realloc|reallocarray|strdup|strndup|free)$": "malloc",
        r"^(?:new|delete)$": "new",
        r"^(?:THAlloc|THRealloc|THFree)$": "THAlloc",
    })
    # A library's own table of its functions (the cpython preset's, generated from CPython's
    # Doc/data/refcounts.dat): by exact name, below `summaries` and above the patterns. A call
    # whose callee is declared outside the library's headers (a project function of the same
    # name) does not take it: the headers are those in the folder of `library_header`, or below it.
    library_summaries: dict[str, Summary] = field(default_factory=dict)
    library_header: str = ""
    # Libraries whose documented naming says who owns what (OpenSSL's get0/get1, d2i_*), for a
    # callee their own headers declare, under every preset: below `summaries`, above the rest
    # (conventions/libraries.py).
    libraries: tuple[Library, ...] = LIBRARIES
    # The installed .gir files of libraries besides GLib (the glib preset: conventions/installed.py),
    # for a callee declared in a system header of one of them: below `summaries`, above the rest.
    installed_gir: tuple = ()
    # A system header's function nothing describes that returns a pointer to an incomplete struct
    # (a library's opaque handle: cairo_create) returns an unknown result rather than a borrowed
    # one: GLib-world libraries document ownership per function, not by TH's names
    # (frontend.argtypes.opaque_unknown). The glib preset's.
    opaque_unknown: bool = False
    # Whether an acquirer (by pattern) may return a pointer to a scalar: strdup's `char *` is owned
    # memory, but a CPython-style `PyFoo_FromBar` returning `const char *` is no reference.
    scalar_results: bool = True
    # Acquirers whose `char *`/`wchar_t *` result is owned memory all the same, where scalar_results
    # is off (the cpython preset's Py_DecodeLocale, given back with PyMem_RawFree).
    memory_results: list[str] = field(default_factory=list)
    # Calls taking a Py_BuildValue-style format (pattern -> index of the format argument): the
    # objects its `N` units pass are stolen (`Py_BuildValue("(NN)", a, b)`), O units borrow.
    format_arguments: dict[str, int] = field(default_factory=dict)
    # Functions taking such a format with a `va_list` (pattern -> index of the format argument):
    # a variadic function of the unit that hands its own format parameter to one of them is a
    # format function itself, its `N` units steal (frontend.vaformats).
    va_formats: dict[str, int] = field(default_factory=dict)
    # Calls that end the path when a macro of these names wrote them (callee pattern -> pattern of
    # the macro's name at the call's expansion): GLib's g_return_val_if_reached (val) is `g_log
    # (G_LOG_DOMAIN, G_LOG_LEVEL_CRITICAL, "... should not be reached", ...); return (val);`, a
    # programmer error by its documentation, as g_return_if_fail's g_return_if_fail_warning is
    # (`exit`); a plain g_log or g_critical is no such thing (frontend.exitmacros).
    exit_macros: dict[str, str] = field(default_factory=dict)
    # Calls that fill `&v` outputs with borrowed objects (pattern -> [index of a PyArg_ParseTuple
    # format or -1 for none, index of the first output]): the objects its `O`, `O!`, `S`, `U`, `Y`
    # units store (`PyArg_UnpackTuple`'s every output) are the caller's argument tuple's, and
    # `self->x = x; Py_INCREF(self->x);` after `PyArg_ParseTuple(args, "O", &x)` is clean.
    parse_formats: dict[str, list[int]] = field(default_factory=dict)
    # A function that releases (or hands over) a pointer parameter on a path, and on every other
    # path returns, releases or hands it over, steals it (CPython's `_steal_accumulate(s, acc,
    # stolen)`): it owns the parameter from its entry, and its callers give their reference up.
    # Off for TH, whose Golden Rule leaves releasing a parameter to the free/release functions.
    infer_steals: bool = False
    # The input parameters a project's gtk-doc documents `(transfer full)` (`gtkdoc.takes`):
    # name -> positions. Not a record (round 17 found the annotation wrong too often alone): a hint
    # the body's inference reads (`Summarizer.stolen`), which trusts it where the body gives the
    # parameter up on some path, so that a path leaving it is the function's own leak.
    documented_takes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # Functions whose gtk-doc documents a non-const pointer result (`Returns: a new #RestXmlNode`)
    # with no transfer annotation: g-ir-scanner's default for it is `full`. Not a record: read
    # only where no body said anything (`Answers._documented_default`), below every other source.
    documented_results: frozenset = frozenset()
    # Callback types (function-pointer typedefs) a project's gtk-doc documents taking parameters
    # over (`callbacktypes`: GrlSourceResultCb's `@media: (transfer full)`): typedef name ->
    # positions. A call through a pointer of that type consumes those arguments.
    documented_callbacks: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # A function whose only effect on a pointer parameter is to store it into memory another
    # parameter reaches (ultrajson's `SetupDictIter(obj, pc)`: `pc->dictObj = obj`) is built and
    # summarised as a `store` (the CPython store-then-INCREF idiom). The cpython preset's: in GLib
    # code such a pointer (user data, a back-pointer) is lent, and wrappers of such setters made
    # their callers' parameters sinks (json-glib's json_scanner_create, a false RC009).
    infer_setters: bool = False
    # A name the patterns make an acquirer or a releaser takes what its body says of its
    # arguments (dconf's `dconf_engine_new` keeps its user data, `verify_and_free` frees one of
    # four). The glib preset's: TH's and CPython's names say all there is, and asking every such
    # callee's body made the asks part of TH's instance keys, which a sharded run (-j2) then
    # disagreed on between shards: 586 definitions analysed instead of 358.
    refine_patterns: bool = False

    @cached_property
    def _compiled(self) -> dict[str, re.Pattern]:
        def join(patterns: list[str]) -> re.Pattern:
            return re.compile("|".join(f"(?:{p})" for p in patterns) or r"(?!)")

        return {name: join(getattr(self, name)) for name in (
            "acquire", "reallocate", "may_fail", "retain", "release", "consume", "consume_owned", "null_sorted", "never_null", "memory_results", "shallow_free", "list_pops", "table_store", "parent_classes", "error",
            "exit", "pure",
            "context", "primitive", "may_raise", "borrowed", "steal", "frame", "borrow_accessors", "error_indicator", "borrowed_items", "null_results", "floating",
            "ref_sink", "take_ref", "child_process", "take_constants", "take_flags", "thread_exits", "held_results", "held_fills", "error_out", "false_if_null", "zero_if_null", "destructor_slots", "fresh_slots", "destructor_names", "singletons", "singleton_types", "opaque_setters")}

    @cached_property
    def _conditional(self) -> list[tuple[re.Pattern, int]]:
        return [(re.compile(p), i) for p, i in self.conditional_error.items()]

    @cached_property
    def _tables(self) -> dict[str, list[tuple[re.Pattern, object]]]:
        return {name: [(re.compile(p), v) for p, v in getattr(self, name).items()]
                for name in ("sinks", "error_if_nonzero", "may_return_argument", "same_size", "same_size_test",
                             "argument_returned_only_if", "families", "format_arguments", "va_formats", "parse_formats",
                             "exit_macros", "table_new", "error_state")}

    def for_unit(self, **derived) -> "Conventions":
        """A copy with derived fields set (the engine's per-unit ones), keeping what this instance
        has cached: none of it reads a derived field, and a fresh copy would compile the
        patterns, fill the name cache and build the fingerprint again for every unit."""
        names = {f.name for f in fields(self) if f.metadata.get("derived")}
        if not derived.keys() <= names:
            raise ValueError(f"not derived fields: {sorted(derived.keys() - names)}")
        out = replace(self, **derived)
        self.fingerprint()  # every unit's instance keys ask it: built once, on the run's copy
        for name in _CACHES:
            if name in self.__dict__:
                out.__dict__[name] = self.__dict__[name]
        return out

    def fingerprint(self) -> str:
        """Stable text for cache keys: every field but the derived ones, so a new field is in it."""
        return self._fingerprint

    @cached_property
    def _fingerprint(self) -> str:
        # Once per instance (fields are not changed after construction, as `_compiled` assumes
        # too): the instance keys ask it per definition, and a GIR-sized summary table made
        # each ask 10 ms (json-glib's json-parser.c: 23 asks, a fifth of its analysis).
        return repr(tuple(_stable(getattr(self, f.name)) for f in fields(self) if not f.metadata.get("derived")))


# The cached properties that read no derived field (`Conventions.for_unit`).
_CACHES = ("_compiled", "_conditional", "_tables", "_summaries", "_fingerprint", "_counts")


def _stable(value) -> object:
    """A field's value in a form whose repr does not depend on insertion order."""
    if isinstance(value, dict):
        return sorted((k, record_table(v) if isinstance(v, Summary) else v) for k, v in value.items())
    return value
