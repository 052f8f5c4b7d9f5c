#ifndef THC_GENERIC_FILE
#define THC_GENERIC_FILE "generic/THCStorage.cu"
#else

real *THCStorage_(data)(THCState *state, THCStorage *self)
{
  (void)state;
  return self->data;
}

ptrdiff_t THCStorage_(size)(THCState *state, const THCStorage *self)
{
  (void)state;
  return self->size;
}

int THCStorage_(refcount)(THCState *state, const THCStorage *self)
{
  (void)state;
  return __atomic_load_n(&self->refcount, __ATOMIC_ACQUIRE);
}

THCStorage *THCStorage_(new)(THCState *state)
{
  return THCStorage_(newWithSize)(state, 0);
}

THCStorage *THCStorage_(newWithSize)(THCState *state, ptrdiff_t size)
{
  THArgCheck(size >= 0, 2, "negative storage size %td", size);
  /* The device block first: if it fails nothing else exists yet. */
  real *data = (real *)THCudaBlock_new(state, sizeof(real) * (size_t)size);
  THCStorage *self = (THCStorage *)THAlloc(sizeof(THCStorage));
  self->data = data;
  self->size = size;
  self->refcount = 1;
  self->flag = THC_STORAGE_RESIZABLE;
  self->device = state->device;
  THLiveAdd(TH_LIVE_STORAGE, 1);
  return self;
}

THCStorage *THCStorage_(newClone)(THCState *state, THCStorage *self)
{
  THCStorage *clone = THCStorage_(newWithSize)(state, self->size);
  if (self->size > 0)
    THCudaCheck(cudaMemcpyAsync(clone->data, self->data, sizeof(real) * (size_t)self->size,
                                cudaMemcpyDeviceToDevice, state->stream));
  return clone;
}

void THCStorage_(retain)(THCState *state, THCStorage *self)
{
  (void)state;
  if (self)
    __atomic_add_fetch(&self->refcount, 1, __ATOMIC_RELAXED);
}

void THCStorage_(free)(THCState *state, THCStorage *self)
{
  if (!self)
    return;
  if (__atomic_sub_fetch(&self->refcount, 1, __ATOMIC_ACQ_REL) > 0)
    return;
  THCudaBlock_free(state, self->data);
  THLiveAdd(TH_LIVE_STORAGE, -1);
  THFree(self);
}

void THCStorage_(resize)(THCState *state, THCStorage *self, ptrdiff_t size)
{
  THArgCheck(size >= 0, 3, "negative storage size %td", size);
  THArgCheck(self->flag & THC_STORAGE_RESIZABLE, 2, "trying to resize a storage that is not resizable");
  if (size == self->size)
    return;
  real *data = (real *)THCudaBlock_new(state, sizeof(real) * (size_t)size);
  ptrdiff_t keep = THMin(size, self->size);
  if (keep > 0)
    THCudaCheck(cudaMemcpyAsync(data, self->data, sizeof(real) * (size_t)keep,
                                cudaMemcpyDeviceToDevice, state->stream));
  THCudaBlock_free(state, self->data);
  self->data = data;
  self->size = size;
}

void THCStorage_(fill)(THCState *state, THCStorage *self, real value)
{
  if (self->size == 0)
    return;
  int threads = 256;
  int blocks = (int)THMin((self->size + threads - 1) / threads, (ptrdiff_t)65535);
  THCStorage_fillKernel<real><<<blocks, threads, 0, state->stream>>>(self->data, self->size, value);
  THCudaCheckLaunch();
}

void THCStorage_(set)(THCState *state, THCStorage *self, ptrdiff_t index, real value)
{
  THArgCheck(index >= 0 && index < self->size, 3, "index %td out of bounds of storage of size %td",
             index, self->size);
  THCudaCheck(cudaMemcpyAsync(self->data + index, &value, sizeof(real), cudaMemcpyHostToDevice,
                              state->stream));
  /* `value` is on our stack: the copy must finish before we return. */
  THCudaCheck(cudaStreamSynchronize(state->stream));
}

real THCStorage_(get)(THCState *state, const THCStorage *self, ptrdiff_t index)
{
  THArgCheck(index >= 0 && index < self->size, 3, "index %td out of bounds of storage of size %td",
             index, self->size);
  real value;
  THCudaCheck(cudaMemcpyAsync(&value, self->data + index, sizeof(real), cudaMemcpyDeviceToHost,
                              state->stream));
  THCudaCheck(cudaStreamSynchronize(state->stream));
  return value;
}

void THCStorage_(copyFromHost)(THCState *state, THCStorage *self, const real *src, ptrdiff_t n)
{
  THArgCheck(n == self->size, 4, "copying %td elements into a storage of size %td", n, self->size);
  if (n == 0)
    return;
  THCudaCheck(cudaMemcpyAsync(self->data, src, sizeof(real) * (size_t)n, cudaMemcpyHostToDevice,
                              state->stream));
  THCudaCheck(cudaStreamSynchronize(state->stream));
}

void THCStorage_(copyToHost)(THCState *state, const THCStorage *self, real *dst, ptrdiff_t n)
{
  THArgCheck(n == self->size, 4, "copying a storage of size %td into %td elements", self->size, n);
  if (n == 0)
    return;
  THCudaCheck(cudaMemcpyAsync(dst, self->data, sizeof(real) * (size_t)n, cudaMemcpyDeviceToHost,
                              state->stream));
  THCudaCheck(cudaStreamSynchronize(state->stream));
}

#endif
