/* pytorch torch/lib/THNN/generic/SparseLinear.c at commit 0881771981254805c6bdf0ba7b5550b77fbcdebc,
 * THNN_(SparseLinear_updateParameters). Found by refcheck in this study (docs/realworld.md),
 * not a historical fix: `if (cnt == 0) return;` leaves the `offsets` tensor allocated.
 * The clean version is the obvious repair. */
#include "TH.h"

// buggy: early return when no offset was collected
void THNN_FloatSparseLinear_updateParameters_buggy(void *state, THFloatTensor *weight,
                                                   THFloatTensor *lastInput, float learningRate)
{
  long i;
  long nnz = THFloatTensor_size(lastInput, 0);
  long inDim = weight->size[1];
  THFloatTensor *offsets = THFloatTensor_newWithSize1d(nnz);
  long cnt = 0;
  for (i = 0; i < nnz; i++) {
    float val = THFloatTensor_data(lastInput)[i * 3 + 2];
    if (val == 0)
      continue;
    long offset = (long)THFloatTensor_data(lastInput)[i * 3 + 1] - 1;
    if (offset >= 0 && offset < inDim)
      THFloatTensor_data(offsets)[cnt++] = offset;
    else
      THError("index out of bound. updateParameters: %d not between 1 and %d", offset + 1, inDim);
  }
  if (cnt == 0) return; // expect: RC001
  THFloatTensor_resize1d(offsets, cnt);
  THFloatTensor *uniqueOffsets = THFloatTensor_new();
  THLongTensor *ri = THLongTensor_new();
  THFloatTensor_sort(uniqueOffsets, ri, offsets, 0, 0);
  THLongTensor_free(ri);
  THFloatTensor_free(offsets);
  THFloatTensor_free(uniqueOffsets);
}

// clean: the early return frees what it allocated
void THNN_FloatSparseLinear_updateParameters_fixed(void *state, THFloatTensor *weight,
                                                   THFloatTensor *lastInput, float learningRate)
{
  long i;
  long nnz = THFloatTensor_size(lastInput, 0);
  long inDim = weight->size[1];
  THFloatTensor *offsets = THFloatTensor_newWithSize1d(nnz);
  long cnt = 0;
  for (i = 0; i < nnz; i++) {
    float val = THFloatTensor_data(lastInput)[i * 3 + 2];
    if (val == 0)
      continue;
    long offset = (long)THFloatTensor_data(lastInput)[i * 3 + 1] - 1;
    if (offset >= 0 && offset < inDim)
      THFloatTensor_data(offsets)[cnt++] = offset;
    else
      THError("index out of bound. updateParameters: %d not between 1 and %d", offset + 1, inDim);
  }
  if (cnt == 0) {
    THFloatTensor_free(offsets);
    return;
  }
  THFloatTensor_resize1d(offsets, cnt);
  THFloatTensor *uniqueOffsets = THFloatTensor_new();
  THLongTensor *ri = THLongTensor_new();
  THFloatTensor_sort(uniqueOffsets, ri, offsets, 0, 0);
  THLongTensor_free(ri);
  THFloatTensor_free(offsets);
  THFloatTensor_free(uniqueOffsets);
}
