/* pytorch torch/lib/THC/generic/THCTensorMathBlas.cu, THCTensor_(baddbmm)
 * https://github.com/pytorch/pytorch/pull/5744 "Fix bmm memory leak", fixes issue #5611
 * Bug: as in addmm, batch1_ was freed only when it differed from batch1, which misses the
 * retained reference newContiguous returns for an already contiguous argument.
 * (Fixed shape re-typed as the flag idiom of the same code base.) */
#include "TH.h"

// buggy: freed only when the pointers differ
void THCudaTensor_baddbmm_buggy(THCState *state, THCudaTensor *result, float beta, float alpha,
                                THCudaTensor *batch1, THCudaTensor *batch2)
{
  char transpose_batch1;
  long lda;
  THCudaTensor *batch1_;
  if (batch1->stride[1] == 1 && batch1->stride[2] != 0) {
    transpose_batch1 = 'n';
    batch1_ = batch1;
    lda = batch1_->stride[2];
  } else if (batch1->stride[2] == 1 && batch1->stride[1] != 0) {
    transpose_batch1 = 't';
    batch1_ = batch1;
    lda = batch1_->stride[1];
  } else {
    transpose_batch1 = 'n';
    batch1_ = THCudaTensor_newContiguous(state, batch1);
    lda = batch1_->stride[1];
  }
  THCudaBlas_gemmBatched(state, transpose_batch1, 'n', result->size[1], result->size[2],
                         batch1_->size[2], alpha, NULL, lda, NULL, batch2->stride[1], beta, NULL,
                         result->stride[2], result->size[0]);
  if (batch1_ != batch1)
    THCudaTensor_free(state, batch1_);
} // expect: RC001

// clean: a flag, set where the copy is made
void THCudaTensor_baddbmm_fixed(THCState *state, THCudaTensor *result, float beta, float alpha,
                                THCudaTensor *batch1, THCudaTensor *batch2)
{
  char transpose_batch1;
  long lda;
  THCudaTensor *batch1_;
  int free_batch1 = 0;
  if (batch1->stride[1] == 1 && batch1->stride[2] != 0) {
    transpose_batch1 = 'n';
    batch1_ = batch1;
    lda = batch1_->stride[2];
  } else if (batch1->stride[2] == 1 && batch1->stride[1] != 0) {
    transpose_batch1 = 't';
    batch1_ = batch1;
    lda = batch1_->stride[1];
  } else {
    transpose_batch1 = 'n';
    batch1_ = THCudaTensor_newContiguous(state, batch1);
    free_batch1 = 1;
    lda = batch1_->stride[1];
  }
  THCudaBlas_gemmBatched(state, transpose_batch1, 'n', result->size[1], result->size[2],
                         batch1_->size[2], alpha, NULL, lda, NULL, batch2->stride[1], beta, NULL,
                         result->stride[2], result->size[0]);
  if (free_batch1)
    THCudaTensor_free(state, batch1_);
}
