#ifndef THC_GENERIC_FILE
#define THC_GENERIC_FILE "generic/THCStorage.h"
#else

/* A refcounted block of `size` reals in device memory; the struct itself lives on the host. */
typedef struct THCStorage
{
  real *data;
  ptrdiff_t size;
  int refcount;  /* only touched through __atomic builtins */
  char flag;
  int device;
} THCStorage;

TH_API real *THCStorage_(data)(THCState *state, THCStorage *self);
TH_API ptrdiff_t THCStorage_(size)(THCState *state, const THCStorage *self);
TH_API int THCStorage_(refcount)(THCState *state, const THCStorage *self);

TH_API THCStorage *THCStorage_(new)(THCState *state);
TH_API THCStorage *THCStorage_(newWithSize)(THCState *state, ptrdiff_t size);
TH_API THCStorage *THCStorage_(newClone)(THCState *state, THCStorage *self);

TH_API void THCStorage_(retain)(THCState *state, THCStorage *self);
TH_API void THCStorage_(free)(THCState *state, THCStorage *self);

/* Keeps the first min(old, new) elements. */
TH_API void THCStorage_(resize)(THCState *state, THCStorage *self, ptrdiff_t size);
TH_API void THCStorage_(fill)(THCState *state, THCStorage *self, real value);
TH_API void THCStorage_(set)(THCState *state, THCStorage *self, ptrdiff_t index, real value);
TH_API real THCStorage_(get)(THCState *state, const THCStorage *self, ptrdiff_t index);

/* Whole-storage copies between host memory and the device; sizes must match. */
TH_API void THCStorage_(copyFromHost)(THCState *state, THCStorage *self, const real *src, ptrdiff_t n);
TH_API void THCStorage_(copyToHost)(THCState *state, const THCStorage *self, real *dst, ptrdiff_t n);

#endif
