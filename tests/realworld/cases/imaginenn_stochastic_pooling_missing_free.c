/* szagoruyko/imagine-nn SpatialStochasticPooling.cu, SpatialStochasticPooling_updateOutput
 * https://github.com/szagoruyko/imagine-nn/issues/7 (2015-05-19)
 * Bug: `input = THCudaTensor_newContiguous(state, input)` with no THCudaTensor_free(state, input)
 * before the function returns. */
#include "TH.h"

// buggy: the contiguous input is never freed
void SpatialStochasticPooling_updateOutput_buggy(THCState *state, THCudaTensor *input,
                                                 THCudaTensor *output, THCudaTensor *indices,
                                                 int kW, int kH, int dW, int dH)
{
  long nInputCols = input->size[3];
  long nInputRows = input->size[2];
  long nInputPlane = input->size[1];
  long batchSize = input->size[0];
  long nOutputCols = (nInputCols - kW) / dW + 1;
  long nOutputRows = (nInputRows - kH) / dH + 1;
  input = THCudaTensor_newContiguous(state, input);
  float *input_data = THCudaTensor_data(state, input);
  THCudaTensor_resize4d(state, output, batchSize, nInputPlane, nOutputRows, nOutputCols);
  THCudaTensor_resize4d(state, indices, batchSize, nInputPlane, nOutputRows, nOutputCols);
  float *output_data = THCudaTensor_data(state, output);
  output_data[0] = input_data[0];
} // expect: RC001

// clean: freed after the kernel launch
void SpatialStochasticPooling_updateOutput_fixed(THCState *state, THCudaTensor *input,
                                                 THCudaTensor *output, THCudaTensor *indices,
                                                 int kW, int kH, int dW, int dH)
{
  long nInputCols = input->size[3];
  long nInputRows = input->size[2];
  long nInputPlane = input->size[1];
  long batchSize = input->size[0];
  long nOutputCols = (nInputCols - kW) / dW + 1;
  long nOutputRows = (nInputRows - kH) / dH + 1;
  input = THCudaTensor_newContiguous(state, input);
  float *input_data = THCudaTensor_data(state, input);
  THCudaTensor_resize4d(state, output, batchSize, nInputPlane, nOutputRows, nOutputCols);
  THCudaTensor_resize4d(state, indices, batchSize, nInputPlane, nOutputRows, nOutputCols);
  float *output_data = THCudaTensor_data(state, output);
  output_data[0] = input_data[0];
  THCudaTensor_free(state, input);
}
