#include "THCTensor.h"
#include "THCApply.cuh"

#include <cuda_runtime.h>
#include <string.h>

template <typename T>
struct THCCopyOp {
  __device__ __forceinline__ void operator()(T *dst, const T *src) const { *dst = *src; }
};

#define THC_TILE 32
#define THC_TILE_ROWS 8

/* out[r * outR + c] = in[r + c * inC] over an R x C matrix: `in` is read along r and `out` written
 * along c through a shared-memory tile, so that a warp's reads and its writes are both
 * consecutive (a pointwise apply would read a transposed source 4 bytes per 32-byte sector). */
template <typename T>
__global__ void THCCopy_transposeKernel(T *out, int64_t outR, const T *in, int64_t inC, int64_t R, int64_t C)
{
  __shared__ T tile[THC_TILE][THC_TILE + 1];  /* +1: the column reads hit 32 different banks */
  int64_t r0 = (int64_t)blockIdx.y * THC_TILE, c0 = (int64_t)blockIdx.x * THC_TILE;
  for (int j = threadIdx.y; j < THC_TILE; j += THC_TILE_ROWS) {
    int64_t r = r0 + threadIdx.x, c = c0 + j;
    if (r < R && c < C)
      tile[j][threadIdx.x] = in[r + c * inC];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < THC_TILE; j += THC_TILE_ROWS) {
    int64_t r = r0 + j, c = c0 + threadIdx.x;
    if (r < R && c < C)
      out[r * outR + c] = tile[threadIdx.x][j];
  }
}

/* A copy between a contiguous tensor and a transposed matrix (either side; shapes as collapsed),
 * as a tiled transpose; false (nothing launched) for any other layout. */
template <typename T>
static bool THCCopy_transposed(THCState *state, const THCTensorInfo<T> &dst, const THCTensorInfo<T> &src)
{
  int64_t R, C, outR, inC;
  if (THCTensorInfo_isContiguous(dst) && src.dims == 2 && src.strides[0] == 1) {
    /* dst[r * C + c] = src[r + c * s] */
    R = src.sizes[0], C = src.sizes[1], outR = C, inC = src.strides[1];
  } else if (THCTensorInfo_isContiguous(src) && dst.dims == 2 && dst.strides[0] == 1) {
    /* dst[r + c * s] = src[r * C + c]: the same with r and c swapped */
    R = dst.sizes[1], C = dst.sizes[0], outR = dst.strides[1], inC = dst.sizes[1];
  } else {
    return false;
  }
  int64_t rowTiles = (R + THC_TILE - 1) / THC_TILE, colTiles = (C + THC_TILE - 1) / THC_TILE;
  if (rowTiles > 65535 || colTiles > INT32_MAX)
    return false;
  dim3 grid((unsigned int)colTiles, (unsigned int)rowTiles), threads(THC_TILE, THC_TILE_ROWS);
  THCCopy_transposeKernel<T><<<grid, threads, 0, state->stream>>>(dst.data, outR, src.data, inC, R, C);
  THCudaCheckLaunch();
  return true;
}

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
