#ifndef TH_TENSOR_APPLY_INC
#define TH_TENSOR_APPLY_INC

/* Element-wise loops over tensors of any sizes and strides (seed 001; docs/runtime.md).
 *
 * Each tensor is walked with its own counter. Its innermost dimensions that are laid out as one
 * arithmetic progression (sizes of 1 ignored) are collapsed into a single section of
 * TENSOR##_size elements TENSOR##_stride apart, so a contiguous tensor is one flat loop; the
 * remaining outer dimensions are stepped with a counter that is THAlloc'd and THFree'd inside the
 * same macro. Tensors must have the same number of elements, not the same shape (TH semantics:
 * a 2x3 tensor can be copied into a 6-vector).
 *
 * Inside CODE, TENSOR##_data points at the current element; TH_TENSOR_APPLY's CODE may handle
 * the whole section at once and `break` (seed 001's fill). CODE must not return or jump out
 * of the macro (the counters would leak). Tensors that CODE writes must be materialized first
 * (THTensor_(prepareWrite)), since a copy-on-write storage may still share its data. */

#include <inttypes.h>

#include "THGeneral.h"

/* Declarations of the loop state of one tensor. */
#define TH_TENSOR_APPLY_DECLARE_(TYPE, TENSOR) \
  TYPE *TENSOR##_data = NULL; \
  int64_t *TENSOR##_counter = NULL; \
  int64_t TENSOR##_stride = 0, TENSOR##_size = 0, TENSOR##_dim = 0, TENSOR##_i = 0, TENSOR##_n = 0; \
  for (TENSOR##_dim = 0; TENSOR##_dim < TENSOR->nDimension; TENSOR##_dim++) \
    TENSOR##_n = (TENSOR##_dim == 0 ? 1 : TENSOR##_n) * TENSOR->size[TENSOR##_dim];

/* Finds the collapsed inner section of one tensor: its first element, stride and length, and in
 * TENSOR##_dim the outermost dimension left to the counter (-1 when everything collapsed). */
#define TH_TENSOR_APPLY_SECTION_(TENSOR) \
  TENSOR##_data = TENSOR->storage->data + TENSOR->storageOffset; \
  for (TENSOR##_dim = TENSOR->nDimension - 1; TENSOR##_dim >= 0; TENSOR##_dim--) \
    if (TENSOR->size[TENSOR##_dim] != 1) \
      break; \
  TENSOR##_stride = (TENSOR##_dim == -1 ? 0 : TENSOR->stride[TENSOR##_dim]); \
  TENSOR##_size = 1; \
  for (TENSOR##_dim = TENSOR->nDimension - 1; TENSOR##_dim >= 0; TENSOR##_dim--) { \
    if (TENSOR->size[TENSOR##_dim] == 1) \
      continue; \
    if (TENSOR->stride[TENSOR##_dim] != TENSOR##_stride * TENSOR##_size) \
      break; \
    TENSOR##_size *= TENSOR->size[TENSOR##_dim]; \
  }

/* Moves one tensor to the start of its next section; sets TH_TENSOR_APPLY_hasFinished after the
 * last one. */
#define TH_TENSOR_APPLY_ADVANCE_(TENSOR) \
  if (TENSOR##_dim == -1) { \
    TH_TENSOR_APPLY_hasFinished = 1; \
  } else { \
    TENSOR##_data -= TENSOR##_i * TENSOR##_stride; \
    for (TENSOR##_i = TENSOR##_dim; TENSOR##_i >= 0; TENSOR##_i--) { \
      TENSOR##_counter[TENSOR##_i]++; \
      TENSOR##_data += TENSOR->stride[TENSOR##_i]; \
      if (TENSOR##_counter[TENSOR##_i] != TENSOR->size[TENSOR##_i]) \
        break; \
      if (TENSOR##_i == 0) { \
        TH_TENSOR_APPLY_hasFinished = 1; \
        break; \
      } \
      TENSOR##_data -= TENSOR##_counter[TENSOR##_i] * TENSOR->stride[TENSOR##_i]; \
      TENSOR##_counter[TENSOR##_i] = 0; \
    } \
    TENSOR##_i = 0; \
  }

#define TH_TENSOR_APPLY(TYPE, TENSOR, CODE) \
{ \
  int TH_TENSOR_APPLY_hasFinished = 0; \
  TH_TENSOR_APPLY_DECLARE_(TYPE, TENSOR) \
  if (TENSOR##_n == 0) { \
    TH_TENSOR_APPLY_hasFinished = 1; \
  } else { \
    TH_TENSOR_APPLY_SECTION_(TENSOR) \
    TENSOR##_counter = (int64_t *)THAlloc(sizeof(int64_t) * (TENSOR##_dim + 1)); \
    for (TENSOR##_i = 0; TENSOR##_i <= TENSOR##_dim; TENSOR##_i++) \
      TENSOR##_counter[TENSOR##_i] = 0; \
  } \
  while (!TH_TENSOR_APPLY_hasFinished) { \
    for (TENSOR##_i = 0; TENSOR##_i < TENSOR##_size; TENSOR##_i++, TENSOR##_data += TENSOR##_stride) { \
      CODE \
    } \
    TH_TENSOR_APPLY_ADVANCE_(TENSOR) \
  } \
  THFree(TENSOR##_counter); \
}

#define TH_TENSOR_APPLY2(TYPE1, TENSOR1, TYPE2, TENSOR2, CODE) \
{ \
  int TH_TENSOR_APPLY_hasFinished = 0; \
  TH_TENSOR_APPLY_DECLARE_(TYPE1, TENSOR1) \
  TH_TENSOR_APPLY_DECLARE_(TYPE2, TENSOR2) \
  if (TENSOR1##_n != TENSOR2##_n) \
    THError("inconsistent tensor size: %" PRId64 " and %" PRId64 " elements", \
            (int64_t)TENSOR1##_n, (int64_t)TENSOR2##_n); \
  if (TENSOR1##_n == 0) { \
    TH_TENSOR_APPLY_hasFinished = 1; \
  } else { \
    TH_TENSOR_APPLY_SECTION_(TENSOR1) \
    TH_TENSOR_APPLY_SECTION_(TENSOR2) \
    TENSOR1##_counter = (int64_t *)THAlloc(sizeof(int64_t) * (TENSOR1##_dim + 1)); \
    for (TENSOR1##_i = 0; TENSOR1##_i <= TENSOR1##_dim; TENSOR1##_i++) \
      TENSOR1##_counter[TENSOR1##_i] = 0; \
    TENSOR2##_counter = (int64_t *)THAlloc(sizeof(int64_t) * (TENSOR2##_dim + 1)); \
    for (TENSOR2##_i = 0; TENSOR2##_i <= TENSOR2##_dim; TENSOR2##_i++) \
      TENSOR2##_counter[TENSOR2##_i] = 0; \
    TENSOR1##_i = 0; \
    TENSOR2##_i = 0; \
  } \
  while (!TH_TENSOR_APPLY_hasFinished) { \
    /* Step both until either reaches the end of its section. */ \
    for (; TENSOR1##_i < TENSOR1##_size && TENSOR2##_i < TENSOR2##_size; \
         TENSOR1##_i++, TENSOR2##_i++, \
         TENSOR1##_data += TENSOR1##_stride, TENSOR2##_data += TENSOR2##_stride) { \
      CODE \
    } \
    if (TENSOR1##_i == TENSOR1##_size) { \
      TH_TENSOR_APPLY_ADVANCE_(TENSOR1) \
    } \
    if (TENSOR2##_i == TENSOR2##_size) { \
      TH_TENSOR_APPLY_ADVANCE_(TENSOR2) \
    } \
  } \
  THFree(TENSOR1##_counter); \
  THFree(TENSOR2##_counter); \
}

#define TH_TENSOR_APPLY3(TYPE1, TENSOR1, TYPE2, TENSOR2, TYPE3, TENSOR3, CODE) \
{ \
  int TH_TENSOR_APPLY_hasFinished = 0; \
  TH_TENSOR_APPLY_DECLARE_(TYPE1, TENSOR1) \
  TH_TENSOR_APPLY_DECLARE_(TYPE2, TENSOR2) \
  TH_TENSOR_APPLY_DECLARE_(TYPE3, TENSOR3) \
  if (TENSOR1##_n != TENSOR2##_n || TENSOR1##_n != TENSOR3##_n) \
    THError("inconsistent tensor size: %" PRId64 ", %" PRId64 " and %" PRId64 " elements", \
            (int64_t)TENSOR1##_n, (int64_t)TENSOR2##_n, (int64_t)TENSOR3##_n); \
  if (TENSOR1##_n == 0) { \
    TH_TENSOR_APPLY_hasFinished = 1; \
  } else { \
    TH_TENSOR_APPLY_SECTION_(TENSOR1) \
    TH_TENSOR_APPLY_SECTION_(TENSOR2) \
    TH_TENSOR_APPLY_SECTION_(TENSOR3) \
    TENSOR1##_counter = (int64_t *)THAlloc(sizeof(int64_t) * (TENSOR1##_dim + 1)); \
    for (TENSOR1##_i = 0; TENSOR1##_i <= TENSOR1##_dim; TENSOR1##_i++) \
      TENSOR1##_counter[TENSOR1##_i] = 0; \
    TENSOR2##_counter = (int64_t *)THAlloc(sizeof(int64_t) * (TENSOR2##_dim + 1)); \
    for (TENSOR2##_i = 0; TENSOR2##_i <= TENSOR2##_dim; TENSOR2##_i++) \
      TENSOR2##_counter[TENSOR2##_i] = 0; \
    TENSOR3##_counter = (int64_t *)THAlloc(sizeof(int64_t) * (TENSOR3##_dim + 1)); \
    for (TENSOR3##_i = 0; TENSOR3##_i <= TENSOR3##_dim; TENSOR3##_i++) \
      TENSOR3##_counter[TENSOR3##_i] = 0; \
    TENSOR1##_i = 0; \
    TENSOR2##_i = 0; \
    TENSOR3##_i = 0; \
  } \
  while (!TH_TENSOR_APPLY_hasFinished) { \
    for (; TENSOR1##_i < TENSOR1##_size && TENSOR2##_i < TENSOR2##_size \
           && TENSOR3##_i < TENSOR3##_size; \
         TENSOR1##_i++, TENSOR2##_i++, TENSOR3##_i++, \
         TENSOR1##_data += TENSOR1##_stride, TENSOR2##_data += TENSOR2##_stride, \
         TENSOR3##_data += TENSOR3##_stride) { \
      CODE \
    } \
    if (TENSOR1##_i == TENSOR1##_size) { \
      TH_TENSOR_APPLY_ADVANCE_(TENSOR1) \
    } \
    if (TENSOR2##_i == TENSOR2##_size) { \
      TH_TENSOR_APPLY_ADVANCE_(TENSOR2) \
    } \
    if (TENSOR3##_i == TENSOR3##_size) { \
      TH_TENSOR_APPLY_ADVANCE_(TENSOR3) \
    } \
  } \
  THFree(TENSOR1##_counter); \
  THFree(TENSOR2##_counter); \
  THFree(TENSOR3##_counter); \
}

#endif
