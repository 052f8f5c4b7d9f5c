/* torch/cutorch lib/THC/generic/THCTensorMath*.cu, THCTensor_(equal)
 * https://github.com/torch/cutorch/pull/604 "fix memory leak in (equal)" (see #603)
 * Bug: the size storage from newSizeOf, used to shape the comparison buffer, was never freed.
 * (Re-typed from the fixed function; the PR description names the function only.) */
#include "TH.h"

// buggy: `size` outlives the function
int THCudaTensor_equal_buggy(THCState *state, THCudaTensor *self_, THCudaTensor *src_)
{
  if (!THCudaTensor_isSameSizeAs(state, self_, src_))
    return 0;
  THLongStorage *size = THCudaTensor_newSizeOf(state, self_);
  THCudaByteTensor *buf = THCudaByteTensor_newWithSize(state, size, NULL);
  if (!THC_pointwiseApplyEq(state, buf, self_, src_))
    THArgCheck(0, 2, "too many dimensions");
  unsigned char min = THCudaByteTensor_minall(state, buf);
  THCudaByteTensor_free(state, buf);
  return min != 0; // expect: RC001
}

// clean: both temporaries released
int THCudaTensor_equal_fixed(THCState *state, THCudaTensor *self_, THCudaTensor *src_)
{
  if (!THCudaTensor_isSameSizeAs(state, self_, src_))
    return 0;
  THLongStorage *size = THCudaTensor_newSizeOf(state, self_);
  THCudaByteTensor *buf = THCudaByteTensor_newWithSize(state, size, NULL);
  if (!THC_pointwiseApplyEq(state, buf, self_, src_))
    THArgCheck(0, 2, "too many dimensions");
  unsigned char min = THCudaByteTensor_minall(state, buf);
  THLongStorage_free(size);
  THCudaByteTensor_free(state, buf);
  return min != 0;
}
