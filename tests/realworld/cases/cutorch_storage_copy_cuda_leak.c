/* torch/cutorch lib/THC/generic/THCStorageCopy.c, THStorage_(copyCuda)
 * https://github.com/torch/cutorch/pull/650 "Fix memory leak in THStorage_copyCudaXXX"
 * (introduced by cutorch commit 8b349851f431d49015040dfc0ed4938c583e7ce1)
 * Bug: the copy wraps both storages in temporary tensors and freed only one of them.
 * (Re-typed from the fixed function.) */
#include "TH.h"

// buggy: the host-side wrapper tensor is not freed
void THFloatStorage_copyCudaFloat_buggy(THCState *state, THFloatStorage *self, THCudaStorage *src)
{
  THArgCheck(self->size == src->size, 2, "size does not match");
  THFloatTensor *selfTensor = THFloatTensor_newWithStorage1d(self, 0, self->size, 1);
  THCudaTensor *srcTensor = THCudaTensor_newWithStorage1d(state, src, 0, src->size, 1);
  THFloatTensor_copyCuda(state, selfTensor, srcTensor);
  THCudaTensor_free(state, srcTensor);
} // expect: RC001

// clean: both wrappers freed
void THFloatStorage_copyCudaFloat_fixed(THCState *state, THFloatStorage *self, THCudaStorage *src)
{
  THArgCheck(self->size == src->size, 2, "size does not match");
  THFloatTensor *selfTensor = THFloatTensor_newWithStorage1d(self, 0, self->size, 1);
  THCudaTensor *srcTensor = THCudaTensor_newWithStorage1d(state, src, 0, src->size, 1);
  THFloatTensor_copyCuda(state, selfTensor, srcTensor);
  THCudaTensor_free(state, srcTensor);
  THFloatTensor_free(selfTensor);
}
