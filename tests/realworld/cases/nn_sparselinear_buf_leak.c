/* torch/nn lib/THNN/generic/SparseLinear.c, THNN_(SparseLinear_accGradParameters)
 * https://github.com/torch/nn/pull/844 "fix memory leak in SparseLinear" (2016-06-04), a leak
 * introduced by https://github.com/torch/nn/pull/811
 * Bug: the temporary `buf` for the bias gradient was allocated on every call and not freed.
 * (Re-typed from the fixed function, which frees buf right after its last use.) */
#include "TH.h"

// buggy: buf is never freed
void THNN_FloatSparseLinear_accGradParameters_buggy(void *state, THFloatTensor *gradOutput,
                                                    THFloatTensor *gradBias, THFloatTensor *gradWeight,
                                                    THFloatTensor *weight, float weightDecay, float scale)
{
  THArgCheck(THFloatTensor_isContiguous(gradOutput), 1, "gradOutput must be contiguous");
  weight = THFloatTensor_newContiguous(weight);
  THFloatTensor *buf = THFloatTensor_new();
  THFloatTensor_sum(buf, gradOutput, 0);
  THFloatTensor_cadd(gradBias, gradBias, scale, buf);
  if (weightDecay != 0) {
    THFloatTensor_cadd(gradWeight, gradWeight, weightDecay, weight);
  }
  THFloatTensor_free(weight);
} // expect: RC001

// clean: buf freed after the bias update
void THNN_FloatSparseLinear_accGradParameters_fixed(void *state, THFloatTensor *gradOutput,
                                                    THFloatTensor *gradBias, THFloatTensor *gradWeight,
                                                    THFloatTensor *weight, float weightDecay, float scale)
{
  THArgCheck(THFloatTensor_isContiguous(gradOutput), 1, "gradOutput must be contiguous");
  weight = THFloatTensor_newContiguous(weight);
  THFloatTensor *buf = THFloatTensor_new();
  THFloatTensor_sum(buf, gradOutput, 0);
  THFloatTensor_cadd(gradBias, gradBias, scale, buf);
  THFloatTensor_free(buf);
  if (weightDecay != 0) {
    THFloatTensor_cadd(gradWeight, gradWeight, weightDecay, weight);
  }
  THFloatTensor_free(weight);
}
