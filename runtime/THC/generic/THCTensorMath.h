#ifndef THC_GENERIC_FILE
#define THC_GENERIC_FILE "generic/THCTensorMath.h"
#else

/* Results go into self, resized to the first source's sizes as TH does; sources of the same
 * element count pair up element by element in logical order. Any strides everywhere. */
TH_API void THCTensor_(fill)(THCState *state, THCTensor *self, real value);
TH_API void THCTensor_(zero)(THCState *state, THCTensor *self);
/* self = src + value */
TH_API void THCTensor_(add)(THCState *state, THCTensor *self, THCTensor *src, real value);
/* self = src * value */
TH_API void THCTensor_(mul)(THCState *state, THCTensor *self, THCTensor *src, real value);
/* self = src1 + value * src2 */
TH_API void THCTensor_(cadd)(THCState *state, THCTensor *self, THCTensor *src1, real value, THCTensor *src2);
/* self = src1 * src2 */
TH_API void THCTensor_(cmul)(THCState *state, THCTensor *self, THCTensor *src1, THCTensor *src2);
/* Tree reductions in shared memory, accumulated in accreal. */
TH_API accreal THCTensor_(sum)(THCState *state, THCTensor *self);
TH_API accreal THCTensor_(dot)(THCState *state, THCTensor *self, THCTensor *src);

#endif
