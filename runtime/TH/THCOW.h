#ifndef TH_COW_INC
#define TH_COW_INC

/* Copy-on-write data contexts (seed 003), private to libTH.
 *
 * A context owns the data of every storage that lazily shares it and counts those storages.
 * A lazy clone is a read of its source: it only bumps the count. A write materializes: a holder
 * that is not the last copies the data under the shared lock after giving up its reference; the
 * last holder takes the exclusive lock, which waits for those pending copies, and then keeps the
 * data as it is. */

#include "THGeneral.h"

typedef struct THCOWContext THCOWContext;

/* Takes over `data` (allocated by `allocator`); one reference, for the storage that had it. */
THCOWContext *THCOWContext_new(void *data, THAllocator *allocator, void *allocatorContext);
void THCOWContext_retain(THCOWContext *ctx);
/* Drops one reference; the last one frees the data (unless it was stolen) and the context. */
void THCOWContext_free(THCOWContext *ctx);

/* Starts a write by one holder. Returns 1 when others still share the data: the caller's
 * reference is gone, it holds the shared lock and must copy the data, then call
 * THCOWContext_endCopy and forget the context. Returns 0 when the caller is the last holder: it
 * still holds its reference and should THCOWContext_steal and THCOWContext_free. */
int THCOWContext_beginCopy(THCOWContext *ctx);
void THCOWContext_endCopy(THCOWContext *ctx);
/* Waits for pending copies, then hands the data over to the caller, who learns how it was
 * allocated; the context will not free it. */
void THCOWContext_steal(THCOWContext *ctx, THAllocator **allocator, void **allocatorContext);

/* Serializes the first lazy clone of a storage, which installs its context. */
void THCOWContext_lockInstall(void);
void THCOWContext_unlockInstall(void);

#endif
