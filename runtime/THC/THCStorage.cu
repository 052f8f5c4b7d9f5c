#include "THCStorage.h"

#include <cuda_runtime.h>

template <typename T>
__global__ void THCStorage_fillKernel(T *data, ptrdiff_t n, T value)
{
  for (ptrdiff_t i = blockIdx.x * (ptrdiff_t)blockDim.x + threadIdx.x; i < n;
       i += (ptrdiff_t)blockDim.x * gridDim.x)
    data[i] = value;
}

#include "generic/THCStorage.cu"
#include "THCGenerateFloatTypes.h"
