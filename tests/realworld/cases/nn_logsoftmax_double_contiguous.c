/* torch/nn lib/THNN/generic/LogSoftMax.c, THNN_(LogSoftMax_updateOutput)
 * https://github.com/torch/nn/pull/1038 "Fix memory leak in LogSoftMax" (2016-11-19)
 * Bug: an extra `input = newContiguous(input)` at the top was never freed; a second one a few
 * lines below overwrote it, and only that second reference was freed at the end. The second
 * call is newContiguous of a contiguous tensor, so it returns the same object with a second +1
 * (semantics.md, re-acquisition): one free for two references, a leak at the end (RC001). */
#include "TH.h"

// buggy: the first contiguous copy is overwritten by the second
void THNN_FloatLogSoftMax_updateOutput_buggy(void *state, THFloatTensor *input, THFloatTensor *output)
{
  long nframe = 0, dim = 0;
  input = THFloatTensor_newContiguous(input);
  if (input->nDimension == 1) {
    nframe = 1;
    dim = input->size[0];
  } else if (input->nDimension == 2) {
    nframe = input->size[0];
    dim = input->size[1];
  } else {
    THArgCheck(0, 2, "vector or matrix expected");
  }
  input = THFloatTensor_newContiguous(input);
  THFloatTensor_resizeAs(output, input);
  float *input_data = THFloatTensor_data(input);
  float *output_data = THFloatTensor_data(output);
  for (long t = 0; t < nframe; t++)
    for (long d = 0; d < dim; d++)
      output_data[t * dim + d] = input_data[t * dim + d];
  THFloatTensor_free(input);
} // expect: RC001

// clean: one contiguous copy, freed at the end
void THNN_FloatLogSoftMax_updateOutput_fixed(void *state, THFloatTensor *input, THFloatTensor *output)
{
  long nframe = 0, dim = 0;
  if (input->nDimension == 1) {
    nframe = 1;
    dim = input->size[0];
  } else if (input->nDimension == 2) {
    nframe = input->size[0];
    dim = input->size[1];
  } else {
    THArgCheck(0, 2, "vector or matrix expected");
  }
  input = THFloatTensor_newContiguous(input);
  THFloatTensor_resizeAs(output, input);
  float *input_data = THFloatTensor_data(input);
  float *output_data = THFloatTensor_data(output);
  for (long t = 0; t < nframe; t++)
    for (long d = 0; d < dim; d++)
      output_data[t * dim + d] = input_data[t * dim + d];
  THFloatTensor_free(input);
}
