#ifndef THC_GENERIC_FILE
#define THC_GENERIC_FILE "generic/THCTensorCopy.h"
#else

/* Device to device: self and src hold the same number of elements, any strides, walked in
 * logical order. */
TH_API void THCTensor_(copy)(THCState *state, THCTensor *self, THCTensor *src);

/* Host to device and back. The host side has self's sizes; `stride` gives its strides in
 * elements (NULL: contiguous), `data` its first element. A CPU THFloatTensor t passes
 * THFloatTensor_data(t) and t->stride after resizing self to its sizes. */
TH_API void THCTensor_(copyFromHost)(THCState *state, THCTensor *self, const real *data, const int64_t *stride);
TH_API void THCTensor_(copyToHost)(THCState *state, THCTensor *self, real *data, const int64_t *stride);

#endif
