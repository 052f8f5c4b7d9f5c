#ifndef THC_GENERAL_INC
#define THC_GENERAL_INC

/* THC is TH's CUDA twin: the same object model and ownership rules, with a THCState handle as
 * the first argument of every function. The state is a context, never a counted reference, so
 * passing it along owns nothing. Headers stay C-compatible, as TH's do. */

#include "../TH/THGeneral.h"
#include <cuda_runtime_api.h>

/* Device memory comes from an allocator in the state, so that a caching allocator can be put in
 * without touching storages (THC's THCDeviceAllocator). Both calls get the state's stream: a
 * block is freed while kernels queued on that stream may still use it, so `free` must not let
 * the memory be reused before they finish (cudaFree waits for the device; a stream-ordered
 * free is ordered after them). */
typedef struct THCDeviceAllocator {
  cudaError_t (*malloc)(void *ctx, void **ptr, size_t size, cudaStream_t stream);
  cudaError_t (*free)(void *ctx, void *ptr, cudaStream_t stream);
} THCDeviceAllocator;

typedef struct THCState {
  int device;
  cudaStream_t stream;
  THCDeviceAllocator *allocator;
  void *allocatorContext;
  cudaMemPool_t pool; /* the state's own memory pool, behind THCPoolDeviceAllocator */
} THCState;

/* cudaMalloc/cudaFree behind the allocator interface (context unused). */
TH_API THCDeviceAllocator THCDefaultDeviceAllocator;
/* Stream-ordered allocation from the cudaMemPool_t given as context (cudaMallocFromPoolAsync,
 * cudaFreeAsync): no device-wide synchronisation per block, and freed memory is kept for reuse. */
TH_API THCDeviceAllocator THCPoolDeviceAllocator;

/* A state on `device` with a stream and a memory pool of its own (THCPoolDeviceAllocator);
 * THError when the device cannot be used. */
TH_API THCState *THCState_new(int device);
TH_API void THCState_free(THCState *state);
TH_API cudaStream_t THCState_getStream(THCState *state);

/* Raises a THError naming the CUDA error; never returns, so callers need no cleanup. */
TH_API TH_NO_RETURN void THCudaCheckFail(cudaError_t err, const char *file, int line);

#define THCudaCheck(EXPR) \
  do { cudaError_t _thc_err = (EXPR); if (_thc_err != cudaSuccess) THCudaCheckFail(_thc_err, __FILE__, __LINE__); } while (0)

/* Checks the last kernel launch. */
#define THCudaCheckLaunch() THCudaCheck(cudaGetLastError())

/* A device block of `size` bytes from the state's allocator, counted until THCudaBlock_free.
 * size 0 gives NULL. */
TH_API void *THCudaBlock_new(THCState *state, size_t size);
TH_API void THCudaBlock_free(THCState *state, void *ptr);

/* Device blocks handed out and not yet given back (TH's THLiveObjects counts the structs). */
TH_API long THCLiveDeviceBlocks(void);

/* How many devices the CUDA runtime sees; 0 (not an error) when there is no driver or GPU. */
TH_API int THCDeviceCount(void);

#endif
