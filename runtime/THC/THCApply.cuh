#ifndef THC_APPLY_CUH
#define THC_APPLY_CUH

/* THC's pointwiseApply: one kernel thread per element over up to three tensors of any strides.
 * Each tensor is walked in its own logical (row-major) order, so tensors of different shapes but
 * equal element counts pair up element by element, as TH's copy does. */

#include "THCGeneral.h"

#define THC_APPLY_THREADS 256
#define THC_APPLY_MAX_BLOCKS 65535

/* Sizes and strides travel by value in the kernel arguments: no device allocation per launch. */
template <typename T>
struct THCTensorInfo {
  T *data;
  int dims;
  int64_t sizes[THC_MAX_DIMS];
  int64_t strides[THC_MAX_DIMS];
};

template <typename T, typename TensorT>
THCTensorInfo<T> THCTensorInfo_of(const TensorT *t)
{
  THCTensorInfo<T> info;
  info.data = t->storage->data + t->storageOffset;
  info.dims = t->nDimension;
  for (int d = 0; d < t->nDimension; d++) {
    info.sizes[d] = t->size[d];
    info.strides[d] = t->stride[d];
  }
  return info;
}

/* The offset of the linear-th element, last dimension fastest. */
template <typename T>
__device__ __forceinline__ int64_t THCTensorInfo_offset(const THCTensorInfo<T> &info, int64_t linear)
{
  int64_t offset = 0;
  for (int d = info.dims - 1; d >= 0; d--) {
    int64_t i = linear % info.sizes[d];
    linear /= info.sizes[d];
    offset += i * info.strides[d];
  }
  return offset;
}

inline int THCApply_blocks(ptrdiff_t n)
{
  ptrdiff_t blocks = (n + THC_APPLY_THREADS - 1) / THC_APPLY_THREADS;
  return (int)(blocks < THC_APPLY_MAX_BLOCKS ? blocks : THC_APPLY_MAX_BLOCKS);
}

template <typename Op, typename A>
__global__ void THCApply_kernel1(THCTensorInfo<A> a, int64_t n, Op op)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)blockDim.x * gridDim.x)
    op(&a.data[THCTensorInfo_offset(a, i)]);
}

template <typename Op, typename A, typename B>
__global__ void THCApply_kernel2(THCTensorInfo<A> a, THCTensorInfo<B> b, int64_t n, Op op)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)blockDim.x * gridDim.x)
    op(&a.data[THCTensorInfo_offset(a, i)], &b.data[THCTensorInfo_offset(b, i)]);
}

template <typename Op, typename A, typename B, typename C>
__global__ void THCApply_kernel3(THCTensorInfo<A> a, THCTensorInfo<B> b, THCTensorInfo<C> c, int64_t n, Op op)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)blockDim.x * gridDim.x)
    op(&a.data[THCTensorInfo_offset(a, i)], &b.data[THCTensorInfo_offset(b, i)],
       &c.data[THCTensorInfo_offset(c, i)]);
}

/* The callers check element counts; these only launch on the state's stream. */
template <typename T, typename TensorA, typename Op>
void THC_pointwiseApply1(THCState *state, TensorA *a, ptrdiff_t n, Op op)
{
  if (n == 0)
    return;
  THCApply_kernel1<Op, T><<<THCApply_blocks(n), THC_APPLY_THREADS, 0, state->stream>>>(
      THCTensorInfo_of<T>(a), (int64_t)n, op);
  THCudaCheckLaunch();
}

template <typename T, typename TensorA, typename TensorB, typename Op>
void THC_pointwiseApply2(THCState *state, TensorA *a, TensorB *b, ptrdiff_t n, Op op)
{
  if (n == 0)
    return;
  THCApply_kernel2<Op, T, T><<<THCApply_blocks(n), THC_APPLY_THREADS, 0, state->stream>>>(
      THCTensorInfo_of<T>(a), THCTensorInfo_of<T>(b), (int64_t)n, op);
  THCudaCheckLaunch();
}

template <typename T, typename TensorA, typename TensorB, typename TensorC, typename Op>
void THC_pointwiseApply3(THCState *state, TensorA *a, TensorB *b, TensorC *c, ptrdiff_t n, Op op)
{
  if (n == 0)
    return;
  THCApply_kernel3<Op, T, T, T><<<THCApply_blocks(n), THC_APPLY_THREADS, 0, state->stream>>>(
      THCTensorInfo_of<T>(a), THCTensorInfo_of<T>(b), THCTensorInfo_of<T>(c), (int64_t)n, op);
  THCudaCheckLaunch();
}

#endif
