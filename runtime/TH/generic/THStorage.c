#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THStorage.c"
#else

real *THStorage_(data)(THStorage *self)
{
  /* Callers get this pointer to write through it. */
  THStorage_(materialize)(self);
  return self->data;
}

const real *THStorage_(constData)(const THStorage *self)
{
  return self->data;
}

ptrdiff_t THStorage_(size)(const THStorage *self)
{
  return self->size;
}

int THStorage_(refcount)(const THStorage *self)
{
  return atomic_load(&((THStorage *)self)->refcount);
}

int THStorage_(isLazyClone)(const THStorage *self)
{
  return atomic_load(&((THStorage *)self)->cow) != NULL;
}

void THStorage_(set)(THStorage *self, ptrdiff_t idx, real value)
{
  THArgCheck(idx >= 0 && idx < self->size, 2, "index %td out of bounds for size %td", idx, self->size);
  THStorage_(materialize)(self);
  self->data[idx] = value;
}

real THStorage_(get)(const THStorage *self, ptrdiff_t idx)
{
  THArgCheck(idx >= 0 && idx < self->size, 2, "index %td out of bounds for size %td", idx, self->size);
  return self->data[idx];
}

THStorage *THStorage_(new)(void)
{
  return THStorage_(newWithAllocator)(0, &THDefaultAllocator, NULL);
}

THStorage *THStorage_(newWithSize)(ptrdiff_t size)
{
  return THStorage_(newWithAllocator)(size, &THDefaultAllocator, NULL);
}

THStorage *THStorage_(newWithAllocator)(ptrdiff_t size, THAllocator *allocator, void *allocatorContext)
{
  THArgCheck(size >= 0, 1, "size must be non-negative, got %td", size);
  THArgCheck(allocator != NULL, 2, "no allocator");
  THArgCheck(size <= PTRDIFF_MAX / (ptrdiff_t)sizeof(real), 1, "size %td is too large", size);

  THStorage *self = THAlloc(sizeof(THStorage));
  self->data = NULL;
  if (size > 0) {
    self->data = allocator->malloc(allocatorContext, (ptrdiff_t)sizeof(real) * size);
    if (!self->data)
      THError("allocator returned NULL for %td bytes", (ptrdiff_t)sizeof(real) * size);
  }
  self->size = size;
  atomic_init(&self->refcount, 1);
  self->flag = TH_STORAGE_RESIZABLE;
  self->allocator = allocator;
  self->allocatorContext = allocatorContext;
  atomic_init(&self->cow, NULL);
  THLiveAdd(TH_LIVE_STORAGE, 1);
  return self;
}

THStorage *THStorage_(newWithSize1)(real v0)
{
  THStorage *self = THStorage_(newWithSize)(1);
  self->data[0] = v0;
  return self;
}

THStorage *THStorage_(newWithSize2)(real v0, real v1)
{
  THStorage *self = THStorage_(newWithSize)(2);
  self->data[0] = v0;
  self->data[1] = v1;
  return self;
}

THStorage *THStorage_(newWithSize3)(real v0, real v1, real v2)
{
  THStorage *self = THStorage_(newWithSize)(3);
  self->data[0] = v0;
  self->data[1] = v1;
  self->data[2] = v2;
  return self;
}

THStorage *THStorage_(newWithSize4)(real v0, real v1, real v2, real v3)
{
  THStorage *self = THStorage_(newWithSize)(4);
  self->data[0] = v0;
  self->data[1] = v1;
  self->data[2] = v2;
  self->data[3] = v3;
  return self;
}

THStorage *THStorage_(newWithData)(real *data, ptrdiff_t size)
{
  return THStorage_(newWithDataAndAllocator)(data, size, &THDefaultAllocator, NULL);
}

THStorage *THStorage_(newWithDataAndAllocator)(real *data, ptrdiff_t size,
                                               THAllocator *allocator, void *allocatorContext)
{
  THArgCheck(size >= 0, 2, "size must be non-negative, got %td", size);
  THArgCheck(data != NULL || size == 0, 1, "no data for %td elements", size);
  THArgCheck(allocator != NULL, 3, "no allocator");

  THStorage *self = THStorage_(newWithAllocator)(0, allocator, allocatorContext);
  self->data = data;
  self->size = size;
  return self;
}

THStorage *THStorage_(newClone)(THStorage *self)
{
  THStorage *clone = THStorage_(newWithSize)(self->size);
  if (self->size > 0)
    memcpy(clone->data, self->data, sizeof(real) * (size_t)self->size);
  return clone;
}

THStorage *THStorage_(newLazyClone)(THStorage *self)
{
  /* The first clone moves self's data into a context. Clones are reads, so two threads may
   * clone the same storage at once; the lock makes exactly one of them install it. */
  if (!THStorage_(isLazyClone)(self)) {
    THCOWContext_lockInstall();
    if (!THStorage_(isLazyClone)(self))
      self->cow = THCOWContext_new(self->data, self->allocator, self->allocatorContext);
    THCOWContext_unlockInstall();
  }

  THStorage *clone = THStorage_(newWithAllocator)(0, self->allocator, self->allocatorContext);
  THCOWContext_retain(self->cow);
  clone->cow = self->cow;
  clone->data = self->data;
  clone->size = self->size;
  return clone;
}

void THStorage_(setFlag)(THStorage *self, char flag)
{
  self->flag |= flag;
}

void THStorage_(clearFlag)(THStorage *self, char flag)
{
  self->flag &= ~flag;
}

void THStorage_(retain)(THStorage *self)
{
  if (self)
    atomic_fetch_add(&self->refcount, 1);
}

void THStorage_(free)(THStorage *self)
{
  if (!self)
    return;
  if (atomic_fetch_sub(&self->refcount, 1) != 1)
    return;
  if (self->cow)
    THCOWContext_free(self->cow);
  else if (self->data)
    self->allocator->free(self->allocatorContext, self->data);
  THLiveAdd(TH_LIVE_STORAGE, -1);
  THFree(self);
}

void THStorage_(materialize)(THStorage *self)
{
  if (!THStorage_(isLazyClone)(self))
    return;
  if (THCOWContext_beginCopy(self->cow)) {
    /* Others still share the data: copy it while the shared lock keeps the last holder from
     * stealing it. Our reference to the context is already gone. */
    real *copy = THAlloc((ptrdiff_t)sizeof(real) * self->size);
    if (self->size > 0)
      memcpy(copy, self->data, sizeof(real) * (size_t)self->size);
    THCOWContext_endCopy(self->cow);
    self->cow = NULL;
    self->data = copy;
    self->allocator = &THDefaultAllocator;
    self->allocatorContext = NULL;
  } else {
    /* The last holder keeps the data without copying it. */
    THCOWContext_steal(self->cow, &self->allocator, &self->allocatorContext);
    THCOWContext_free(self->cow);
    self->cow = NULL;
  }
}

void THStorage_(resize)(THStorage *self, ptrdiff_t size)
{
  THArgCheck(size >= 0, 2, "size must be non-negative, got %td", size);
  THArgCheck(self->flag & TH_STORAGE_RESIZABLE, 1, "storage is not resizable");
  THArgCheck(size <= PTRDIFF_MAX / (ptrdiff_t)sizeof(real), 2, "size %td is too large", size);
  if (size == self->size)
    return;

  THStorage_(materialize)(self);
  real *data = NULL;
  if (size > 0) {
    data = self->allocator->malloc(self->allocatorContext, (ptrdiff_t)sizeof(real) * size);
    if (!data)
      THError("allocator returned NULL for %td bytes", (ptrdiff_t)sizeof(real) * size);
    ptrdiff_t kept = THMin(size, self->size);
    if (kept > 0)
      memcpy(data, self->data, sizeof(real) * (size_t)kept);
  }
  if (self->data)
    self->allocator->free(self->allocatorContext, self->data);
  self->data = data;
  self->size = size;
}

void THStorage_(fill)(THStorage *self, real value)
{
  THStorage_(materialize)(self);
  for (ptrdiff_t i = 0; i < self->size; i++)
    self->data[i] = value;
}

#endif
