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

/* Drops size-1 dimensions and merges each dimension into the next inner one where the pair is
 * laid out as one (stride[d] == size[d+1] * stride[d+1]), keeping the logical order: a contiguous
 * tensor of any shape becomes one dimension of stride 1, a transposed matrix stays two. */
template <typename T>
void THCTensorInfo_collapse(THCTensorInfo<T> *info)
{
  int out = 0;
  for (int d = 0; d < info->dims; d++) {
    if (info->sizes[d] == 1)
      continue;
    if (out > 0 && info->strides[out - 1] == info->sizes[d] * info->strides[d]) {
      info->sizes[out - 1] *= info->sizes[d];
      info->strides[out - 1] = info->strides[d];
    } else {
      info->sizes[out] = info->sizes[d];
      info->strides[out] = info->strides[d];
      out++;
    }
  }
  if (out == 0) {  /* every size 1 (or no dimension): one element */
    info->sizes[0] = 1;
    info->strides[0] = 1;
    out = 1;
  }
  info->dims = out;
}

template <typename T>
THCTensorInfo<T> THCTensorInfo_collapsed(const THCTensorInfo<T> &info)
{
  THCTensorInfo<T> c = info;
  THCTensorInfo_collapse(&c);
  return c;
}

template <typename T>
bool THCTensorInfo_isContiguous(const THCTensorInfo<T> &info)
{
  return info.dims == 1 && info.strides[0] == 1;
}

/* Whether every element offset of the (collapsed) tensor fits in 32 bits. */
template <typename T>
bool THCTensorInfo_fits32(const THCTensorInfo<T> &info)
{
  int64_t last = 0;
  for (int d = 0; d < info.dims; d++) {
    if (info.strides[d] < 0)
      return false;
    last += (info.sizes[d] - 1) * info.strides[d];
  }
  return last <= INT32_MAX;
}

/* The offset of the linear-th element, last dimension fastest; IndexT is uint32_t where every
 * offset fits, since 64-bit division is emulated on the device and costs tens of instructions. */
template <typename IndexT, typename T>
__device__ __forceinline__ IndexT THCTensorInfo_offset(const THCTensorInfo<T> &info, IndexT linear)
{
  IndexT offset = 0;
  for (int d = info.dims - 1; d >= 0; d--) {
    IndexT size = (IndexT)info.sizes[d];
    IndexT i = linear % size;
    linear /= size;
    offset += i * (IndexT)info.strides[d];
  }
  return offset;
}

inline int THCApply_blocks(ptrdiff_t n, int perThread)
{
  ptrdiff_t blocks = (n + (ptrdiff_t)THC_APPLY_THREADS * perThread - 1) / ((ptrdiff_t)THC_APPLY_THREADS * perThread);
  return (int)(blocks < THC_APPLY_MAX_BLOCKS ? blocks : THC_APPLY_MAX_BLOCKS);
}

/* Elements each thread of the contiguous kernels handles per step: the inputs of all of them
 * are loaded before any result is stored, so that several loads are in flight per thread. */
#define THC_APPLY_UNROLL 4

/* Contiguous tensors: no offsets to compute. Inputs go through registers first; the output is
 * only written (the ops never read it), and an input that is the output itself (in place) is
 * read at an index before that index is written. */
template <typename Op, typename A>
__global__ void THCApply_contiguous1(A *a, int64_t n, Op op)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)blockDim.x * gridDim.x)
    op(&a[i]);
}

template <typename Op, typename A, typename B>
__global__ void THCApply_contiguous2(A *a, const B *b, int64_t n, Op op)
{
  const int64_t step = (int64_t)blockDim.x * gridDim.x;
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  for (; i + (THC_APPLY_UNROLL - 1) * step < n; i += THC_APPLY_UNROLL * step) {
    B bv[THC_APPLY_UNROLL];
#pragma unroll
    for (int u = 0; u < THC_APPLY_UNROLL; u++)
      bv[u] = b[i + u * step];
#pragma unroll
    for (int u = 0; u < THC_APPLY_UNROLL; u++)
      op(&a[i + u * step], &bv[u]);
  }
  for (; i < n; i += step)
    op(&a[i], &b[i]);
}

template <typename Op, typename A, typename B, typename C>
__global__ void THCApply_contiguous3(A *a, const B *b, const C *c, int64_t n, Op op)
{
  const int64_t step = (int64_t)blockDim.x * gridDim.x;
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  for (; i + (THC_APPLY_UNROLL - 1) * step < n; i += THC_APPLY_UNROLL * step) {
    B bv[THC_APPLY_UNROLL];
    C cv[THC_APPLY_UNROLL];
#pragma unroll
    for (int u = 0; u < THC_APPLY_UNROLL; u++) {
      bv[u] = b[i + u * step];
      cv[u] = c[i + u * step];
    }
#pragma unroll
    for (int u = 0; u < THC_APPLY_UNROLL; u++)
      op(&a[i + u * step], &bv[u], &cv[u]);
  }
  for (; i < n; i += step)
    op(&a[i], &b[i], &c[i]);
}

/* Any strides: each tensor's offset from the linear index, dimension by dimension. */
template <typename Op, typename IndexT, typename A>
__global__ void THCApply_kernel1(THCTensorInfo<A> a, IndexT n, Op op)
{
  for (IndexT i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    op(&a.data[THCTensorInfo_offset(a, i)]);
}

template <typename Op, typename IndexT, typename A, typename B>
__global__ void THCApply_kernel2(THCTensorInfo<A> a, THCTensorInfo<B> b, IndexT n, Op op)
{
  for (IndexT i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    op(&a.data[THCTensorInfo_offset(a, i)], &b.data[THCTensorInfo_offset(b, i)]);
}

template <typename Op, typename IndexT, typename A, typename B, typename C>
__global__ void THCApply_kernel3(THCTensorInfo<A> a, THCTensorInfo<B> b, THCTensorInfo<C> c, IndexT n, Op op)
{
  for (IndexT i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    op(&a.data[THCTensorInfo_offset(a, i)], &b.data[THCTensorInfo_offset(b, i)],
       &c.data[THCTensorInfo_offset(c, i)]);
}

/* 32-bit indexing when the element count and every offset fit: the grid-stride index then stays
 * below n + the grid's threads (at most 65535 * 256), far from wrapping an unsigned 32-bit. */
inline bool THCApply_fits32(ptrdiff_t n)
{
  return n <= INT32_MAX;
}

/* The callers check element counts; these only launch on the state's stream. */
template <typename T, typename TensorA, typename Op>
void THC_pointwiseApply1(THCState *state, TensorA *a, ptrdiff_t n, Op op)
{
  if (n == 0)
    return;
  THCTensorInfo<T> ai = THCTensorInfo_collapsed(THCTensorInfo_of<T>(a));
  if (THCTensorInfo_isContiguous(ai))
    THCApply_contiguous1<Op, T><<<THCApply_blocks(n, 1), THC_APPLY_THREADS, 0, state->stream>>>(ai.data, (int64_t)n, op);
  else if (THCApply_fits32(n) && THCTensorInfo_fits32(ai))
    THCApply_kernel1<Op, uint32_t, T><<<THCApply_blocks(n, 1), THC_APPLY_THREADS, 0, state->stream>>>(
        ai, (uint32_t)n, op);
  else
    THCApply_kernel1<Op, uint64_t, T><<<THCApply_blocks(n, 1), THC_APPLY_THREADS, 0, state->stream>>>(
        ai, (uint64_t)n, op);
  THCudaCheckLaunch();
}

template <typename T, typename TensorA, typename TensorB, typename Op>
void THC_pointwiseApply2(THCState *state, TensorA *a, TensorB *b, ptrdiff_t n, Op op)
{
  if (n == 0)
    return;
  THCTensorInfo<T> ai = THCTensorInfo_collapsed(THCTensorInfo_of<T>(a));
  THCTensorInfo<T> bi = THCTensorInfo_collapsed(THCTensorInfo_of<T>(b));
  if (THCTensorInfo_isContiguous(ai) && THCTensorInfo_isContiguous(bi))
    THCApply_contiguous2<Op, T, T><<<THCApply_blocks(n, THC_APPLY_UNROLL), THC_APPLY_THREADS, 0, state->stream>>>(
        ai.data, bi.data, (int64_t)n, op);
  else if (THCApply_fits32(n) && THCTensorInfo_fits32(ai) && THCTensorInfo_fits32(bi))
    THCApply_kernel2<Op, uint32_t, T, T><<<THCApply_blocks(n, 1), THC_APPLY_THREADS, 0, state->stream>>>(
        ai, bi, (uint32_t)n, op);
  else
    THCApply_kernel2<Op, uint64_t, T, T><<<THCApply_blocks(n, 1), THC_APPLY_THREADS, 0, state->stream>>>(
        ai, bi, (uint64_t)n, op);
  THCudaCheckLaunch();
}

template <typename T, typename TensorA, typename TensorB, typename TensorC, typename Op>
void THC_pointwiseApply3(THCState *state, TensorA *a, TensorB *b, TensorC *c, ptrdiff_t n, Op op)
{
  if (n == 0)
    return;
  THCTensorInfo<T> ai = THCTensorInfo_collapsed(THCTensorInfo_of<T>(a));
  THCTensorInfo<T> bi = THCTensorInfo_collapsed(THCTensorInfo_of<T>(b));
  THCTensorInfo<T> ci = THCTensorInfo_collapsed(THCTensorInfo_of<T>(c));
  if (THCTensorInfo_isContiguous(ai) && THCTensorInfo_isContiguous(bi) && THCTensorInfo_isContiguous(ci))
    THCApply_contiguous3<Op, T, T, T><<<THCApply_blocks(n, THC_APPLY_UNROLL), THC_APPLY_THREADS, 0, state->stream>>>(
        ai.data, bi.data, ci.data, (int64_t)n, op);
  else if (THCApply_fits32(n) && THCTensorInfo_fits32(ai) && THCTensorInfo_fits32(bi) && THCTensorInfo_fits32(ci))
    THCApply_kernel3<Op, uint32_t, T, T, T><<<THCApply_blocks(n, 1), THC_APPLY_THREADS, 0, state->stream>>>(
        ai, bi, ci, (uint32_t)n, op);
  else
    THCApply_kernel3<Op, uint64_t, T, T, T><<<THCApply_blocks(n, 1), THC_APPLY_THREADS, 0, state->stream>>>(
        ai, bi, ci, (uint64_t)n, op);
  THCudaCheckLaunch();
}

#endif
