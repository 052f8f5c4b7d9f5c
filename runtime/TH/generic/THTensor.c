#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensor.c"
#else

/* ---- access ---- */

THStorage *THTensor_(storage)(const THTensor *self)
{
  return self->storage;
}

ptrdiff_t THTensor_(storageOffset)(const THTensor *self)
{
  return self->storageOffset;
}

int THTensor_(nDimension)(const THTensor *self)
{
  return self->nDimension;
}

int64_t THTensor_(size)(const THTensor *self, int dim)
{
  THArgCheck(dim >= 0 && dim < self->nDimension, 2, "dimension %d out of range of %dD tensor",
             dim, self->nDimension);
  return self->size[dim];
}

int64_t THTensor_(stride)(const THTensor *self, int dim)
{
  THArgCheck(dim >= 0 && dim < self->nDimension, 2, "dimension %d out of range of %dD tensor",
             dim, self->nDimension);
  return self->stride[dim];
}

int THTensor_(refcount)(const THTensor *self)
{
  return atomic_load(&((THTensor *)self)->refcount);
}

real *THTensor_(data)(THTensor *self)
{
  THTensor_(prepareWrite)(self);
  return self->storage->data + self->storageOffset;
}

const real *THTensor_(constData)(const THTensor *self)
{
  return self->storage->data + self->storageOffset;
}

THLongStorage *THTensor_(newSizeOf)(THTensor *self)
{
  THLongStorage *size = THLongStorage_newWithSize(self->nDimension);
  THLongStorage_rawCopy(size, self->size);
  return size;
}

THLongStorage *THTensor_(newStrideOf)(THTensor *self)
{
  THLongStorage *stride = THLongStorage_newWithSize(self->nDimension);
  THLongStorage_rawCopy(stride, self->stride);
  return stride;
}

/* ---- geometry helpers ---- */

/* Checked before anything is allocated, so that a failing check leaves nothing to clean up. */
static void THTensor_(checkGeometry)(ptrdiff_t storageOffset, int nDimension, const int64_t *size,
                                     const int64_t *stride)
{
  THArgCheck(storageOffset >= 0, 2, "negative storage offset %td", storageOffset);
  for (int d = 0; d < nDimension; d++) {
    THArgCheck(size[d] >= 0, 3, "negative size %" PRId64 " in dimension %d", size[d], d);
    if (stride)
      THArgCheck(stride[d] >= 0, 4, "negative stride %" PRId64 " in dimension %d", stride[d], d);
  }
}

static void THTensor_(resizeNd)(THTensor *self, int nDimension, const int64_t *size,
                                const int64_t *stride)
{
  THTensor_(checkGeometry)(self->storageOffset, nDimension, size, stride);
  /* Already that size (and those strides, when given): a strided view keeps its strides. */
  int same = nDimension == self->nDimension;
  for (int d = 0; d < nDimension && same; d++)
    same = size[d] == self->size[d] && (!stride || stride[d] == self->stride[d]);

  if (!same) {
    if (nDimension != self->nDimension) {
      if (nDimension == 0) {
        THFree(self->size);
        THFree(self->stride);
        self->size = NULL;
        self->stride = NULL;
      } else {
        self->size = THRealloc(self->size, (ptrdiff_t)sizeof(int64_t) * nDimension);
        self->stride = THRealloc(self->stride, (ptrdiff_t)sizeof(int64_t) * nDimension);
      }
      self->nDimension = nDimension;
    }
    for (int d = nDimension - 1; d >= 0; d--) {
      self->size[d] = size[d];
      if (stride)
        self->stride[d] = stride[d];
      else
        self->stride[d] = (d == nDimension - 1) ? 1 : self->stride[d + 1] * THMax(self->size[d + 1], 1);
    }
  }

  /* The storage must reach the last element. */
  ptrdiff_t extent = nDimension > 0 ? 1 : 0;
  for (int d = 0; d < nDimension; d++) {
    if (self->size[d] == 0)
      extent = 0;
  }
  if (extent > 0) {
    for (int d = 0; d < nDimension; d++)
      extent += (self->size[d] - 1) * self->stride[d];
    if (self->storageOffset + extent > self->storage->size)
      THStorage_(resize)(self->storage, self->storageOffset + extent);
  }
}

static void THTensor_(setStorageNd)(THTensor *self, THStorage *storage, ptrdiff_t storageOffset,
                                    int nDimension, const int64_t *size, const int64_t *stride)
{
  THTensor_(checkGeometry)(storageOffset, nDimension, size, stride);
  if (self->storage != storage) {
    if (storage) {
      THStorage_(retain)(storage);
      THStorage_(free)(self->storage);
      self->storage = storage;
    } else {
      THStorage_(free)(self->storage);
      self->storage = THStorage_(new)();
    }
  }
  self->storageOffset = storageOffset;
  THTensor_(resizeNd)(self, nDimension, size, stride);
}

/* ---- construction ---- */

THTensor *THTensor_(new)(void)
{
  THTensor *self = THAlloc(sizeof(THTensor));
  self->size = NULL;
  self->stride = NULL;
  self->nDimension = 0;
  self->storage = THStorage_(new)();
  self->storageOffset = 0;
  atomic_init(&self->refcount, 1);
  self->flag = 0;
  THLiveAdd(TH_LIVE_TENSOR, 1);
  return self;
}

THTensor *THTensor_(newWithTensor)(THTensor *tensor)
{
  THTensor *self = THTensor_(new)();
  THTensor_(setStorageNd)(self, tensor->storage, tensor->storageOffset, tensor->nDimension,
                          tensor->size, tensor->stride);
  return self;
}

THTensor *THTensor_(newWithStorage)(THStorage *storage, ptrdiff_t storageOffset,
                                    THLongStorage *size, THLongStorage *stride)
{
  if (size && stride)
    THArgCheck(size->size == stride->size, 4, "%td sizes but %td strides", size->size, stride->size);
  THArgCheck(size || !stride, 3, "strides without sizes");
  int nDimension = size ? (int)size->size : 0;
  const int64_t *sizes = size ? size->data : NULL;
  const int64_t *strides = stride ? stride->data : NULL;
  THTensor_(checkGeometry)(storageOffset, nDimension, sizes, strides);

  THTensor *self = THTensor_(new)();
  THTensor_(setStorageNd)(self, storage, storageOffset, nDimension, sizes, strides);
  return self;
}

THTensor *THTensor_(newWithStorage1d)(THStorage *storage, ptrdiff_t storageOffset,
                                      int64_t size0, int64_t stride0)
{
  int64_t size[1] = {size0};
  int64_t stride[1] = {stride0};
  THTensor_(checkGeometry)(storageOffset, 1, size, stride);
  THTensor *self = THTensor_(new)();
  THTensor_(setStorageNd)(self, storage, storageOffset, 1, size, stride);
  return self;
}

THTensor *THTensor_(newWithStorage2d)(THStorage *storage, ptrdiff_t storageOffset,
                                      int64_t size0, int64_t stride0,
                                      int64_t size1, int64_t stride1)
{
  int64_t size[2] = {size0, size1};
  int64_t stride[2] = {stride0, stride1};
  THTensor_(checkGeometry)(storageOffset, 2, size, stride);
  THTensor *self = THTensor_(new)();
  THTensor_(setStorageNd)(self, storage, storageOffset, 2, size, stride);
  return self;
}

THTensor *THTensor_(newWithSize)(THLongStorage *size, THLongStorage *stride)
{
  return THTensor_(newWithStorage)(NULL, 0, size, stride);
}

static THTensor *THTensor_(newWithSizeNd)(int nDimension, const int64_t *size)
{
  THTensor_(checkGeometry)(0, nDimension, size, NULL);
  THTensor *self = THTensor_(new)();
  THTensor_(resizeNd)(self, nDimension, size, NULL);
  return self;
}

THTensor *THTensor_(newWithSize1d)(int64_t size0)
{
  int64_t size[1] = {size0};
  return THTensor_(newWithSizeNd)(1, size);
}

THTensor *THTensor_(newWithSize2d)(int64_t size0, int64_t size1)
{
  int64_t size[2] = {size0, size1};
  return THTensor_(newWithSizeNd)(2, size);
}

THTensor *THTensor_(newWithSize3d)(int64_t size0, int64_t size1, int64_t size2)
{
  int64_t size[3] = {size0, size1, size2};
  return THTensor_(newWithSizeNd)(3, size);
}

THTensor *THTensor_(newWithSize4d)(int64_t size0, int64_t size1, int64_t size2, int64_t size3)
{
  int64_t size[4] = {size0, size1, size2, size3};
  return THTensor_(newWithSizeNd)(4, size);
}

THTensor *THTensor_(newClone)(THTensor *self)
{
  THTensor *tensor = THTensor_(new)();
  THTensor_(resizeAs)(tensor, self);
  THTensor_(copy)(tensor, self);
  return tensor;
}

THTensor *THTensor_(newLazyClone)(THTensor *self)
{
  THStorage *storage = THStorage_(newLazyClone)(self->storage);
  THTensor *clone = THTensor_(new)();
  /* setStorageNd retains the storage it keeps, so ours is still ours to free. */
  THTensor_(setStorageNd)(clone, storage, self->storageOffset, self->nDimension, self->size,
                          self->stride);
  THStorage_(free)(storage);
  return clone;
}

THTensor *THTensor_(newContiguous)(THTensor *self)
{
  if (!THTensor_(isContiguous)(self))
    return THTensor_(newClone)(self);
  THTensor_(retain)(self);
  return self;
}

/* Argument checks shared by the in-place views and their new* twins, so that the new* ones
 * fail before allocating anything. */
static void THTensor_(checkSelect)(const THTensor *src, int dimension, int64_t sliceIndex)
{
  THArgCheck(src->nDimension > 1, 1, "cannot select on a vector");
  THArgCheck(dimension >= 0 && dimension < src->nDimension, 2, "dimension %d out of range of %dD tensor",
             dimension, src->nDimension);
  THArgCheck(sliceIndex >= 0 && sliceIndex < src->size[dimension], 3,
             "index %" PRId64 " out of range for size %" PRId64, sliceIndex, src->size[dimension]);
}

static void THTensor_(checkNarrow)(const THTensor *src, int dimension, int64_t firstIndex, int64_t size)
{
  THArgCheck(dimension >= 0 && dimension < src->nDimension, 2, "dimension %d out of range of %dD tensor",
             dimension, src->nDimension);
  THArgCheck(firstIndex >= 0 && firstIndex <= src->size[dimension], 3,
             "first index %" PRId64 " out of range for size %" PRId64, firstIndex, src->size[dimension]);
  THArgCheck(size >= 0 && firstIndex + size <= src->size[dimension], 4,
             "size %" PRId64 " from %" PRId64 " out of range for size %" PRId64, size, firstIndex,
             src->size[dimension]);
}

static void THTensor_(checkTranspose)(const THTensor *src, int dimension1, int dimension2)
{
  THArgCheck(dimension1 >= 0 && dimension1 < src->nDimension, 1, "dimension %d out of range of %dD tensor",
             dimension1, src->nDimension);
  THArgCheck(dimension2 >= 0 && dimension2 < src->nDimension, 2, "dimension %d out of range of %dD tensor",
             dimension2, src->nDimension);
}

static void THTensor_(checkUnfold)(const THTensor *src, int dimension, int64_t size, int64_t step)
{
  THArgCheck(src->nDimension > 0, 1, "cannot unfold an empty tensor");
  THArgCheck(dimension >= 0 && dimension < src->nDimension, 2, "dimension %d out of range of %dD tensor",
             dimension, src->nDimension);
  THArgCheck(size >= 0 && size <= src->size[dimension], 3, "size %" PRId64 " out of range", size);
  THArgCheck(step > 0, 4, "step must be positive, got %" PRId64, step);
}

THTensor *THTensor_(newSelect)(THTensor *tensor, int dimension, int64_t sliceIndex)
{
  THTensor_(checkSelect)(tensor, dimension, sliceIndex);
  THTensor *self = THTensor_(newWithTensor)(tensor);
  THTensor_(select)(self, NULL, dimension, sliceIndex);
  return self;
}

THTensor *THTensor_(newNarrow)(THTensor *tensor, int dimension, int64_t firstIndex, int64_t size)
{
  THTensor_(checkNarrow)(tensor, dimension, firstIndex, size);
  THTensor *self = THTensor_(newWithTensor)(tensor);
  THTensor_(narrow)(self, NULL, dimension, firstIndex, size);
  return self;
}

THTensor *THTensor_(newTranspose)(THTensor *tensor, int dimension1, int dimension2)
{
  THTensor_(checkTranspose)(tensor, dimension1, dimension2);
  THTensor *self = THTensor_(newWithTensor)(tensor);
  THTensor_(transpose)(self, NULL, dimension1, dimension2);
  return self;
}

THTensor *THTensor_(newUnfold)(THTensor *tensor, int dimension, int64_t size, int64_t step)
{
  THTensor_(checkUnfold)(tensor, dimension, size, step);
  THTensor *self = THTensor_(newWithTensor)(tensor);
  THTensor_(unfold)(self, NULL, dimension, size, step);
  return self;
}

THTensor *THTensor_(newView)(THTensor *tensor, THLongStorage *size)
{
  THArgCheck(THTensor_(isContiguous)(tensor), 1, "input is not contiguous");
  ptrdiff_t numel = THTensor_(nElement)(tensor);
  /* Inferring checks the sizes, so it goes first: nothing is allocated yet if they are bad. */
  THLongStorage *inferred_size = THLongStorage_newInferSize(size, numel);
  THTensor *self = THTensor_(new)();
  THTensor_(setStorage)(self, tensor->storage, tensor->storageOffset, inferred_size, NULL);
  THLongStorage_free(inferred_size);
  return self;
}

THTensor *THTensor_(newExpand)(THTensor *tensor, THLongStorage *size)
{
  int nDimension = (int)size->size;
  THArgCheck(nDimension >= tensor->nDimension, 2,
             "cannot expand a %dD tensor to %d dimensions", tensor->nDimension, nDimension);
  for (int d = nDimension - 1; d >= 0; d--) {
    int from = d - (nDimension - tensor->nDimension);
    int64_t target = size->data[d];
    int64_t have = from >= 0 ? tensor->size[from] : 1;
    THArgCheck(target >= 0 || (target == -1 && from >= 0), 2,
               "invalid size %" PRId64 " in dimension %d", target, d);
    THArgCheck(target == -1 || have == target || have == 1, 2,
               "cannot expand size %" PRId64 " to %" PRId64 " in dimension %d", have, target, d);
  }

  /* Scratch geometry, handed to setStorageNd (which copies it) and freed here. */
  int64_t *expandedSize = THAlloc((ptrdiff_t)sizeof(int64_t) * THMax(nDimension, 1));
  int64_t *expandedStride = THAlloc((ptrdiff_t)sizeof(int64_t) * THMax(nDimension, 1));
  for (int d = nDimension - 1; d >= 0; d--) {
    int from = d - (nDimension - tensor->nDimension);
    int64_t target = size->data[d];
    if (from < 0) {
      expandedSize[d] = target;
      expandedStride[d] = 0;
    } else if (target == -1 || tensor->size[from] == target) {
      expandedSize[d] = tensor->size[from];
      expandedStride[d] = tensor->stride[from];
    } else {
      expandedSize[d] = target;
      expandedStride[d] = 0;
    }
  }

  THTensor *result = THTensor_(new)();
  THTensor_(setStorageNd)(result, tensor->storage, tensor->storageOffset, nDimension,
                          expandedSize, expandedStride);
  THFree(expandedSize);
  THFree(expandedStride);
  return result;
}

/* ---- references ---- */

void THTensor_(retain)(THTensor *self)
{
  if (self)
    atomic_fetch_add(&self->refcount, 1);
}

void THTensor_(free)(THTensor *self)
{
  if (!self)
    return;
  if (atomic_fetch_sub(&self->refcount, 1) != 1)
    return;
  THFree(self->size);
  THFree(self->stride);
  THStorage_(free)(self->storage);
  THLiveAdd(TH_LIVE_TENSOR, -1);
  THFree(self);
}

void THTensor_(freeCopyTo)(THTensor *self, THTensor *dst)
{
  if (self != dst)
    THTensor_(copy)(dst, self);
  THTensor_(free)(self);
}

/* ---- in place ---- */

void THTensor_(set)(THTensor *self, THTensor *src)
{
  if (self != src)
    THTensor_(setStorageNd)(self, src->storage, src->storageOffset, src->nDimension, src->size,
                            src->stride);
}

void THTensor_(setStorage)(THTensor *self, THStorage *storage, ptrdiff_t storageOffset,
                           THLongStorage *size, THLongStorage *stride)
{
  if (size && stride)
    THArgCheck(size->size == stride->size, 5, "%td sizes but %td strides", size->size, stride->size);
  THArgCheck(size || !stride, 4, "strides without sizes");
  THTensor_(setStorageNd)(self, storage, storageOffset, size ? (int)size->size : 0,
                          size ? size->data : NULL, stride ? stride->data : NULL);
}

void THTensor_(resize)(THTensor *self, THLongStorage *size, THLongStorage *stride)
{
  THArgCheck(size != NULL, 2, "no size");
  if (stride)
    THArgCheck(stride->size == size->size, 3, "%td sizes but %td strides", size->size, stride->size);
  THTensor_(resizeNd)(self, (int)size->size, size->data, stride ? stride->data : NULL);
}

void THTensor_(resizeAs)(THTensor *self, THTensor *src)
{
  if (!THTensor_(isSameSizeAs)(self, src))
    THTensor_(resizeNd)(self, src->nDimension, src->size, NULL);
}

void THTensor_(resize1d)(THTensor *self, int64_t size0)
{
  int64_t size[1] = {size0};
  THTensor_(resizeNd)(self, 1, size, NULL);
}

void THTensor_(resize2d)(THTensor *self, int64_t size0, int64_t size1)
{
  int64_t size[2] = {size0, size1};
  THTensor_(resizeNd)(self, 2, size, NULL);
}

void THTensor_(resize3d)(THTensor *self, int64_t size0, int64_t size1, int64_t size2)
{
  int64_t size[3] = {size0, size1, size2};
  THTensor_(resizeNd)(self, 3, size, NULL);
}

void THTensor_(resize4d)(THTensor *self, int64_t size0, int64_t size1, int64_t size2, int64_t size3)
{
  int64_t size[4] = {size0, size1, size2, size3};
  THTensor_(resizeNd)(self, 4, size, NULL);
}

void THTensor_(narrow)(THTensor *self, THTensor *src, int dimension, int64_t firstIndex, int64_t size)
{
  if (!src)
    src = self;
  THTensor_(checkNarrow)(src, dimension, firstIndex, size);
  THTensor_(set)(self, src);
  if (firstIndex > 0)
    self->storageOffset += firstIndex * self->stride[dimension];
  self->size[dimension] = size;
}

void THTensor_(select)(THTensor *self, THTensor *src, int dimension, int64_t sliceIndex)
{
  if (!src)
    src = self;
  THTensor_(checkSelect)(src, dimension, sliceIndex);
  THTensor_(set)(self, src);
  self->storageOffset += sliceIndex * self->stride[dimension];
  for (int d = dimension; d < self->nDimension - 1; d++) {
    self->size[d] = self->size[d + 1];
    self->stride[d] = self->stride[d + 1];
  }
  self->nDimension--;
}

void THTensor_(transpose)(THTensor *self, THTensor *src, int dimension1, int dimension2)
{
  if (!src)
    src = self;
  THTensor_(checkTranspose)(src, dimension1, dimension2);
  THTensor_(set)(self, src);
  if (dimension1 == dimension2)
    return;
  int64_t z = self->stride[dimension1];
  self->stride[dimension1] = self->stride[dimension2];
  self->stride[dimension2] = z;
  z = self->size[dimension1];
  self->size[dimension1] = self->size[dimension2];
  self->size[dimension2] = z;
}

void THTensor_(unfold)(THTensor *self, THTensor *src, int dimension, int64_t size, int64_t step)
{
  if (!src)
    src = self;
  THTensor_(checkUnfold)(src, dimension, size, step);
  THTensor_(set)(self, src);

  int64_t *newSize = THAlloc((ptrdiff_t)sizeof(int64_t) * (self->nDimension + 1));
  int64_t *newStride = THAlloc((ptrdiff_t)sizeof(int64_t) * (self->nDimension + 1));
  newSize[self->nDimension] = size;
  newStride[self->nDimension] = self->stride[dimension];
  for (int d = 0; d < self->nDimension; d++) {
    if (d == dimension) {
      newSize[d] = (self->size[d] - size) / step + 1;
      newStride[d] = step * self->stride[d];
    } else {
      newSize[d] = self->size[d];
      newStride[d] = self->stride[d];
    }
  }
  THFree(self->size);
  THFree(self->stride);
  self->size = newSize;
  self->stride = newStride;
  self->nDimension++;
}

void THTensor_(squeeze)(THTensor *self, THTensor *src)
{
  if (!src)
    src = self;
  THTensor_(set)(self, src);
  int ndim = 0;
  for (int d = 0; d < src->nDimension; d++) {
    if (src->size[d] != 1) {
      if (d != ndim) {
        self->size[ndim] = src->size[d];
        self->stride[ndim] = src->stride[d];
      }
      ndim++;
    }
  }
  /* A tensor of one element keeps one dimension: nDimension 0 means empty. */
  if (ndim == 0 && src->nDimension > 0) {
    self->size[0] = 1;
    self->stride[0] = 1;
    ndim = 1;
  }
  self->nDimension = ndim;
}

void THTensor_(squeeze1d)(THTensor *self, THTensor *src, int dimension)
{
  if (!src)
    src = self;
  THArgCheck(dimension >= 0 && dimension < src->nDimension, 3, "dimension %d out of range of %dD tensor",
             dimension, src->nDimension);
  THTensor_(set)(self, src);
  if (src->size[dimension] != 1 || src->nDimension == 1)
    return;
  for (int d = dimension; d < self->nDimension - 1; d++) {
    self->size[d] = self->size[d + 1];
    self->stride[d] = self->stride[d + 1];
  }
  self->nDimension--;
}

void THTensor_(unsqueeze)(THTensor *self, THTensor *src, int dimension)
{
  if (!src)
    src = self;
  THArgCheck(dimension >= 0 && dimension <= src->nDimension, 3, "dimension %d out of range of %dD tensor",
             dimension, src->nDimension);
  THArgCheck(src->nDimension > 0, 2, "cannot unsqueeze an empty tensor");
  THTensor_(set)(self, src);

  int nDimension = self->nDimension + 1;
  self->size = THRealloc(self->size, (ptrdiff_t)sizeof(int64_t) * nDimension);
  self->stride = THRealloc(self->stride, (ptrdiff_t)sizeof(int64_t) * nDimension);
  for (int d = nDimension - 1; d > dimension; d--) {
    self->size[d] = self->size[d - 1];
    self->stride[d] = self->stride[d - 1];
  }
  self->stride[dimension] = dimension < self->nDimension
                                ? self->size[dimension + 1] * self->stride[dimension + 1]
                                : 1;
  self->size[dimension] = 1;
  self->nDimension = nDimension;
}

void THTensor_(prepareWrite)(THTensor *self)
{
  THStorage_(materialize)(self->storage);
}

/* ---- queries ---- */

int THTensor_(isContiguous)(const THTensor *self)
{
  int64_t z = 1;
  for (int d = self->nDimension - 1; d >= 0; d--) {
    if (self->size[d] != 1) {
      if (self->stride[d] != z)
        return 0;
      z *= self->size[d];
    }
  }
  return 1;
}

int THTensor_(isSameSizeAs)(const THTensor *self, const THTensor *src)
{
  if (self->nDimension != src->nDimension)
    return 0;
  for (int d = 0; d < self->nDimension; d++)
    if (self->size[d] != src->size[d])
      return 0;
  return 1;
}

int THTensor_(isSetTo)(const THTensor *self, const THTensor *src)
{
  if (self->storage != src->storage || self->storageOffset != src->storageOffset
      || !THTensor_(isSameSizeAs)(self, src))
    return 0;
  for (int d = 0; d < self->nDimension; d++)
    if (self->stride[d] != src->stride[d])
      return 0;
  return 1;
}

ptrdiff_t THTensor_(nElement)(const THTensor *self)
{
  if (self->nDimension == 0)
    return 0;
  ptrdiff_t n = 1;
  for (int d = 0; d < self->nDimension; d++)
    n *= self->size[d];
  return n;
}

void THTensor_(set1d)(THTensor *self, int64_t x0, real value)
{
  THArgCheck(self->nDimension == 1, 1, "tensor must have one dimension");
  THArgCheck(x0 >= 0 && x0 < self->size[0], 2, "index %" PRId64 " out of bounds", x0);
  THTensor_(prepareWrite)(self);
  self->storage->data[self->storageOffset + x0 * self->stride[0]] = value;
}

real THTensor_(get1d)(const THTensor *self, int64_t x0)
{
  THArgCheck(self->nDimension == 1, 1, "tensor must have one dimension");
  THArgCheck(x0 >= 0 && x0 < self->size[0], 2, "index %" PRId64 " out of bounds", x0);
  return self->storage->data[self->storageOffset + x0 * self->stride[0]];
}

void THTensor_(set2d)(THTensor *self, int64_t x0, int64_t x1, real value)
{
  THArgCheck(self->nDimension == 2, 1, "tensor must have two dimensions");
  THArgCheck(x0 >= 0 && x0 < self->size[0], 2, "index %" PRId64 " out of bounds", x0);
  THArgCheck(x1 >= 0 && x1 < self->size[1], 3, "index %" PRId64 " out of bounds", x1);
  THTensor_(prepareWrite)(self);
  self->storage->data[self->storageOffset + x0 * self->stride[0] + x1 * self->stride[1]] = value;
}

real THTensor_(get2d)(const THTensor *self, int64_t x0, int64_t x1)
{
  THArgCheck(self->nDimension == 2, 1, "tensor must have two dimensions");
  THArgCheck(x0 >= 0 && x0 < self->size[0], 2, "index %" PRId64 " out of bounds", x0);
  THArgCheck(x1 >= 0 && x1 < self->size[1], 3, "index %" PRId64 " out of bounds", x1);
  return self->storage->data[self->storageOffset + x0 * self->stride[0] + x1 * self->stride[1]];
}

#endif
