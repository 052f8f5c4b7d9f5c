#ifndef THC_GENERIC_FILE
#define THC_GENERIC_FILE "generic/THCTensor.h"
#else

/* TH's object model on the device: element (i0, i1, ...) lives at
 * storage->data[storageOffset + i0*stride[0] + ...], tensors alias exactly when they share a
 * storage, and nDimension 0 means empty. Sizes and strides live on the host. */
typedef struct THCTensor
{
  int64_t *size;
  int64_t *stride;
  int nDimension;
  THCStorage *storage;
  ptrdiff_t storageOffset;
  int refcount;  /* only touched through __atomic builtins */
  char flag;
} THCTensor;

/* ---- access (borrowed results) ---- */
TH_API THCStorage *THCTensor_(storage)(THCState *state, const THCTensor *self);
TH_API ptrdiff_t THCTensor_(storageOffset)(THCState *state, const THCTensor *self);
TH_API int THCTensor_(nDimension)(THCState *state, const THCTensor *self);
TH_API int64_t THCTensor_(size)(THCState *state, const THCTensor *self, int dim);
TH_API int64_t THCTensor_(stride)(THCState *state, const THCTensor *self, int dim);
TH_API int THCTensor_(refcount)(THCState *state, const THCTensor *self);
/* The device address of the first element. */
TH_API real *THCTensor_(data)(THCState *state, const THCTensor *self);

/* ---- construction ---- */
TH_API THCTensor *THCTensor_(new)(THCState *state);
TH_API THCTensor *THCTensor_(newWithTensor)(THCState *state, THCTensor *tensor);
/* stride NULL: contiguous. storage NULL: a new storage of the right size. */
TH_API THCTensor *THCTensor_(newWithStorageNd)(THCState *state, THCStorage *storage, ptrdiff_t storageOffset,
                                               int nDimension, const int64_t *size, const int64_t *stride);
TH_API THCTensor *THCTensor_(newWithStorage1d)(THCState *state, THCStorage *storage, ptrdiff_t storageOffset,
                                               int64_t size0, int64_t stride0);
TH_API THCTensor *THCTensor_(newWithStorage2d)(THCState *state, THCStorage *storage, ptrdiff_t storageOffset,
                                               int64_t size0, int64_t stride0, int64_t size1, int64_t stride1);
TH_API THCTensor *THCTensor_(newWithSizeNd)(THCState *state, int nDimension, const int64_t *size);
TH_API THCTensor *THCTensor_(newWithSize1d)(THCState *state, int64_t size0);
TH_API THCTensor *THCTensor_(newWithSize2d)(THCState *state, int64_t size0, int64_t size1);
TH_API THCTensor *THCTensor_(newWithSize3d)(THCState *state, int64_t size0, int64_t size1, int64_t size2);
TH_API THCTensor *THCTensor_(newWithSize4d)(THCState *state, int64_t size0, int64_t size1, int64_t size2,
                                            int64_t size3);
/* A contiguous copy with a storage of its own (copied on the device). */
TH_API THCTensor *THCTensor_(newClone)(THCState *state, THCTensor *self);
/* self itself (retained) when already contiguous, else a contiguous clone. */
TH_API THCTensor *THCTensor_(newContiguous)(THCState *state, THCTensor *self);
TH_API THCTensor *THCTensor_(newSelect)(THCState *state, THCTensor *tensor, int dimension, int64_t sliceIndex);
TH_API THCTensor *THCTensor_(newNarrow)(THCState *state, THCTensor *tensor, int dimension, int64_t firstIndex,
                                        int64_t size);
TH_API THCTensor *THCTensor_(newTranspose)(THCState *state, THCTensor *tensor, int dimension1, int dimension2);

/* ---- references ---- */
TH_API void THCTensor_(retain)(THCState *state, THCTensor *self);
TH_API void THCTensor_(free)(THCState *state, THCTensor *self);
/* Copies self into dst, then frees self (which must not be used afterwards). */
TH_API void THCTensor_(freeCopyTo)(THCState *state, THCTensor *self, THCTensor *dst);

/* ---- in place; src NULL means self ---- */
TH_API void THCTensor_(set)(THCState *state, THCTensor *self, THCTensor *src);
TH_API void THCTensor_(setStorageNd)(THCState *state, THCTensor *self, THCStorage *storage,
                                     ptrdiff_t storageOffset, int nDimension, const int64_t *size,
                                     const int64_t *stride);
TH_API void THCTensor_(setStorage1d)(THCState *state, THCTensor *self, THCStorage *storage,
                                     ptrdiff_t storageOffset, int64_t size0, int64_t stride0);
TH_API void THCTensor_(setStorage2d)(THCState *state, THCTensor *self, THCStorage *storage,
                                     ptrdiff_t storageOffset, int64_t size0, int64_t stride0,
                                     int64_t size1, int64_t stride1);
/* stride NULL: contiguous; grows the storage when the new geometry needs more. */
TH_API void THCTensor_(resizeNd)(THCState *state, THCTensor *self, int nDimension, const int64_t *size,
                                 const int64_t *stride);
TH_API void THCTensor_(resizeAs)(THCState *state, THCTensor *self, THCTensor *src);
TH_API void THCTensor_(resize1d)(THCState *state, THCTensor *self, int64_t size0);
TH_API void THCTensor_(resize2d)(THCState *state, THCTensor *self, int64_t size0, int64_t size1);
TH_API void THCTensor_(resize3d)(THCState *state, THCTensor *self, int64_t size0, int64_t size1, int64_t size2);
TH_API void THCTensor_(resize4d)(THCState *state, THCTensor *self, int64_t size0, int64_t size1, int64_t size2,
                                 int64_t size3);
TH_API void THCTensor_(narrow)(THCState *state, THCTensor *self, THCTensor *src, int dimension,
                               int64_t firstIndex, int64_t size);
TH_API void THCTensor_(select)(THCState *state, THCTensor *self, THCTensor *src, int dimension,
                               int64_t sliceIndex);
TH_API void THCTensor_(transpose)(THCState *state, THCTensor *self, THCTensor *src, int dimension1,
                                  int dimension2);

/* ---- queries ---- */
TH_API int THCTensor_(isContiguous)(THCState *state, const THCTensor *self);
TH_API int THCTensor_(isSameSizeAs)(THCState *state, const THCTensor *self, const THCTensor *src);
TH_API ptrdiff_t THCTensor_(nElement)(THCState *state, const THCTensor *self);

#endif
