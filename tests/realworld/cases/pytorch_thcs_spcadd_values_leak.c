/* pytorch torch/lib/THCS/generic/THCSTensorMath.cu, THCSTensor_(spcadd)
 * https://github.com/pytorch/pytorch/pull/1519 "Fix memory leak in THCSTensor_spcadd." (2017-05-09)
 * Bug: the indices and values tensors from newIndices/newValues (each +1) were not freed.
 * (Re-typed from the fixed function; the review also dropped an unneeded freeCopyTo.) */
#include "TH.h"

// buggy: indices and values leak
void THCSFloatTensor_spcadd_buggy(THCState *state, THCudaTensor *r_, THCudaTensor *dense,
                                  float value, THCSFloatTensor *sparse)
{
  THCSFloatTensor *coalesced = THCSFloatTensor_newCoalesce(state, sparse);
  THCudaLongTensor *indices = THCSFloatTensor_newIndices(state, coalesced);
  THCudaTensor *values = THCSFloatTensor_newValues(state, coalesced);
  THCudaTensor_resizeAs(state, r_, dense);
  THCudaTensor_copy(state, r_, dense);
  THCSFloatTensor_spcaddKernel(state, r_, indices, values, value);
  THCSFloatTensor_free(state, coalesced);
} // expect: RC001 RC001

// clean: every +1 released
void THCSFloatTensor_spcadd_fixed(THCState *state, THCudaTensor *r_, THCudaTensor *dense,
                                  float value, THCSFloatTensor *sparse)
{
  THCSFloatTensor *coalesced = THCSFloatTensor_newCoalesce(state, sparse);
  THCudaLongTensor *indices = THCSFloatTensor_newIndices(state, coalesced);
  THCudaTensor *values = THCSFloatTensor_newValues(state, coalesced);
  THCudaTensor_resizeAs(state, r_, dense);
  THCudaTensor_copy(state, r_, dense);
  THCSFloatTensor_spcaddKernel(state, r_, indices, values, value);
  THCudaLongTensor_free(state, indices);
  THCudaTensor_free(state, values);
  THCSFloatTensor_free(state, coalesced);
}
