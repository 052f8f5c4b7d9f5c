#include "THCTensor.h"
#include "THCApply.cuh"

#include <cuda_runtime.h>

#define THC_REDUCE_THREADS 256
#define THC_REDUCE_MAX_BLOCKS 1024

template <typename T>
struct THCFillOp {
  T value;
  __device__ __forceinline__ void operator()(T *x) const { *x = value; }
};

template <typename T>
struct THCAddOp {
  T value;
  __device__ __forceinline__ void operator()(T *out, const T *in) const { *out = *in + value; }
};

template <typename T>
struct THCMulOp {
  T value;
  __device__ __forceinline__ void operator()(T *out, const T *in) const { *out = *in * value; }
};

template <typename T>
struct THCCAddOp {
  T value;
  __device__ __forceinline__ void operator()(T *out, const T *a, const T *b) const { *out = *a + value * *b; }
};

template <typename T>
struct THCCMulOp {
  __device__ __forceinline__ void operator()(T *out, const T *a, const T *b) const { *out = *a * *b; }
};

/* Sums a block's values in shared memory; thread 0 ends up with the total. */
template <typename AccT>
__device__ AccT THCReduce_block(AccT *buf, AccT value)
{
  buf[threadIdx.x] = value;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  return buf[0];
}

/* First pass: each block sums a grid-stride share of a[i] (times b[i] when `product`). */
template <typename T, typename AccT, bool product, typename IndexT>
__global__ void THCReduce_partialKernel(THCTensorInfo<T> a, THCTensorInfo<T> b, IndexT n, AccT *partials)
{
  __shared__ AccT buf[THC_REDUCE_THREADS];
  AccT acc = 0;
  for (IndexT i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    AccT x = (AccT)a.data[THCTensorInfo_offset(a, i)];
    if (product)
      x *= (AccT)b.data[THCTensorInfo_offset(b, i)];
    acc += x;
  }
  AccT total = THCReduce_block(buf, acc);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = total;
}

/* The same over contiguous inputs: no offsets, and THC_APPLY_UNROLL loads in flight per thread. */
template <typename T, typename AccT, bool product>
__global__ void THCReduce_contiguousKernel(const T *a, const T *b, int64_t n, AccT *partials)
{
  __shared__ AccT buf[THC_REDUCE_THREADS];
  AccT acc = 0;
  const int64_t step = (int64_t)blockDim.x * gridDim.x;
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  for (; i + (THC_APPLY_UNROLL - 1) * step < n; i += THC_APPLY_UNROLL * step) {
    T av[THC_APPLY_UNROLL], bv[THC_APPLY_UNROLL];
#pragma unroll
    for (int u = 0; u < THC_APPLY_UNROLL; u++) {
      av[u] = a[i + u * step];
      if (product)
        bv[u] = b[i + u * step];
    }
#pragma unroll
    for (int u = 0; u < THC_APPLY_UNROLL; u++)
      acc += product ? (AccT)av[u] * (AccT)bv[u] : (AccT)av[u];
  }
  for (; i < n; i += step)
    acc += product ? (AccT)a[i] * (AccT)b[i] : (AccT)a[i];
  AccT total = THCReduce_block(buf, acc);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = total;
}

/* Second pass, one block: the partials into partials[count]. */
template <typename AccT>
__global__ void THCReduce_finalKernel(AccT *partials, int count)
{
  __shared__ AccT buf[THC_REDUCE_THREADS];
  AccT acc = 0;
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    acc += partials[i];
  AccT total = THCReduce_block(buf, acc);
  if (threadIdx.x == 0)
    partials[count] = total;
}

/* The sum over n elements of a (or of a*b), on the device, read back to the host. */
template <typename T, typename AccT, bool product, typename TensorT>
static AccT THCReduce_all(THCState *state, TensorT *a, TensorT *b, ptrdiff_t n)
{
  if (n == 0)
    return 0;
  THCTensorInfo<T> ai = THCTensorInfo_collapsed(THCTensorInfo_of<T>(a));
  THCTensorInfo<T> bi = THCTensorInfo_collapsed(THCTensorInfo_of<T>(b));
  bool contiguous = THCTensorInfo_isContiguous(ai) && THCTensorInfo_isContiguous(bi);
  ptrdiff_t perBlock = (ptrdiff_t)THC_REDUCE_THREADS * (contiguous ? THC_APPLY_UNROLL : 1);
  ptrdiff_t wanted = (n + perBlock - 1) / perBlock;
  int blocks = (int)(wanted < THC_REDUCE_MAX_BLOCKS ? wanted : THC_REDUCE_MAX_BLOCKS);
  /* Held as void *: it is one block whatever AccT is, and the release below needs no template. */
  void *block = THCudaBlock_new(state, sizeof(AccT) * (size_t)(blocks + 1));
  AccT *partials = (AccT *)block;
  if (contiguous)
    THCReduce_contiguousKernel<T, AccT, product><<<blocks, THC_REDUCE_THREADS, 0, state->stream>>>(
        ai.data, bi.data, (int64_t)n, partials);
  else if (THCApply_fits32(n) && THCTensorInfo_fits32(ai) && THCTensorInfo_fits32(bi))
    THCReduce_partialKernel<T, AccT, product, uint32_t><<<blocks, THC_REDUCE_THREADS, 0, state->stream>>>(
        ai, bi, (uint32_t)n, partials);
  else
    THCReduce_partialKernel<T, AccT, product, uint64_t><<<blocks, THC_REDUCE_THREADS, 0, state->stream>>>(
        ai, bi, (uint64_t)n, partials);
  THCudaCheckLaunch();
  THCReduce_finalKernel<AccT><<<1, THC_REDUCE_THREADS, 0, state->stream>>>(partials, blocks);
  THCudaCheckLaunch();
  AccT result = 0;
  THCudaCheck(cudaMemcpyAsync(&result, partials + blocks, sizeof(AccT), cudaMemcpyDeviceToHost, state->stream));
  THCudaCheck(cudaStreamSynchronize(state->stream));
  THCudaBlock_free(state, block);
  return result;
}

#include "generic/THCTensorMath.cu"
#include "THCGenerateFloatTypes.h"
