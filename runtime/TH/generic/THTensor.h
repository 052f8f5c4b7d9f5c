#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensor.h"
#else

/* A view of a storage: element (i0, i1, ...) lives at
 * storage->data[storageOffset + i0*stride[0] + i1*stride[1] + ...]. Tensors alias exactly when
 * they share a storage. A tensor always has a storage; nDimension 0 means empty (old TH). */
typedef struct THTensor
{
  int64_t *size;
  int64_t *stride;
  int nDimension;
  THStorage *storage;
  ptrdiff_t storageOffset;
  THAtomicInt refcount;
  char flag;
} THTensor;

/* ---- access (borrowed results) ---- */
TH_API THStorage *THTensor_(storage)(const THTensor *self);
TH_API ptrdiff_t THTensor_(storageOffset)(const THTensor *self);
TH_API int THTensor_(nDimension)(const THTensor *self);
TH_API int64_t THTensor_(size)(const THTensor *self, int dim);
TH_API int64_t THTensor_(stride)(const THTensor *self, int dim);
TH_API int THTensor_(refcount)(const THTensor *self);
/* The first element, for writing: materializes a lazily cloned storage first. */
TH_API real *THTensor_(data)(THTensor *self);
/* The first element, for reading only. */
TH_API const real *THTensor_(constData)(const THTensor *self);
TH_API THLongStorage *THTensor_(newSizeOf)(THTensor *self);
TH_API THLongStorage *THTensor_(newStrideOf)(THTensor *self);

/* ---- construction ---- */
TH_API THTensor *THTensor_(new)(void);
/* A view sharing tensor's storage, sizes and strides. */
TH_API THTensor *THTensor_(newWithTensor)(THTensor *tensor);
/* size NULL: empty; stride NULL: contiguous. */
TH_API THTensor *THTensor_(newWithStorage)(THStorage *storage, ptrdiff_t storageOffset,
                                           THLongStorage *size, THLongStorage *stride);
TH_API THTensor *THTensor_(newWithStorage1d)(THStorage *storage, ptrdiff_t storageOffset,
                                             int64_t size0, int64_t stride0);
TH_API THTensor *THTensor_(newWithStorage2d)(THStorage *storage, ptrdiff_t storageOffset,
                                             int64_t size0, int64_t stride0,
                                             int64_t size1, int64_t stride1);
TH_API THTensor *THTensor_(newWithSize)(THLongStorage *size, THLongStorage *stride);
TH_API THTensor *THTensor_(newWithSize1d)(int64_t size0);
TH_API THTensor *THTensor_(newWithSize2d)(int64_t size0, int64_t size1);
TH_API THTensor *THTensor_(newWithSize3d)(int64_t size0, int64_t size1, int64_t size2);
TH_API THTensor *THTensor_(newWithSize4d)(int64_t size0, int64_t size1, int64_t size2, int64_t size3);
/* A contiguous copy with a storage of its own. */
TH_API THTensor *THTensor_(newClone)(THTensor *self);
/* A contiguous copy that shares self's data until either is written. */
TH_API THTensor *THTensor_(newLazyClone)(THTensor *self);
/* self itself (retained) when already contiguous, else a contiguous clone. */
TH_API THTensor *THTensor_(newContiguous)(THTensor *self);
TH_API THTensor *THTensor_(newSelect)(THTensor *tensor, int dimension, int64_t sliceIndex);
TH_API THTensor *THTensor_(newNarrow)(THTensor *tensor, int dimension, int64_t firstIndex, int64_t size);
TH_API THTensor *THTensor_(newTranspose)(THTensor *tensor, int dimension1, int dimension2);
TH_API THTensor *THTensor_(newUnfold)(THTensor *tensor, int dimension, int64_t size, int64_t step);
/* A view of a contiguous tensor with other sizes; one size may be -1 (inferred). */
TH_API THTensor *THTensor_(newView)(THTensor *tensor, THLongStorage *size);
/* A view broadcasting dimensions of size 1 to `size` with stride 0. */
TH_API THTensor *THTensor_(newExpand)(THTensor *tensor, THLongStorage *size);

/* ---- references ---- */
TH_API void THTensor_(retain)(THTensor *self);
TH_API void THTensor_(free)(THTensor *self);
/* Copies self into dst, then frees self (which must not be used afterwards). */
TH_API void THTensor_(freeCopyTo)(THTensor *self, THTensor *dst);

/* ---- in place; src NULL means self ---- */
TH_API void THTensor_(set)(THTensor *self, THTensor *src);
TH_API void THTensor_(setStorage)(THTensor *self, THStorage *storage, ptrdiff_t storageOffset,
                                  THLongStorage *size, THLongStorage *stride);
TH_API void THTensor_(resize)(THTensor *self, THLongStorage *size, THLongStorage *stride);
TH_API void THTensor_(resizeAs)(THTensor *self, THTensor *src);
TH_API void THTensor_(resize1d)(THTensor *self, int64_t size0);
TH_API void THTensor_(resize2d)(THTensor *self, int64_t size0, int64_t size1);
TH_API void THTensor_(resize3d)(THTensor *self, int64_t size0, int64_t size1, int64_t size2);
TH_API void THTensor_(resize4d)(THTensor *self, int64_t size0, int64_t size1, int64_t size2, int64_t size3);
TH_API void THTensor_(narrow)(THTensor *self, THTensor *src, int dimension, int64_t firstIndex, int64_t size);
TH_API void THTensor_(select)(THTensor *self, THTensor *src, int dimension, int64_t sliceIndex);
TH_API void THTensor_(transpose)(THTensor *self, THTensor *src, int dimension1, int dimension2);
TH_API void THTensor_(unfold)(THTensor *self, THTensor *src, int dimension, int64_t size, int64_t step);
TH_API void THTensor_(squeeze)(THTensor *self, THTensor *src);
TH_API void THTensor_(squeeze1d)(THTensor *self, THTensor *src, int dimension);
TH_API void THTensor_(unsqueeze)(THTensor *self, THTensor *src, int dimension);
/* Gives self's storage data of its own before a write (copy-on-write). */
TH_API void THTensor_(prepareWrite)(THTensor *self);

/* ---- queries ---- */
TH_API int THTensor_(isContiguous)(const THTensor *self);
TH_API int THTensor_(isSameSizeAs)(const THTensor *self, const THTensor *src);
TH_API int THTensor_(isSetTo)(const THTensor *self, const THTensor *src);
TH_API ptrdiff_t THTensor_(nElement)(const THTensor *self);

TH_API void THTensor_(set1d)(THTensor *self, int64_t x0, real value);
TH_API real THTensor_(get1d)(const THTensor *self, int64_t x0);
TH_API void THTensor_(set2d)(THTensor *self, int64_t x0, int64_t x1, real value);
TH_API real THTensor_(get2d)(const THTensor *self, int64_t x0, int64_t x1);

#endif
