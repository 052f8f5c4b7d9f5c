#define _POSIX_C_SOURCE 200809L

#include "THStorage.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "THCOW.h"

struct THCOWContext {
  atomic_int refcount;
  pthread_rwlock_t lock;
  void *data;
  THAllocator *allocator;
  void *allocatorContext;
};

static pthread_mutex_t installLock = PTHREAD_MUTEX_INITIALIZER;

THCOWContext *THCOWContext_new(void *data, THAllocator *allocator, void *allocatorContext)
{
  THCOWContext *ctx = THAlloc(sizeof(THCOWContext));
  atomic_init(&ctx->refcount, 1);
  if (pthread_rwlock_init(&ctx->lock, NULL) != 0)
    THError("THCOWContext: cannot create a lock");
  ctx->data = data;
  ctx->allocator = allocator;
  ctx->allocatorContext = allocatorContext;
  THLiveAdd(TH_LIVE_COW, 1);
  return ctx;
}

void THCOWContext_retain(THCOWContext *ctx)
{
  atomic_fetch_add(&ctx->refcount, 1);
}

void THCOWContext_free(THCOWContext *ctx)
{
  if (atomic_fetch_sub(&ctx->refcount, 1) != 1)
    return;
  /* Holders that gave up their reference to copy may still be reading the data. */
  pthread_rwlock_wrlock(&ctx->lock);
  pthread_rwlock_unlock(&ctx->lock);
  if (ctx->data)
    ctx->allocator->free(ctx->allocatorContext, ctx->data);
  pthread_rwlock_destroy(&ctx->lock);
  THLiveAdd(TH_LIVE_COW, -1);
  THFree(ctx);
}

int THCOWContext_beginCopy(THCOWContext *ctx)
{
  pthread_rwlock_rdlock(&ctx->lock);
  int holders = atomic_load(&ctx->refcount);
  /* Only holders can add holders, and the caller is writing its own storage, so a count of 1
   * cannot grow under us: then the caller is the last one and steals instead of copying. */
  while (holders > 1) {
    if (atomic_compare_exchange_weak(&ctx->refcount, &holders, holders - 1))
      return 1;
  }
  pthread_rwlock_unlock(&ctx->lock);
  return 0;
}

void THCOWContext_endCopy(THCOWContext *ctx)
{
  pthread_rwlock_unlock(&ctx->lock);
}

void THCOWContext_steal(THCOWContext *ctx, THAllocator **allocator, void **allocatorContext)
{
  pthread_rwlock_wrlock(&ctx->lock);
  *allocator = ctx->allocator;
  *allocatorContext = ctx->allocatorContext;
  ctx->data = NULL;
  pthread_rwlock_unlock(&ctx->lock);
}

void THCOWContext_lockInstall(void)
{
  pthread_mutex_lock(&installLock);
}

void THCOWContext_unlockInstall(void)
{
  pthread_mutex_unlock(&installLock);
}

#include "generic/THStorage.c"
#include "THGenerateAllTypes.h"

#include "generic/THStorageCopy.c"
#include "THGenerateAllTypes.h"

THLongStorage *THLongStorage_newInferSize(THLongStorage *size, ptrdiff_t nElement)
{
  ptrdiff_t total = (size->size > 0 ? 1 : 0);
  ptrdiff_t inferred = -1;
  for (ptrdiff_t d = 0; d < size->size; d++) {
    if (size->data[d] == -1) {
      THArgCheck(inferred == -1, 1, "only one dimension can be inferred");
      inferred = d;
    } else {
      THArgCheck(size->data[d] >= 0, 1, "invalid size %" PRId64 " in dimension %td",
                 size->data[d], d);
      total *= size->data[d];
    }
  }
  if (inferred != -1)
    THArgCheck(total > 0 && nElement % total == 0, 2,
               "a view of %td elements cannot infer a dimension from the other sizes", nElement);
  else
    THArgCheck(total == nElement, 2, "a view of %td elements cannot have %td", nElement, total);

  THLongStorage *copy = THLongStorage_newWithSize(size->size);
  THLongStorage_copy(copy, size);
  if (inferred != -1)
    THLongStorage_set(copy, inferred, nElement / total);
  return copy;
}
