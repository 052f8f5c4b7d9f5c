/* Declarations for the historical-bug reproductions: TH, THC, THS and THNN names as they were,
 * re-typed, Float and CUDA instantiations only. Self-contained (no system headers) so that the
 * cases parse the same under gcc and libclang. */
#ifndef REFCHECK_REALWORLD_TH_H
#define REFCHECK_REALWORLD_TH_H

#define NULL ((void *)0)
#define TH_API extern
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef long int64_t;

TH_API void *THAlloc(ptrdiff_t size);
TH_API void THFree(void *ptr);
TH_API void _THError(const char *file, const int line, const char *fmt, ...) __attribute__((noreturn));
TH_API void _THArgCheck(const char *file, int line, int condition, int argNumber, const char *fmt, ...);
#define THError(...) _THError(__FILE__, __LINE__, __VA_ARGS__)
#define THArgCheck(...) _THArgCheck(__FILE__, __LINE__, __VA_ARGS__)

typedef struct THLongStorage { long *data; ptrdiff_t size; int refcount; } THLongStorage;
typedef struct THFloatStorage { float *data; ptrdiff_t size; int refcount; } THFloatStorage;
typedef struct THFloatTensor {
  long *size; long *stride; int nDimension;
  THFloatStorage *storage; ptrdiff_t storageOffset; int refcount;
} THFloatTensor;
typedef struct THLongTensor {
  long *size; long *stride; int nDimension;
  THLongStorage *storage; ptrdiff_t storageOffset; int refcount;
} THLongTensor;
typedef struct THDoubleTensor THDoubleTensor;

TH_API void THLongStorage_free(THLongStorage *storage);
TH_API void THFloatStorage_free(THFloatStorage *storage);
TH_API void THFloatStorage_retain(THFloatStorage *storage);

TH_API THFloatTensor *THFloatTensor_new(void);
TH_API THFloatTensor *THFloatTensor_newWithSize1d(long size0);
TH_API THFloatTensor *THFloatTensor_newWithStorage1d(THFloatStorage *storage, ptrdiff_t offset,
                                                     long size0, long stride0);
TH_API THFloatTensor *THFloatTensor_newWithStorage2d(THFloatStorage *storage, ptrdiff_t offset,
                                                     long size0, long stride0, long size1, long stride1);
TH_API THFloatTensor *THFloatTensor_newContiguous(THFloatTensor *self);
TH_API THFloatTensor *THFloatTensor_newClone(THFloatTensor *self);
TH_API THFloatTensor *THFloatTensor_newSelect(THFloatTensor *self, int dimension, long index);
TH_API THFloatTensor *THFloatTensor_newTranspose(THFloatTensor *self, int dim1, int dim2);
TH_API void THFloatTensor_retain(THFloatTensor *self);
TH_API void THFloatTensor_free(THFloatTensor *self);
TH_API void THFloatTensor_freeCopyTo(THFloatTensor *self, THFloatTensor *dst);
TH_API int THFloatTensor_isContiguous(const THFloatTensor *self);
TH_API long THFloatTensor_size(const THFloatTensor *self, int dim);
TH_API float *THFloatTensor_data(const THFloatTensor *self);
TH_API void THFloatTensor_resizeAs(THFloatTensor *self, THFloatTensor *src);
TH_API void THFloatTensor_resize1d(THFloatTensor *self, long size0);
TH_API void THFloatTensor_resize2d(THFloatTensor *self, long size0, long size1);
TH_API void THFloatTensor_select(THFloatTensor *self, THFloatTensor *src, int dimension, long index);
TH_API void THFloatTensor_copy(THFloatTensor *self, THFloatTensor *src);
TH_API void THFloatTensor_zero(THFloatTensor *self);
TH_API void THFloatTensor_cadd(THFloatTensor *r, THFloatTensor *t, float value, THFloatTensor *src);
TH_API void THFloatTensor_sum(THFloatTensor *r, THFloatTensor *t, int dimension);
TH_API void THFloatTensor_sort(THFloatTensor *rt, THLongTensor *ri, THFloatTensor *t, int dim, int descending);
TH_API void THFloatBlas_gemm(char transa, char transb, long m, long n, long k, float alpha,
                             float *a, long lda, float *b, long ldb, float beta, float *c, long ldc);
TH_API void THFloatTensor_copyDouble(THFloatTensor *self, THDoubleTensor *src);
TH_API THLongTensor *THLongTensor_new(void);
TH_API void THLongTensor_free(THLongTensor *self);

/* THC: every call takes the state first. */
typedef struct THCState THCState;
typedef struct THCudaTensor {
  long *size; long *stride; int nDimension;
  THFloatStorage *storage; ptrdiff_t storageOffset; int refcount;
} THCudaTensor;
typedef struct THCudaStorage { float *data; ptrdiff_t size; int refcount; } THCudaStorage;
typedef struct THCudaByteTensor THCudaByteTensor;
typedef struct THCudaLongTensor THCudaLongTensor;
TH_API THCudaTensor *THCudaTensor_newContiguous(THCState *state, THCudaTensor *self);
TH_API THCudaTensor *THCudaTensor_newWithStorage1d(THCState *state, THCudaStorage *storage,
                                                   ptrdiff_t offset, long size0, long stride0);
TH_API THCudaTensor *THCudaTensor_newWithSize1d(THCState *state, long size0);
TH_API void THCudaTensor_retain(THCState *state, THCudaTensor *self);
TH_API void THCudaTensor_free(THCState *state, THCudaTensor *self);
TH_API void THCudaTensor_freeCopyTo(THCState *state, THCudaTensor *self, THCudaTensor *dst);
TH_API int THCudaTensor_isContiguous(THCState *state, const THCudaTensor *self);
TH_API int THCudaTensor_isSameSizeAs(THCState *state, const THCudaTensor *a, const THCudaTensor *b);
TH_API long THCudaTensor_size(THCState *state, const THCudaTensor *self, int dim);
TH_API float *THCudaTensor_data(THCState *state, const THCudaTensor *self);
TH_API void THCudaTensor_resizeAs(THCState *state, THCudaTensor *self, THCudaTensor *src);
TH_API void THCudaTensor_resize4d(THCState *state, THCudaTensor *self, long s0, long s1, long s2, long s3);
TH_API void THCudaTensor_copy(THCState *state, THCudaTensor *self, THCudaTensor *src);
TH_API void THCudaTensor_copyCuda(THCState *state, THCudaTensor *self, THCudaTensor *src);
TH_API void THFloatTensor_copyCuda(THCState *state, THFloatTensor *self, THCudaTensor *src);
TH_API THLongStorage *THCudaTensor_newSizeOf(THCState *state, THCudaTensor *self);
TH_API THCudaByteTensor *THCudaByteTensor_newWithSize(THCState *state, THLongStorage *size,
                                                      THLongStorage *stride);
TH_API unsigned char THCudaByteTensor_minall(THCState *state, THCudaByteTensor *self);
TH_API void THCudaByteTensor_free(THCState *state, THCudaByteTensor *self);
TH_API int THC_pointwiseApplyEq(THCState *state, THCudaByteTensor *out, THCudaTensor *a, THCudaTensor *b);
TH_API void THCudaBlas_gemmBatched(THCState *state, char ta, char tb, long m, long n, long k, float alpha,
                                   const float *a[], long lda, const float *b[], long ldb, float beta,
                                   float *c[], long ldc, long batchCount);

/* THCS: a sparse CUDA tensor owns its indices and values; newIndices/newValues return +1. */
typedef struct THCSFloatTensor THCSFloatTensor;
TH_API THCudaLongTensor *THCSFloatTensor_newIndices(THCState *state, const THCSFloatTensor *self);
TH_API THCudaTensor *THCSFloatTensor_newValues(THCState *state, const THCSFloatTensor *self);
TH_API THCSFloatTensor *THCSFloatTensor_newCoalesce(THCState *state, THCSFloatTensor *self);
TH_API void THCSFloatTensor_free(THCState *state, THCSFloatTensor *self);
TH_API void THCudaLongTensor_free(THCState *state, THCudaLongTensor *self);
TH_API long THCSFloatTensor_nnz(THCState *state, const THCSFloatTensor *self);
TH_API void THCSFloatTensor_spcaddKernel(THCState *state, THCudaTensor *r, THCudaLongTensor *indices,
                                         THCudaTensor *values, float value);

#endif
