#ifndef TH_ATOMIC_INC
#define TH_ATOMIC_INC

/* Refcounts and the copy-on-write link are C11 atomics. C++ translation units (THC) only need the
 * struct layouts, never touch these fields themselves (they call TH_API functions), and cannot
 * spell _Atomic, so they see the plain types of the same size and alignment. */
#ifdef __cplusplus
typedef int THAtomicInt;
typedef void *THAtomicPtr;
#else
#include <stdatomic.h>
typedef atomic_int THAtomicInt;
typedef _Atomic(void *) THAtomicPtr;
#endif

#endif
