#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THSTensor.h"
#else

/* A sparse tensor in coordinate form: column k of indices (nDimensionI x capacity) holds the
 * coordinates, in the first nDimensionI dimensions, of values[k] (a block over the remaining
 * nDimensionV dense dimensions). Only the first nnz columns are in use. Duplicate coordinates
 * add up. Read indices and values through newIndices/newValues, never the fields. */
typedef struct THSTensor
{
  int64_t *size;
  int nDimensionI;
  int nDimensionV;
  int64_t nnz;
  THIndexTensor *indices;
  THTensor *values;
  THAtomicInt refcount;
} THSTensor;

/* Keeps (retains) indices and values; checks every coordinate against size. */
TH_API THSTensor *THSTensor_(newWithTensorAndSize)(THIndexTensor *indices, THTensor *values,
                                                   THLongStorage *size);
TH_API void THSTensor_(retain)(THSTensor *self);
TH_API void THSTensor_(free)(THSTensor *self);

TH_API int THSTensor_(nDimension)(const THSTensor *self);
TH_API int THSTensor_(nDimensionI)(const THSTensor *self);
TH_API int THSTensor_(nDimensionV)(const THSTensor *self);
TH_API int64_t THSTensor_(nnz)(const THSTensor *self);
TH_API int64_t THSTensor_(size)(const THSTensor *self, int dim);
TH_API int THSTensor_(refcount)(const THSTensor *self);
TH_API THLongStorage *THSTensor_(newSizeOf)(THSTensor *self);
/* Drops the entries from nnz on (the tensors keep their capacity). */
TH_API void THSTensor_(shrinkNnz)(THSTensor *self, int64_t nnz);

/* The nDimensionI x nnz coordinates in use: a view of the indices, owned by the caller. */
TH_API THIndexTensor *THSTensor_(newIndices)(const THSTensor *self);
/* The nnz value blocks in use: a view of the values, owned by the caller. */
TH_API THTensor *THSTensor_(newValues)(const THSTensor *self);

/* r_ = the dense form of self (resized to self's size). */
TH_API void THSTensor_(toDense)(THTensor *r_, THSTensor *self);

#endif
