#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THSTensor.c"
#else

THSTensor *THSTensor_(newWithTensorAndSize)(THIndexTensor *indices, THTensor *values,
                                            THLongStorage *size)
{
  THArgCheck(indices->nDimension == 2, 1, "indices must be 2D, not %dD", indices->nDimension);
  THArgCheck(values->nDimension >= 1, 2, "values must have at least one dimension");
  THArgCheck(indices->size[1] == values->size[0], 2,
             "%" PRId64 " index columns but %" PRId64 " values", indices->size[1], values->size[0]);
  int nDimensionI = (int)indices->size[0];
  int nDimensionV = values->nDimension - 1;
  THArgCheck(nDimensionI >= 1, 1, "indices must index at least one dimension");
  THArgCheck(size->size == nDimensionI + nDimensionV, 3, "%td sizes for %d sparse and %d dense dimensions",
             size->size, nDimensionI, nDimensionV);
  for (int d = 0; d < nDimensionV; d++)
    THArgCheck(values->size[d + 1] == size->data[nDimensionI + d], 3,
               "dense dimension %d has size %" PRId64 ", not %" PRId64, d, values->size[d + 1],
               size->data[nDimensionI + d]);
  int64_t nnz = indices->size[1];
  for (int d = 0; d < nDimensionI; d++) {
    THArgCheck(size->data[d] >= 0, 3, "negative size %" PRId64, size->data[d]);
    for (int64_t k = 0; k < nnz; k++) {
      int64_t at = THIndexTensor_(get2d)(indices, d, k);
      THArgCheck(at >= 0 && at < size->data[d], 1, "index %" PRId64 " out of range for size %" PRId64,
                 at, size->data[d]);
    }
  }

  THSTensor *self = THAlloc(sizeof(THSTensor));
  self->size = THAlloc((ptrdiff_t)sizeof(int64_t) * size->size);
  memcpy(self->size, size->data, sizeof(int64_t) * (size_t)size->size);
  self->nDimensionI = nDimensionI;
  self->nDimensionV = nDimensionV;
  self->nnz = nnz;
  /* We hold on to both, so we retain them (seed 000). */
  THIndexTensor_(retain)(indices);
  self->indices = indices;
  THTensor_(retain)(values);
  self->values = values;
  atomic_init(&self->refcount, 1);
  THLiveAdd(TH_LIVE_TENSOR, 1);
  return self;
}

void THSTensor_(retain)(THSTensor *self)
{
  if (self)
    atomic_fetch_add(&self->refcount, 1);
}

void THSTensor_(free)(THSTensor *self)
{
  if (!self)
    return;
  if (atomic_fetch_sub(&self->refcount, 1) != 1)
    return;
  THFree(self->size);
  THIndexTensor_(free)(self->indices);
  THTensor_(free)(self->values);
  THLiveAdd(TH_LIVE_TENSOR, -1);
  THFree(self);
}

int THSTensor_(nDimension)(const THSTensor *self)
{
  return self->nDimensionI + self->nDimensionV;
}

int THSTensor_(nDimensionI)(const THSTensor *self)
{
  return self->nDimensionI;
}

int THSTensor_(nDimensionV)(const THSTensor *self)
{
  return self->nDimensionV;
}

int64_t THSTensor_(nnz)(const THSTensor *self)
{
  return self->nnz;
}

int64_t THSTensor_(size)(const THSTensor *self, int dim)
{
  THArgCheck(dim >= 0 && dim < THSTensor_(nDimension)(self), 2, "dimension %d out of range", dim);
  return self->size[dim];
}

int THSTensor_(refcount)(const THSTensor *self)
{
  return atomic_load(&((THSTensor *)self)->refcount);
}

THLongStorage *THSTensor_(newSizeOf)(THSTensor *self)
{
  THLongStorage *size = THLongStorage_newWithSize(THSTensor_(nDimension)(self));
  THLongStorage_rawCopy(size, self->size);
  return size;
}

void THSTensor_(shrinkNnz)(THSTensor *self, int64_t nnz)
{
  THArgCheck(nnz >= 0 && nnz <= self->nnz, 2, "nnz %" PRId64 " out of range [0, %" PRId64 "]",
             nnz, self->nnz);
  self->nnz = nnz;
}

THIndexTensor *THSTensor_(newIndices)(const THSTensor *self)
{
  return THIndexTensor_(newNarrow)(self->indices, 1, 0, self->nnz);
}

THTensor *THSTensor_(newValues)(const THSTensor *self)
{
  return THTensor_(newNarrow)(self->values, 0, 0, self->nnz);
}

void THSTensor_(toDense)(THTensor *r_, THSTensor *self)
{
  THLongStorage *size = THSTensor_(newSizeOf)(self);
  THTensor_(resize)(r_, size, NULL);
  THLongStorage_free(size);
  THTensor_(zero)(r_);
  if (self->nnz == 0)
    return;

  THIndexTensor *indices = THSTensor_(newIndices)(self);
  THTensor *values = THSTensor_(newValues)(self);
  THTensor_(prepareWrite)(r_);
  int nDimensionI = self->nDimensionI;
  int nDimensionV = self->nDimensionV;
  for (int64_t k = 0; k < self->nnz; k++) {
    ptrdiff_t offset = r_->storageOffset;
    for (int d = 0; d < nDimensionI; d++)
      offset += THIndexTensor_(get2d)(indices, d, k) * r_->stride[d];
    if (nDimensionV == 0) {
      r_->storage->data[offset] += THTensor_(get1d)(values, k);
      continue;
    }
    /* The dense block at those coordinates, as a view of r_, gets values[k] added. */
    THTensor *block = THTensor_(newWithTensor)(r_);
    for (int d = 0; d < nDimensionI; d++)
      THTensor_(select)(block, NULL, 0, THIndexTensor_(get2d)(indices, d, k));
    THTensor *value = THTensor_(newSelect)(values, 0, k);
    THTensor_(cadd)(block, block, 1, value);
    THTensor_(free)(value);
    THTensor_(free)(block);
  }
  THIndexTensor_(free)(indices);
  THTensor_(free)(values);
}

#endif
