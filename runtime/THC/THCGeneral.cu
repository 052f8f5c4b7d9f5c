#include "THCGeneral.h"

#include <cuda_runtime.h>

static long liveDeviceBlocks = 0;

static cudaError_t THCDefaultDeviceAllocator_malloc(void *ctx, void **ptr, size_t size, cudaStream_t stream)
{
  (void)ctx;
  (void)stream;
  return cudaMalloc(ptr, size);
}

static cudaError_t THCDefaultDeviceAllocator_free(void *ctx, void *ptr)
{
  (void)ctx;
  return cudaFree(ptr);
}

THCDeviceAllocator THCDefaultDeviceAllocator = {
  THCDefaultDeviceAllocator_malloc, THCDefaultDeviceAllocator_free
};

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
  THCState *state = (THCState *)THAlloc(sizeof(THCState));
  state->device = device;
  state->stream = stream;
  state->allocator = &THCDefaultDeviceAllocator;
  state->allocatorContext = NULL;
  return state;
}

void THCState_free(THCState *state)
{
  if (!state)
    return;
  THCudaCheck(cudaStreamSynchronize(state->stream));
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
  /* Kernels queued on the stream may still read the block. */
  THCudaCheck(cudaStreamSynchronize(state->stream));
  THCudaCheck(state->allocator->free(state->allocatorContext, ptr));
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
