#include "THCGeneral.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

static long liveDeviceBlocks = 0;

static cudaError_t THCDefaultDeviceAllocator_malloc(void *ctx, void **ptr, size_t size, cudaStream_t stream)
{
  (void)ctx;
  (void)stream;
  return cudaMalloc(ptr, size);
}

static cudaError_t THCDefaultDeviceAllocator_free(void *ctx, void *ptr, cudaStream_t stream)
{
  (void)ctx;
  (void)stream;
  return cudaFree(ptr);
}

THCDeviceAllocator THCDefaultDeviceAllocator = {
  THCDefaultDeviceAllocator_malloc, THCDefaultDeviceAllocator_free
};

static cudaError_t THCPoolDeviceAllocator_malloc(void *ctx, void **ptr, size_t size, cudaStream_t stream)
{
  return cudaMallocFromPoolAsync(ptr, size, (cudaMemPool_t)ctx, stream);
}

static cudaError_t THCPoolDeviceAllocator_free(void *ctx, void *ptr, cudaStream_t stream)
{
  (void)ctx;
  return cudaFreeAsync(ptr, stream);
}

THCDeviceAllocator THCPoolDeviceAllocator = {
  THCPoolDeviceAllocator_malloc, THCPoolDeviceAllocator_free
};

/* A pool on `device` that keeps what is freed (no release threshold): the reductions' partials
 * block, every storage, come back from it without a cudaMalloc. */
static cudaMemPool_t THCState_newPool(int device)
{
  cudaMemPoolProps props;
  memset(&props, 0, sizeof(props));
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool;
  THCudaCheck(cudaMemPoolCreate(&pool, &props));
  uint64_t keep = UINT64_MAX;
  THCudaCheck(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  return pool;
}

void THCudaCheckFail(cudaError_t err, const char *file, int line)
{
  _THError(file, line, "CUDA error %d: %s", (int)err, cudaGetErrorString(err));
}

THCState *THCState_new(int device)
{
  int count = THCDeviceCount();
  THArgCheck(device >= 0 && device < count, 1, "device %d does not exist (%d visible)", device, count);
  THCudaCheck(cudaSetDevice(device));
  cudaStream_t stream;
  THCudaCheck(cudaStreamCreate(&stream));
  cudaMemPool_t pool = THCState_newPool(device);
  THCState *state = (THCState *)THAlloc(sizeof(THCState));
  state->device = device;
  state->stream = stream;
  state->pool = pool;
  state->allocator = &THCPoolDeviceAllocator;
  state->allocatorContext = (void *)pool;
  return state;
}

void THCState_free(THCState *state)
{
  if (!state)
    return;
  THCudaCheck(cudaStreamSynchronize(state->stream));
  /* Blocks still out (a leak the live count reports) keep the pool until they are freed. */
  THCudaCheck(cudaMemPoolDestroy(state->pool));
  THCudaCheck(cudaStreamDestroy(state->stream));
  THFree(state);
}

cudaStream_t THCState_getStream(THCState *state)
{
  return state->stream;
}

void *THCudaBlock_new(THCState *state, size_t size)
{
  if (size == 0)
    return NULL;
  void *ptr = NULL;
  THCudaCheck(state->allocator->malloc(state->allocatorContext, &ptr, size, state->stream));
  __atomic_add_fetch(&liveDeviceBlocks, 1, __ATOMIC_RELAXED);
  return ptr;
}

void THCudaBlock_free(THCState *state, void *ptr)
{
  if (!ptr)
    return;
  /* Kernels queued on the stream may still read the block: the allocator's free is ordered
   * after them (see THCDeviceAllocator). */
  THCudaCheck(state->allocator->free(state->allocatorContext, ptr, state->stream));
  __atomic_sub_fetch(&liveDeviceBlocks, 1, __ATOMIC_RELAXED);
}

long THCLiveDeviceBlocks(void)
{
  return __atomic_load_n(&liveDeviceBlocks, __ATOMIC_RELAXED);
}

int THCDeviceCount(void)
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  /* clear the sticky "no driver" error so later calls report their own */
    return 0;
  }
  return count;
}
