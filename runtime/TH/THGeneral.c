#include "THGeneral.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* Handlers are per thread, as in TH: a test that recovers from an error on one thread must not
 * change what happens on another. */
static void defaultErrorHandler(const char *msg, void *data);
static _Thread_local THErrorHandlerFunction errorHandler = defaultErrorHandler;
static _Thread_local void *errorHandlerData = NULL;

static atomic_long liveObjects[TH_LIVE_KINDS];

static void defaultErrorHandler(const char *msg, void *data)
{
  (void)data;
  fprintf(stderr, "TH error: %s\n", msg);
  fflush(stderr);
  abort();
}

void THSetErrorHandler(THErrorHandlerFunction handler, void *data)
{
  errorHandler = handler ? handler : defaultErrorHandler;
  errorHandlerData = handler ? data : NULL;
}

void THSetDefaultErrorHandler(void)
{
  THSetErrorHandler(NULL, NULL);
}

static TH_NO_RETURN void raise_formatted(const char *file, int line, const char *prefix,
                                         const char *fmt, va_list args)
{
  char msg[2048];
  int n = snprintf(msg, sizeof msg, "%s", prefix);
  if (n < 0 || (size_t)n >= sizeof msg)
    n = 0;
  int m = vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, args);
  if (m >= 0 && (size_t)(n + m) < sizeof msg)
    snprintf(msg + n + m, sizeof msg - (size_t)(n + m), " at %s:%d", file, line);
  errorHandler(msg, errorHandlerData);
  /* A handler that returns would let the caller run on past a failed check. */
  fprintf(stderr, "TH error handler returned; aborting: %s\n", msg);
  abort();
}

void _THError(const char *file, int line, const char *fmt, ...)
{
  va_list args;
  va_start(args, fmt);
  raise_formatted(file, line, "", fmt, args);
}

void THArgError(const char *file, int line, int argNumber, const char *fmt, ...)
{
  char prefix[64];
  snprintf(prefix, sizeof prefix, "invalid argument %d: ", argNumber);
  va_list args;
  va_start(args, fmt);
  raise_formatted(file, line, prefix, fmt, args);
}

void *THAlloc(ptrdiff_t size)
{
  if (size < 0)
    THError("THAlloc: negative size %td", size);
  if (size == 0)
    return NULL;
  void *ptr = malloc((size_t)size);
  if (!ptr)
    THError("THAlloc: out of memory allocating %td bytes", size);
  THLiveAdd(TH_LIVE_DATA, 1);
  return ptr;
}

void *THRealloc(void *ptr, ptrdiff_t size)
{
  /* realloc(ptr, 0) is implementation-defined; THFree is the way to give a block back. */
  if (size <= 0)
    THError("THRealloc: size must be positive, got %td", size);
  void *grown = realloc(ptr, (size_t)size);
  if (!grown)
    THError("THRealloc: out of memory reallocating to %td bytes", size);
  if (!ptr)
    THLiveAdd(TH_LIVE_DATA, 1);
  return grown;
}

void THFree(void *ptr)
{
  if (!ptr)
    return;
  THLiveAdd(TH_LIVE_DATA, -1);
  free(ptr);
}

/* Named like every other TH function that hands out or takes back ownership. */
static void *THDefaultAllocator_newBlock(void *ctx, ptrdiff_t size)
{
  (void)ctx;
  return THAlloc(size);
}

static void THDefaultAllocator_free(void *ctx, void *ptr)
{
  (void)ctx;
  THFree(ptr);
}

THAllocator THDefaultAllocator = { THDefaultAllocator_newBlock, THDefaultAllocator_free };

long THLiveObjects(int kind)
{
  if (kind < 0 || kind >= TH_LIVE_KINDS)
    return -1;
  return atomic_load(&liveObjects[kind]);
}

void THLiveAdd(int kind, long delta)
{
  if (kind < 0 || kind >= TH_LIVE_KINDS)
    THError("THLiveAdd: unknown kind %d", kind);
  atomic_fetch_add(&liveObjects[kind], delta);
}
