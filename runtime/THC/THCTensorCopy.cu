#include "THCTensor.h"
#include "THCApply.cuh"

#include <cuda_runtime.h>
#include <string.h>

template <typename T>
struct THCCopyOp {
  __device__ __forceinline__ void operator()(T *dst, const T *src) const { *dst = *src; }
};

/* Advances a row-major counter over a host strided view and returns the next element's offset;
 * the host half of a strided copy (the device half is a pointwise apply). */
static ptrdiff_t THCHost_next(int64_t *counter, ptrdiff_t offset, int nDimension, const int64_t *size,
                              const int64_t *stride)
{
  for (int d = nDimension - 1; d >= 0; d--) {
    counter[d]++;
    offset += stride[d];
    if (counter[d] < size[d])
      break;
    offset -= counter[d] * stride[d];
    counter[d] = 0;
  }
  return offset;
}

template <typename T>
static void THCHost_pack(T *packed, const T *strided, ptrdiff_t n, int nDimension, const int64_t *size,
                         const int64_t *stride)
{
  int64_t counter[THC_MAX_DIMS] = {0};
  ptrdiff_t offset = 0;
  for (ptrdiff_t i = 0; i < n; i++) {
    packed[i] = strided[offset];
    offset = THCHost_next(counter, offset, nDimension, size, stride);
  }
}

template <typename T>
static void THCHost_unpack(T *strided, const T *packed, ptrdiff_t n, int nDimension, const int64_t *size,
                           const int64_t *stride)
{
  int64_t counter[THC_MAX_DIMS] = {0};
  ptrdiff_t offset = 0;
  for (ptrdiff_t i = 0; i < n; i++) {
    strided[offset] = packed[i];
    offset = THCHost_next(counter, offset, nDimension, size, stride);
  }
}

static int THCHost_isContiguous(int nDimension, const int64_t *size, const int64_t *stride)
{
  if (!stride)
    return 1;
  int64_t z = 1;
  for (int d = nDimension - 1; d >= 0; d--) {
    if (size[d] != 1) {
      if (stride[d] != z)
        return 0;
      z *= size[d];
    }
  }
  return 1;
}

#include "generic/THCTensorCopy.cu"
#include "THCGenerateFloatTypes.h"
