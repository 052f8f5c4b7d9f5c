#ifndef TH_GENERAL_INC
#define TH_GENERAL_INC

/* Plain C on purpose: C++ (THC's .cu files) includes this header too, so nothing here may need
 * a C++ feature, and every public function carries TH_API for C linkage and export. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
# define TH_EXTERNC extern "C"
#else
# define TH_EXTERNC extern
#endif

#define TH_API TH_EXTERNC __attribute__((visibility("default")))

#if defined(__GNUC__) || defined(__clang__)
# define TH_NO_RETURN __attribute__((noreturn))
# define TH_FORMAT(FMT, ARGS) __attribute__((format(printf, FMT, ARGS)))
#else
# define TH_NO_RETURN
# define TH_FORMAT(FMT, ARGS)
#endif

#define TH_CONCAT_2_EXPAND(x, y) x ## y
#define TH_CONCAT_2(x, y) TH_CONCAT_2_EXPAND(x, y)
#define TH_CONCAT_3_EXPAND(x, y, z) x ## y ## z
#define TH_CONCAT_3(x, y, z) TH_CONCAT_3_EXPAND(x, y, z)
#define TH_CONCAT_4_EXPAND(x, y, z, w) x ## y ## z ## w
#define TH_CONCAT_4(x, y, z, w) TH_CONCAT_4_EXPAND(x, y, z, w)

#define THMin(X, Y) ((X) < (Y) ? (X) : (Y))
#define THMax(X, Y) ((X) > (Y) ? (X) : (Y))

/* ---- errors ------------------------------------------------------------------------------ */

/* A handler receives the formatted message. The default prints it and aborts. A handler may
 * longjmp out (the test suite does, to recover); if it returns, TH aborts anyway, so THError
 * really never returns and callers need no cleanup on error paths. */
typedef void (*THErrorHandlerFunction)(const char *msg, void *data);

TH_API void THSetErrorHandler(THErrorHandlerFunction handler, void *data);
TH_API void THSetDefaultErrorHandler(void);
TH_API TH_NO_RETURN void _THError(const char *file, int line, const char *fmt, ...) TH_FORMAT(3, 4);
TH_API TH_NO_RETURN void THArgError(const char *file, int line, int argNumber, const char *fmt, ...)
  TH_FORMAT(4, 5);

#define THError(...) _THError(__FILE__, __LINE__, __VA_ARGS__)

/* The condition stays visible at the call site so that an analyzer sees the error edge. */
#define THArgCheck(COND, ARGN, ...) \
  do { if (!(COND)) THArgError(__FILE__, __LINE__, (ARGN), __VA_ARGS__); } while (0)

#define THAssert(COND) \
  do { if (!(COND)) _THError(__FILE__, __LINE__, "assertion failed: %s", #COND); } while (0)

/* ---- memory ------------------------------------------------------------------------------ */

/* Every block from THAlloc/THRealloc is counted until THFree, so tests can prove that nothing
 * leaked. THAlloc(0) returns NULL; running out of memory is a THError. */
TH_API void *THAlloc(ptrdiff_t size);
TH_API void *THRealloc(void *ptr, ptrdiff_t size);
TH_API void THFree(void *ptr);

/* Storage data comes from an allocator; ctx is the allocator's own state (seed 004's
 * allocator + allocatorContext pair). Resizing is malloc + copy + free, so allocators need
 * no realloc of their own. */
typedef struct THAllocator {
  void *(*malloc)(void *ctx, ptrdiff_t size);
  void (*free)(void *ctx, void *ptr);
} THAllocator;

/* THAlloc/THRealloc/THFree behind the allocator interface; ctx is unused. */
TH_API THAllocator THDefaultAllocator;

/* ---- leak accounting --------------------------------------------------------------------- */

typedef enum THLiveKind {
  TH_LIVE_STORAGE = 0,  /* storage structs of every type */
  TH_LIVE_TENSOR = 1,   /* tensor structs of every type, THS included */
  TH_LIVE_DATA = 2,     /* blocks from THAlloc/THRealloc not yet THFree'd */
  TH_LIVE_COW = 3,      /* copy-on-write data contexts */
  TH_LIVE_KINDS = 4
} THLiveKind;

/* How many objects of a kind exist now; -1 for an unknown kind. */
TH_API long THLiveObjects(int kind);
/* Bookkeeping for the constructors and destructors of counted objects. */
TH_API void THLiveAdd(int kind, long delta);

#endif
