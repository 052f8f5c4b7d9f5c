/* pytorch torch/lib/TH/generic/THTensorMath.c, THTensor_(addmm)
 * https://github.com/pytorch/pytorch/pull/3536 (master) and #3524 (v0.3), fixes issue #3498
 * Bug: the operand was freed only `if (m1_ != m1)`, but newContiguous may return its argument
 * (retained): once the zero-stride check sent an already contiguous m1 to newContiguous, the
 * extra reference leaked. Fix: a free_m1 flag set where newContiguous is called. */
#include "TH.h"

// buggy: pointer inequality decides the free
void THFloatTensor_addmm_buggy(THFloatTensor *r_, float beta, float alpha, THFloatTensor *m1,
                               THFloatTensor *m2)
{
  char transpose_m1;
  THFloatTensor *m1_;
  if (m1->stride[0] == 1 && m1->stride[1] != 0) {
    transpose_m1 = 'n';
    m1_ = m1;
  } else if (m1->stride[1] == 1 && m1->stride[0] != 0) {
    transpose_m1 = 't';
    m1_ = m1;
  } else {
    transpose_m1 = 't';
    m1_ = THFloatTensor_newContiguous(m1);
  }
  THFloatBlas_gemm(transpose_m1, 'n', r_->size[0], r_->size[1], m1_->size[1], alpha,
                   THFloatTensor_data(m1_), m1_->stride[0], THFloatTensor_data(m2), m2->stride[0],
                   beta, THFloatTensor_data(r_), r_->stride[0]);
  if (m1_ != m1)
    THFloatTensor_free(m1_);
} // expect: RC001

// clean: the flag records that newContiguous was called
void THFloatTensor_addmm_fixed(THFloatTensor *r_, float beta, float alpha, THFloatTensor *m1,
                               THFloatTensor *m2)
{
  char transpose_m1;
  THFloatTensor *m1_;
  int free_m1 = 0;
  if (m1->stride[0] == 1 && m1->stride[1] != 0) {
    transpose_m1 = 'n';
    m1_ = m1;
  } else if (m1->stride[1] == 1 && m1->stride[0] != 0) {
    transpose_m1 = 't';
    m1_ = m1;
  } else {
    transpose_m1 = 't';
    m1_ = THFloatTensor_newContiguous(m1);
    free_m1 = 1;
  }
  THFloatBlas_gemm(transpose_m1, 'n', r_->size[0], r_->size[1], m1_->size[1], alpha,
                   THFloatTensor_data(m1_), m1_->stride[0], THFloatTensor_data(m2), m2->stride[0],
                   beta, THFloatTensor_data(r_), r_->stride[0]);
  if (free_m1)
    THFloatTensor_free(m1_);
}
