#ifndef THC_GENERIC_FILE
#define THC_GENERIC_FILE "generic/THCTensor.cu"
#else

/* ---- access ---- */

THCStorage *THCTensor_(storage)(THCState *state, const THCTensor *self)
{
  (void)state;
  return self->storage;
}

ptrdiff_t THCTensor_(storageOffset)(THCState *state, const THCTensor *self)
{
  (void)state;
  return self->storageOffset;
}

int THCTensor_(nDimension)(THCState *state, const THCTensor *self)
{
  (void)state;
  return self->nDimension;
}

int64_t THCTensor_(size)(THCState *state, const THCTensor *self, int dim)
{
  (void)state;
  THArgCheck(dim >= 0 && dim < self->nDimension, 3, "dimension %d out of range of %dD tensor",
             dim, self->nDimension);
  return self->size[dim];
}

int64_t THCTensor_(stride)(THCState *state, const THCTensor *self, int dim)
{
  (void)state;
  THArgCheck(dim >= 0 && dim < self->nDimension, 3, "dimension %d out of range of %dD tensor",
             dim, self->nDimension);
  return self->stride[dim];
}

int THCTensor_(refcount)(THCState *state, const THCTensor *self)
{
  (void)state;
  return __atomic_load_n(&self->refcount, __ATOMIC_ACQUIRE);
}

real *THCTensor_(data)(THCState *state, const THCTensor *self)
{
  (void)state;
  return self->storage->data ? self->storage->data + self->storageOffset : NULL;
}

/* ---- geometry helpers ---- */

/* Checked before anything changes, so that a failing check leaves nothing to clean up. */
static void THCTensor_(checkGeometry)(ptrdiff_t storageOffset, int nDimension, const int64_t *size,
                                      const int64_t *stride)
{
  THArgCheck(nDimension >= 0 && nDimension <= THC_MAX_DIMS, 3, "%d dimensions (at most %d)",
             nDimension, THC_MAX_DIMS);
  THArgCheck(storageOffset >= 0, 2, "negative storage offset %td", storageOffset);
  for (int d = 0; d < nDimension; d++) {
    THArgCheck(size[d] >= 0, 4, "negative size %lld in dimension %d", (long long)size[d], d);
    if (stride)
      THArgCheck(stride[d] >= 0, 5, "negative stride %lld in dimension %d", (long long)stride[d], d);
  }
}

void THCTensor_(resizeNd)(THCState *state, THCTensor *self, int nDimension, const int64_t *size,
                          const int64_t *stride)
{
  THCTensor_(checkGeometry)(self->storageOffset, nDimension, size, stride);
  if (nDimension != self->nDimension) {
    if (nDimension == 0) {
      THFree(self->size);
      THFree(self->stride);
      self->size = NULL;
      self->stride = NULL;
    } else {
      self->size = (int64_t *)THRealloc(self->size, (ptrdiff_t)sizeof(int64_t) * nDimension);
      self->stride = (int64_t *)THRealloc(self->stride, (ptrdiff_t)sizeof(int64_t) * nDimension);
    }
    self->nDimension = nDimension;
  }

  ptrdiff_t extent = nDimension > 0 ? 1 : 0;
  for (int d = nDimension - 1; d >= 0; d--) {
    self->size[d] = size[d];
    if (stride)
      self->stride[d] = stride[d];
    else
      self->stride[d] = (d == nDimension - 1) ? 1 : self->stride[d + 1] * THMax(self->size[d + 1], (int64_t)1);
    if (size[d] == 0)
      extent = 0;
  }
  if (extent > 0) {
    for (int d = 0; d < nDimension; d++)
      extent += (self->size[d] - 1) * self->stride[d];
    if (self->storageOffset + extent > self->storage->size)
      THCStorage_(resize)(state, self->storage, self->storageOffset + extent);
  }
}

void THCTensor_(setStorageNd)(THCState *state, THCTensor *self, THCStorage *storage, ptrdiff_t storageOffset,
                              int nDimension, const int64_t *size, const int64_t *stride)
{
  THCTensor_(checkGeometry)(storageOffset, nDimension, size, stride);
  if (self->storage != storage) {
    if (storage) {
      THCStorage_(retain)(state, storage);
      THCStorage_(free)(state, self->storage);
      self->storage = storage;
    } else {
      THCStorage_(free)(state, self->storage);
      self->storage = THCStorage_(new)(state);
    }
  }
  self->storageOffset = storageOffset;
  THCTensor_(resizeNd)(state, self, nDimension, size, stride);
}

void THCTensor_(setStorage1d)(THCState *state, THCTensor *self, THCStorage *storage, ptrdiff_t storageOffset,
                              int64_t size0, int64_t stride0)
{
  int64_t size[1] = {size0};
  int64_t stride[1] = {stride0};
  THCTensor_(setStorageNd)(state, self, storage, storageOffset, 1, size, stride);
}

void THCTensor_(setStorage2d)(THCState *state, THCTensor *self, THCStorage *storage, ptrdiff_t storageOffset,
                              int64_t size0, int64_t stride0, int64_t size1, int64_t stride1)
{
  int64_t size[2] = {size0, size1};
  int64_t stride[2] = {stride0, stride1};
  THCTensor_(setStorageNd)(state, self, storage, storageOffset, 2, size, stride);
}

/* ---- construction ---- */

THCTensor *THCTensor_(new)(THCState *state)
{
  /* Either allocation may raise; THError aborts, so neither order needs cleanup. */
  THCStorage *storage = THCStorage_(new)(state);
  THCTensor *self = (THCTensor *)THAlloc(sizeof(THCTensor));
  self->size = NULL;
  self->stride = NULL;
  self->nDimension = 0;
  self->storage = storage;
  self->storageOffset = 0;
  self->refcount = 1;
  self->flag = 0;
  THLiveAdd(TH_LIVE_TENSOR, 1);
  return self;
}

THCTensor *THCTensor_(newWithTensor)(THCState *state, THCTensor *tensor)
{
  THCTensor *self = THCTensor_(new)(state);
  THCTensor_(setStorageNd)(state, self, tensor->storage, tensor->storageOffset, tensor->nDimension,
                           tensor->size, tensor->stride);
  return self;
}

THCTensor *THCTensor_(newWithStorageNd)(THCState *state, THCStorage *storage, ptrdiff_t storageOffset,
                                        int nDimension, const int64_t *size, const int64_t *stride)
{
  THCTensor_(checkGeometry)(storageOffset, nDimension, size, stride);
  THCTensor *self = THCTensor_(new)(state);
  THCTensor_(setStorageNd)(state, self, storage, storageOffset, nDimension, size, stride);
  return self;
}

THCTensor *THCTensor_(newWithStorage1d)(THCState *state, THCStorage *storage, ptrdiff_t storageOffset,
                                        int64_t size0, int64_t stride0)
{
  int64_t size[1] = {size0};
  int64_t stride[1] = {stride0};
  return THCTensor_(newWithStorageNd)(state, storage, storageOffset, 1, size, stride);
}

THCTensor *THCTensor_(newWithStorage2d)(THCState *state, THCStorage *storage, ptrdiff_t storageOffset,
                                        int64_t size0, int64_t stride0, int64_t size1, int64_t stride1)
{
  int64_t size[2] = {size0, size1};
  int64_t stride[2] = {stride0, stride1};
  return THCTensor_(newWithStorageNd)(state, storage, storageOffset, 2, size, stride);
}

THCTensor *THCTensor_(newWithSizeNd)(THCState *state, int nDimension, const int64_t *size)
{
  return THCTensor_(newWithStorageNd)(state, NULL, 0, nDimension, size, NULL);
}

THCTensor *THCTensor_(newWithSize1d)(THCState *state, int64_t size0)
{
  int64_t size[1] = {size0};
  return THCTensor_(newWithSizeNd)(state, 1, size);
}

THCTensor *THCTensor_(newWithSize2d)(THCState *state, int64_t size0, int64_t size1)
{
  int64_t size[2] = {size0, size1};
  return THCTensor_(newWithSizeNd)(state, 2, size);
}

THCTensor *THCTensor_(newWithSize3d)(THCState *state, int64_t size0, int64_t size1, int64_t size2)
{
  int64_t size[3] = {size0, size1, size2};
  return THCTensor_(newWithSizeNd)(state, 3, size);
}

THCTensor *THCTensor_(newWithSize4d)(THCState *state, int64_t size0, int64_t size1, int64_t size2,
                                     int64_t size3)
{
  int64_t size[4] = {size0, size1, size2, size3};
  return THCTensor_(newWithSizeNd)(state, 4, size);
}

THCTensor *THCTensor_(newClone)(THCState *state, THCTensor *self)
{
  THCTensor *clone = THCTensor_(new)(state);
  THCTensor_(resizeAs)(state, clone, self);
  THCTensor_(copy)(state, clone, self);
  return clone;
}

THCTensor *THCTensor_(newContiguous)(THCState *state, THCTensor *self)
{
  if (!THCTensor_(isContiguous)(state, self))
    return THCTensor_(newClone)(state, self);
  THCTensor_(retain)(state, self);
  return self;
}

THCTensor *THCTensor_(newSelect)(THCState *state, THCTensor *tensor, int dimension, int64_t sliceIndex)
{
  THCTensor *self = THCTensor_(newWithTensor)(state, tensor);
  THCTensor_(select)(state, self, NULL, dimension, sliceIndex);
  return self;
}

THCTensor *THCTensor_(newNarrow)(THCState *state, THCTensor *tensor, int dimension, int64_t firstIndex,
                                 int64_t size)
{
  THCTensor *self = THCTensor_(newWithTensor)(state, tensor);
  THCTensor_(narrow)(state, self, NULL, dimension, firstIndex, size);
  return self;
}

THCTensor *THCTensor_(newTranspose)(THCState *state, THCTensor *tensor, int dimension1, int dimension2)
{
  THCTensor *self = THCTensor_(newWithTensor)(state, tensor);
  THCTensor_(transpose)(state, self, NULL, dimension1, dimension2);
  return self;
}

/* ---- references ---- */

void THCTensor_(retain)(THCState *state, THCTensor *self)
{
  (void)state;
  if (self)
    __atomic_add_fetch(&self->refcount, 1, __ATOMIC_RELAXED);
}

void THCTensor_(free)(THCState *state, THCTensor *self)
{
  if (!self)
    return;
  if (__atomic_sub_fetch(&self->refcount, 1, __ATOMIC_ACQ_REL) > 0)
    return;
  THFree(self->size);
  THFree(self->stride);
  THCStorage_(free)(state, self->storage);
  THLiveAdd(TH_LIVE_TENSOR, -1);
  THFree(self);
}

void THCTensor_(freeCopyTo)(THCState *state, THCTensor *self, THCTensor *dst)
{
  if (self != dst)
    THCTensor_(copy)(state, dst, self);
  THCTensor_(free)(state, self);
}

/* ---- in place ---- */

void THCTensor_(set)(THCState *state, THCTensor *self, THCTensor *src)
{
  if (self != src)
    THCTensor_(setStorageNd)(state, self, src->storage, src->storageOffset, src->nDimension, src->size,
                             src->stride);
}

void THCTensor_(resizeAs)(THCState *state, THCTensor *self, THCTensor *src)
{
  if (!THCTensor_(isSameSizeAs)(state, self, src))
    THCTensor_(resizeNd)(state, self, src->nDimension, src->size, NULL);
}

void THCTensor_(resize1d)(THCState *state, THCTensor *self, int64_t size0)
{
  int64_t size[1] = {size0};
  THCTensor_(resizeNd)(state, self, 1, size, NULL);
}

void THCTensor_(resize2d)(THCState *state, THCTensor *self, int64_t size0, int64_t size1)
{
  int64_t size[2] = {size0, size1};
  THCTensor_(resizeNd)(state, self, 2, size, NULL);
}

void THCTensor_(resize3d)(THCState *state, THCTensor *self, int64_t size0, int64_t size1, int64_t size2)
{
  int64_t size[3] = {size0, size1, size2};
  THCTensor_(resizeNd)(state, self, 3, size, NULL);
}

void THCTensor_(resize4d)(THCState *state, THCTensor *self, int64_t size0, int64_t size1, int64_t size2,
                          int64_t size3)
{
  int64_t size[4] = {size0, size1, size2, size3};
  THCTensor_(resizeNd)(state, self, 4, size, NULL);
}

void THCTensor_(narrow)(THCState *state, THCTensor *self, THCTensor *src, int dimension, int64_t firstIndex,
                        int64_t size)
{
  if (!src)
    src = self;
  THArgCheck(dimension >= 0 && dimension < src->nDimension, 4, "dimension %d out of range", dimension);
  THArgCheck(firstIndex >= 0 && firstIndex < src->size[dimension], 5, "firstIndex %lld out of range",
             (long long)firstIndex);
  THArgCheck(size > 0 && firstIndex + size <= src->size[dimension], 6, "size %lld out of range",
             (long long)size);
  THCTensor_(set)(state, self, src);
  if (firstIndex > 0)
    self->storageOffset += firstIndex * self->stride[dimension];
  self->size[dimension] = size;
}

void THCTensor_(select)(THCState *state, THCTensor *self, THCTensor *src, int dimension, int64_t sliceIndex)
{
  if (!src)
    src = self;
  THArgCheck(src->nDimension > 1, 3, "cannot select on a vector");
  THArgCheck(dimension >= 0 && dimension < src->nDimension, 4, "dimension %d out of range", dimension);
  THArgCheck(sliceIndex >= 0 && sliceIndex < src->size[dimension], 5, "index %lld out of range",
             (long long)sliceIndex);
  THCTensor_(set)(state, self, src);
  THCTensor_(narrow)(state, self, NULL, dimension, sliceIndex, 1);
  for (int d = dimension; d < self->nDimension - 1; d++) {
    self->size[d] = self->size[d + 1];
    self->stride[d] = self->stride[d + 1];
  }
  self->nDimension--;
}

void THCTensor_(transpose)(THCState *state, THCTensor *self, THCTensor *src, int dimension1, int dimension2)
{
  if (!src)
    src = self;
  THArgCheck(dimension1 >= 0 && dimension1 < src->nDimension, 4, "dimension1 %d out of range", dimension1);
  THArgCheck(dimension2 >= 0 && dimension2 < src->nDimension, 5, "dimension2 %d out of range", dimension2);
  THCTensor_(set)(state, self, src);
  if (dimension1 == dimension2)
    return;
  int64_t z = self->stride[dimension1];
  self->stride[dimension1] = self->stride[dimension2];
  self->stride[dimension2] = z;
  z = self->size[dimension1];
  self->size[dimension1] = self->size[dimension2];
  self->size[dimension2] = z;
}

/* ---- queries ---- */

int THCTensor_(isContiguous)(THCState *state, const THCTensor *self)
{
  (void)state;
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

int THCTensor_(isSameSizeAs)(THCState *state, const THCTensor *self, const THCTensor *src)
{
  (void)state;
  if (self->nDimension != src->nDimension)
    return 0;
  for (int d = 0; d < self->nDimension; d++)
    if (self->size[d] != src->size[d])
      return 0;
  return 1;
}

ptrdiff_t THCTensor_(nElement)(THCState *state, const THCTensor *self)
{
  (void)state;
  if (self->nDimension == 0)
    return 0;
  ptrdiff_t n = 1;
  for (int d = 0; d < self->nDimension; d++)
    n *= self->size[d];
  return n;
}

#endif
