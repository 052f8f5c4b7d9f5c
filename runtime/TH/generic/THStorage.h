#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THStorage.h"
#else

/* A refcounted block of `size` reals. While `cow` is set, the data belongs to that copy-on-write
 * context and may be shared with other storages: read it freely, but call
 * THStorage_(materialize) (or THStorage_(data)) before writing. */
typedef struct THStorage
{
  real *data;
  ptrdiff_t size;
  THAtomicInt refcount;
  char flag;
  THAllocator *allocator;
  void *allocatorContext;
  THAtomicPtr cow;
} THStorage;

TH_API real *THStorage_(data)(THStorage *self);
TH_API const real *THStorage_(constData)(const THStorage *self);
TH_API ptrdiff_t THStorage_(size)(const THStorage *self);
TH_API int THStorage_(refcount)(const THStorage *self);
TH_API int THStorage_(isLazyClone)(const THStorage *self);
TH_API void THStorage_(set)(THStorage *self, ptrdiff_t idx, real value);
TH_API real THStorage_(get)(const THStorage *self, ptrdiff_t idx);

TH_API THStorage *THStorage_(new)(void);
TH_API THStorage *THStorage_(newWithSize)(ptrdiff_t size);
TH_API THStorage *THStorage_(newWithSize1)(real v0);
TH_API THStorage *THStorage_(newWithSize2)(real v0, real v1);
TH_API THStorage *THStorage_(newWithSize3)(real v0, real v1, real v2);
TH_API THStorage *THStorage_(newWithSize4)(real v0, real v1, real v2, real v3);
TH_API THStorage *THStorage_(newWithAllocator)(ptrdiff_t size, THAllocator *allocator, void *allocatorContext);
/* Takes over `data`, which must come from THAlloc (or from `allocator` for the second form). */
TH_API THStorage *THStorage_(newWithData)(real *data, ptrdiff_t size);
TH_API THStorage *THStorage_(newWithDataAndAllocator)(real *data, ptrdiff_t size,
                                                      THAllocator *allocator, void *allocatorContext);
/* An eager copy. */
TH_API THStorage *THStorage_(newClone)(THStorage *self);
/* A distinct storage sharing self's data until either is written (seed 003). */
TH_API THStorage *THStorage_(newLazyClone)(THStorage *self);

TH_API void THStorage_(setFlag)(THStorage *self, char flag);
TH_API void THStorage_(clearFlag)(THStorage *self, char flag);
TH_API void THStorage_(retain)(THStorage *self);
TH_API void THStorage_(free)(THStorage *self);

/* Gives a lazily cloned storage data of its own: the last holder of shared data keeps it as it
 * is, the others copy it. A no-op for storages that share nothing. */
TH_API void THStorage_(materialize)(THStorage *self);
TH_API void THStorage_(resize)(THStorage *self, ptrdiff_t size);
TH_API void THStorage_(fill)(THStorage *self, real value);

#endif
