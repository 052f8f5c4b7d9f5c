#ifndef THC_GENERIC_FILE
#define THC_GENERIC_FILE "generic/THCTensorCopy.cu"
#else

void THCTensor_(copy)(THCState *state, THCTensor *self, THCTensor *src)
{
  ptrdiff_t n = THCTensor_(nElement)(state, self);
  THArgCheck(n == THCTensor_(nElement)(state, src), 3, "copying %td elements into a tensor of %td",
             THCTensor_(nElement)(state, src), n);
  if (n == 0 || self == src)
    return;
  if (THCTensor_(isContiguous)(state, self) && THCTensor_(isContiguous)(state, src)) {
    THCudaCheck(cudaMemcpyAsync(THCTensor_(data)(state, self), THCTensor_(data)(state, src),
                                sizeof(real) * (size_t)n, cudaMemcpyDeviceToDevice, state->stream));
    return;
  }
  if (THCCopy_transposed(state, THCTensorInfo_collapsed(THCTensorInfo_of<real>(self)),
                         THCTensorInfo_collapsed(THCTensorInfo_of<real>(src))))
    return;
  THC_pointwiseApply2<real>(state, self, src, n, THCCopyOp<real>());
}

void THCTensor_(copyFromHost)(THCState *state, THCTensor *self, const real *data, const int64_t *stride)
{
  ptrdiff_t n = THCTensor_(nElement)(state, self);
  if (n == 0)
    return;
  int hostContiguous = THCHost_isContiguous(self->nDimension, self->size, stride);
  if (hostContiguous && THCTensor_(isContiguous)(state, self)) {
    THCudaCheck(cudaMemcpyAsync(THCTensor_(data)(state, self), data, sizeof(real) * (size_t)n,
                                cudaMemcpyHostToDevice, state->stream));
    THCudaCheck(cudaStreamSynchronize(state->stream));
    return;
  }
  /* Packed on the host, uploaded packed, scattered into self's strides on the device. */
  real *packed = (real *)THAlloc((ptrdiff_t)sizeof(real) * n);
  if (hostContiguous)
    memcpy(packed, data, sizeof(real) * (size_t)n);
  else
    THCHost_pack<real>(packed, data, n, self->nDimension, self->size, stride);
  THCTensor *staging = THCTensor_(newWithSizeNd)(state, self->nDimension, self->size);
  THCudaCheck(cudaMemcpyAsync(THCTensor_(data)(state, staging), packed, sizeof(real) * (size_t)n,
                              cudaMemcpyHostToDevice, state->stream));
  THCudaCheck(cudaStreamSynchronize(state->stream));
  THFree(packed);
  THCTensor_(copy)(state, self, staging);
  THCTensor_(free)(state, staging);
}

void THCTensor_(copyToHost)(THCState *state, THCTensor *self, real *data, const int64_t *stride)
{
  ptrdiff_t n = THCTensor_(nElement)(state, self);
  if (n == 0)
    return;
  /* Packed on the device first (newContiguous runs there), then downloaded. */
  THCTensor *packedSelf = THCTensor_(newContiguous)(state, self);
  if (THCHost_isContiguous(self->nDimension, self->size, stride)) {
    THCudaCheck(cudaMemcpyAsync(data, THCTensor_(data)(state, packedSelf), sizeof(real) * (size_t)n,
                                cudaMemcpyDeviceToHost, state->stream));
    THCudaCheck(cudaStreamSynchronize(state->stream));
    THCTensor_(free)(state, packedSelf);
    return;
  }
  real *packed = (real *)THAlloc((ptrdiff_t)sizeof(real) * n);
  THCudaCheck(cudaMemcpyAsync(packed, THCTensor_(data)(state, packedSelf), sizeof(real) * (size_t)n,
                              cudaMemcpyDeviceToHost, state->stream));
  THCudaCheck(cudaStreamSynchronize(state->stream));
  THCTensor_(free)(state, packedSelf);
  THCHost_unpack<real>(data, packed, n, self->nDimension, self->size, stride);
  THFree(packed);
}

#endif
